"""Module names and import resolution: the light scope tracking errscan uses instead of libcst's
QualifiedNameProvider (which costs more than the parse itself on a package of vLLM's size)."""

from __future__ import annotations

import builtins

BUILTIN_NAMES = frozenset(dir(builtins))


def module_name(path: str) -> str:
    """`vllm/a/b.py` -> `vllm.a.b`; `vllm/a/__init__.py` -> `vllm.a`."""
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_package(path: str) -> bool:
    return path.endswith("/__init__.py") or path == "__init__.py"


def resolve_relative(module: str, is_pkg: bool, level: int, target: str | None) -> str:
    """The absolute module of `from <level dots><target> import ...` written in `module`."""
    if level == 0:
        return target or ""
    parts = module.split(".") if module else []
    drop = level - 1 if is_pkg else level
    base = parts[: len(parts) - drop] if drop <= len(parts) else []
    if target:
        base = base + target.split(".")
    return ".".join(base)


def qualify(dotted: str, lookup: dict[str, str], module: str, local_defs: frozenset[str]) -> str | None:
    """Qualified name of a dotted reference, through the imports in `lookup` (local name -> target).

    Names defined in the module itself qualify as `module.Name`, builtins as `builtins.Name`;
    anything else (a parameter, an attribute of a local) has no qualified name.
    """
    head, _, rest = dotted.partition(".")
    if head in lookup:
        base = lookup[head]
    elif head in local_defs:
        base = f"{module}.{head}" if module else head
    elif head in BUILTIN_NAMES:
        base = f"builtins.{head}"
    else:
        return None
    return f"{base}.{rest}" if rest else base


class ScopeStack:
    """Names scopes like `__qualname__`: `Class.method`, `outer.<locals>.inner`; "" is the module."""

    def __init__(self) -> None:
        self._frames: list[tuple[str, bool]] = []  # (qualname, is a function)

    @property
    def current(self) -> str:
        return self._frames[-1][0] if self._frames else ""

    @property
    def at_module(self) -> bool:
        return not self._frames

    def child(self, name: str) -> str:
        if not self._frames:
            return name
        qualname, is_function = self._frames[-1]
        return f"{qualname}{'.<locals>.' if is_function else '.'}{name}"

    def push(self, name: str, is_function: bool) -> None:
        self._frames.append((self.child(name), is_function))

    def pop(self) -> None:
        self._frames.pop()
