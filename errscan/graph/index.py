"""The whole package's facts by module: resolves names across files (re-exports, class bases)."""

from __future__ import annotations

from errscan.extract.facts import ClassFact, ModuleFacts
from errscan.extract.names import qualify

_MAX_HOPS = 16
MODULE_CODE = "<module>"


def function_node(module: str, scope: str) -> str:
    """The node of a function of `module` (`scope` is its qualified name in the module; "" is the
    module's own code)."""
    return f"{module}.{scope}" if scope else f"{module}.{MODULE_CODE}"


class PackageIndex:
    def __init__(self, modules: list[ModuleFacts]):
        self.modules = {m.module: m for m in modules}
        self.classes: dict[str, tuple[ClassFact, ModuleFacts]] = {
            c.qualname: (c, m) for m in modules for c in m.classes
        }
        self.top_packages = frozenset(m.module.split(".")[0] for m in modules)
        self._bases: dict[str, tuple[str, ...]] = {}
        self._stars: dict[str, tuple[tuple[str, ModuleFacts], ...]] = {}  # module -> what its `import *`s read

    def canonical(self, qualname: str) -> str:
        """Follow re-exports: `pkg.Name` imported into `pkg/__init__.py` from `pkg.errors`."""
        for _ in range(_MAX_HOPS):
            if qualname in self.classes:
                return qualname
            module, _, name = qualname.rpartition(".")
            facts = self.modules.get(module)
            target = facts.imports.get("", {}).get(name) if facts else None
            if target is None and facts:
                target = self.starred(facts, name)
            if target is None and facts and facts.module_values:
                value = facts.module_values.get(name, "")  # `Alias = Original` at module level
                if value and not value.endswith("()"):
                    target = qualify(value, facts.imports.get("", {}), module, facts.local_defs)
            if not target or target == qualname:
                return qualname
            qualname = target
        return qualname

    def alternatives(self, qualname: str) -> list[str]:
        """`module.Name` followed as `canonical` does, or, when the module imports `Name` from
        different places in different branches (one per platform, say), each of them followed."""
        module, _, name = qualname.rpartition(".")
        facts = self.modules.get(module)
        targets = (facts.alternatives or {}).get(name) if facts else None
        return list(dict.fromkeys(self.canonical(t) for t in targets)) if targets else [self.canonical(qualname)]

    def starred(self, facts: ModuleFacts, name: str) -> str | None:
        """`name` as a `from .mod import *` of the module brings it (a public name `mod` binds)."""
        if name.startswith("_"):
            return None
        stars = self._stars.get(facts.module)
        if stars is None:  # asked for most names of the package: the imports are read once
            stars = self._stars[facts.module] = tuple(
                (module, source) for local, module in facts.imports.get("", {}).items()
                if local.startswith("*") and (source := self.modules.get(module)) is not None)
        for module, source in stars:
            if name in source.local_defs:
                return f"{module}.{name}"
        return None

    def bases(self, qualname: str) -> tuple[str, ...]:
        """Qualified base classes, nearest first, followed through the classes defined here."""
        if qualname not in self._bases:
            self._bases[qualname] = self._find_bases(qualname)
        return self._bases[qualname]

    def direct_bases(self, qualname: str) -> tuple[str, ...]:
        """The bases a class statement names, qualified, in the order written (a base outside the
        tree keeps its qualified or written name)."""
        entry = self.classes.get(self.canonical(qualname))
        if entry is None:
            return ()
        fact, module = entry
        lookup = module.imports.get("", {})
        found = []
        for written in fact.bases:
            resolved = qualify(written, lookup, module.module, module.local_defs)
            found.append(self.canonical(resolved) if resolved else written)
        return tuple(found)

    def _find_bases(self, qualname: str) -> tuple[str, ...]:
        found: list[str] = []
        queue = [self.canonical(qualname)]
        while queue:
            for resolved in self.direct_bases(queue.pop(0)):
                if resolved not in found and resolved != qualname:
                    found.append(resolved)
                    queue.append(resolved)
        return tuple(found)
