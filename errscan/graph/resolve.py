"""From a call as written (`self.a.m`, `mod.f`, `make().run`) to the functions it may run.

A call is resolved only when the code says where it goes: through imports, `self`/`cls` and the
class hierarchy, `super()`, a constructor, a local alias, an attribute, parameter or return value
whose type is written down, or a class a function returns.
"""

from __future__ import annotations

from collections import defaultdict

from errscan.extract.conditions import Condition, Term, free_names
from errscan.extract.facts import AttributeType, CallFact, ModuleFacts
from errscan.extract.names import qualify
from errscan.graph.held import Held
from errscan.graph.hierarchy import ClassHierarchy
from errscan.graph.index import PackageIndex, function_node
from errscan.graph.made import makings


class Resolver(ClassHierarchy):
    """Resolution of the calls of the package's modules; `external` counts calls that leave it."""

    def __init__(self, index: PackageIndex):
        super().__init__(index)
        self._visible: dict[tuple[str, str], dict[str, str]] = {}
        self._qualified: dict[tuple[str, str, str], str | None] = {}  # see `qualify`
        self._results: dict[tuple[str, str, str], tuple[str, tuple[str, ...]]] = {}  # see `_result_of`
        self._returned: dict[str, list[tuple[str, ModuleFacts]]] = defaultdict(list)  # function -> returned names
        for module in index.modules.values():
            for ret in module.returns:
                if ret.value is not None:
                    self._returned[function_node(module.module, ret.scope)].append((ret.value, module))
        self.external = 0
        self.made = makings(self)
        self.held = Held(self)  # what untyped attributes hold and unannotated functions give
        self.attribute_made: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)  # see `_attribute_types`
        # class -> attribute -> a class of what it holds -> the condition each value of that class was
        # chosen under (`AttributeType.condition`; () for one given unconditionally, or declared;
        # "" for a value that may be of any class of the package, a built object from outside aside)
        self.attribute_chosen: dict[str, dict[str, dict[str, list[Condition]]]] = defaultdict(lambda: defaultdict(dict))
        self.attribute_types = self._attribute_types()
        # attributes some code sets on an object other than its own (`worker.engine = ...`)
        self._set_from_outside = frozenset(s.attribute for m in index.modules.values() for s in m.attribute_stores
                                           if s.receiver not in ("self", "cls"))
        self.held.gather_elements()

    def _attribute_types(self) -> dict[str, dict[str, str]]:
        """class -> attribute -> the class of what it holds: the first type written for it, but the
        class constructed for it (`self.x = Fast()`) over a looser annotation (`x: Base`), when
        every value given to it is that class's. Also `attribute_made`: the very classes of what it
        holds, when each value given to it is built by a known class (`self.x = make(mode=1)`,
        `make` returning `A(...)` or `B(...)` under that argument: `held.made_under`)."""
        types: dict[str, dict[str, str]] = defaultdict(dict)
        made: dict[tuple[str, str], set[str]] = defaultdict(set)
        # (class, attribute) -> the classes constructed for it, and those its annotations name
        built: dict[tuple[str, str], set[str]] = defaultdict(set)
        declared: dict[tuple[str, str], set[str]] = defaultdict(set)
        other: set[tuple[str, str]] = set()  # given a value of some other or of no known class too
        for module in self.index.modules.values():
            for attr in module.attribute_types:
                if attr.element or attr.type == "None":
                    continue  # what a container holds: `held.py`; None has no methods to call
                key = (function_node(module.module, attr.class_scope), attr.attribute)
                resolved = self.qualify(module, attr.scope or attr.class_scope, attr.type) if attr.type else None
                if resolved is None and attr.from_call and attr.type.count(".") == 1 and attr.type.startswith("self."):
                    resolved = self.lookup_method(key[0], attr.type[5:])  # `self.model = self._init_model()`
                written = resolved
                constructed = attr.from_call and resolved in self.index.classes
                exact = () if attr.given or not attr.from_call else (resolved,) if constructed else self._made_by(module, attr, resolved)
                made[key].update(exact or ("",))  # "": a value of no known class
                if constructed:
                    built[key].add(resolved)  # type: ignore[arg-type]
                elif attr.from_call:
                    resolved = self.returned_class(resolved)
                value = attr.from_call or attr.given or not attr.type  # an annotation alone gives it none
                if resolved not in self.index.classes:
                    other.add(key)
                    if value and not (attr.from_call and written and written.split(".")[0] not in self.index.top_packages):
                        self.attribute_chosen[key[0]][attr.attribute][""] = [()]  # a value that may be of any class
                    continue
                for klass in dict.fromkeys((resolved, *exact)) if value else ():
                    if klass:
                        self.attribute_chosen[key[0]][attr.attribute].setdefault(klass, []).append(attr.condition)
                types[key[0]].setdefault(attr.attribute, resolved)  # type: ignore[arg-type]
                if attr.given or attr.from_call and not constructed:
                    other.add(key)
                elif not attr.from_call:
                    declared[key].add(resolved)  # type: ignore[arg-type]
        for key, classes in built.items():
            only = next(iter(classes)) if len(classes) == 1 and key not in other else None
            if only and all(base in self.mro(only) for base in declared[key]):
                types[key[0]][key[1]] = only
        for (owner, attribute), classes in made.items():
            # a subclass setting it too holds other values on its objects
            if "" not in classes and not any((sub, attribute) in made for sub in self.subclasses.get(owner, ())):
                self.attribute_made[owner][attribute] = tuple(sorted(classes))
        return types

    def chosen(self, module: ModuleFacts, scope: str, callee: str, target: str) -> Condition:
        """What must have held for a call `self.a.m()` (`callee`, or `self.a.b.m`) to run `target`:
        the condition under which `a` was given an object of a class dispatching `m` there (the
        method that gave it, `attribute_chosen`), in the form that reads settings rather than that
        method's locals. () when some value of such a class came unconditionally or under another
        condition (what two methods test is no one reader's condition), or a value of a class not
        known (its class, a base or a subclass may give it one), or set from outside the object. A term that
        reads `self` is kept only where that is the caller's `self` too (`self.a.m()`), and none
        that reads a name of the caller's parameters, which it would be read as."""
        head, _, rest = callee.partition(".")
        *attributes, method = rest.split(".")
        klass = self._instance_class(module, scope, head) if attributes and head in ("self", "cls") and "[]" not in rest else None
        owner = self._through(klass, attributes[:-1])[0] if klass else None
        # what the object's class, its bases and its subclasses give the attribute (each may be the object's)
        related = [*self.mro(owner), *self.subclasses.get(owner, ())] if owner and attributes[-1] not in self._set_from_outside else []
        chosen = [item for o in related for item in self.attribute_chosen.get(o, {}).get(attributes[-1], {}).items()]
        if not chosen or any(k == "" for k, _ in chosen):
            return ()
        found = [c for k, conditions in chosen
                 if target in (self.dispatch(k, method)[0], *self.dispatch(k, method)[1]) for c in conditions]
        if not found or () in found or len(set(found)) > 1:
            return ()
        fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
        foreign = {name for name, _ in fact.params} - {head} if fact else set()
        if len(attributes) > 1:
            foreign.add("self")
        return tuple(Term(t.deep, t.deep, t.deep, pseudo=t.pseudo) for t in found[0] if foreign.isdisjoint(free_names(t.deep)))

    def _made_by(self, module: ModuleFacts, attr: AttributeType, function: str | None) -> tuple[str, ...]:
        """The classes the calls `attr.type(...)` where `attr` is set get from `function`, under
        their keyword arguments; () when one of them may give something else."""
        if function not in self.held.returns:
            return ()
        calls = [c for c in module.calls if c.kind == "call" and c.caller == attr.scope and c.callee == attr.type]
        found = [self.held.made_under(function, dict(c.keywords)) for c in calls]  # type: ignore[arg-type]
        return () if not found or () in found else tuple(dict.fromkeys(k for f in found for k in f))

    def returned_class(self, function: str | None) -> str | None:
        """The class a function's return annotation names, when it is a class of the tree."""
        entry = self.functions.get(function) if function else None
        if entry is None:
            owner, _, method = (function or "").rpartition(".")
            found = self.lookup_method(owner, method) if owner in self.index.classes else None
            entry = self.functions.get(found) if found else None
        if entry is None:
            return None
        if not entry[0].returns:
            return self.held.made_class(entry[0].qualname)
        fact, module = entry
        klass = self.qualify(module, fact.scope, entry[0].returns)
        return klass if klass in self.index.classes else None

    def visible(self, module: ModuleFacts, scope: str) -> dict[str, str]:
        """The imports visible in a scope, built once per scope (many calls share one)."""
        key = (module.module, scope)
        if key not in self._visible:
            self._visible[key] = module.lookup(scope)
        return self._visible[key]

    def qualify(self, module: ModuleFacts, scope: str, dotted: str) -> str | None:
        key = (module.module, scope, dotted)
        if key not in self._qualified:  # the graph and the analysis ask for the same names again and again
            self._qualified[key] = self._qualify(module, scope, dotted)
        return self._qualified[key]

    def _qualify(self, module: ModuleFacts, scope: str, dotted: str) -> str | None:
        found = qualify(dotted, self.visible(module, scope), module.module, module.local_defs)
        if found is None:  # a name only a `from .mod import *` binds
            head, dot, rest = dotted.partition(".")
            starred = self.index.starred(module, head)
            found = f"{starred}{dot}{rest}" if starred else None
        return self.index.canonical(found) if found else None

    def resolve(self, module: ModuleFacts, call: CallFact) -> list[tuple[str, str]] | None:
        """(callee, how) pairs; [] for a call leaving the package; None when it cannot be told."""
        return self.resolve_callee(module, call.caller, call.callee, None)

    def _instance_class(self, module: ModuleFacts, scope: str, name: str) -> str | None:
        """The class `self`/`cls` stands for in `scope`, also inside functions nested in a method."""
        while True:
            fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
            if fact is None:
                return None
            if fact.class_qualname:
                return fact.class_qualname if fact.params and fact.params[0][0] == name else None
            if name in dict(fact.params) or ".<locals>." not in scope:
                return None
            scope = scope.rsplit(".<locals>.", 1)[0]

    def resolve_callee(self, module: ModuleFacts, scope: str, callee: str, how: str | None) -> list[tuple[str, str]] | None:
        fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
        head, _, rest = callee.partition(".")
        if callee.startswith("super()."):
            klass = self._instance_class(module, scope, fact.params[0][0]) if fact and fact.params else None
            method = callee.split(".", 1)[1]
            found = self.lookup_method(klass, method, after=klass) if klass else None
            if found is None and klass and method == "start":
                return self._thread_run(klass)
            return [(found, "super")] if found else None
        if "()." in callee or callee.endswith("()"):
            made, _, rest = callee.rpartition("().") if "()." in callee else (callee[:-2], "", "")
            return self._on_result(module, scope, made, rest, how)
        instance = self._instance_class(module, scope, head) if head in ("self", "cls") else None
        if instance:
            return self._on_instance(instance, rest, how or head)
        nested = function_node(module.module, f"{scope}.<locals>.{callee}" if scope else callee)
        if not rest and scope and nested in self.functions:
            return [(nested, how or "local")]
        if fact and rest and "." not in rest:
            annotated = dict(fact.params).get(head)
            if annotated:
                klass = self.qualify(module, scope, annotated)
                if klass in self.index.classes:
                    return self._method_with_overrides(klass, rest, how or "annotation")
        how = how or ("import" if head in self.visible(module, scope) else "module")
        return self.resolve_text(module, scope, callee, how)

    def _on_result(self, module: ModuleFacts, scope: str, made: str, rest: str, how: str | None) -> list[tuple[str, str]] | None:
        """`made().rest`, and `made()()` when `rest` is empty: on what the call `made()` returns,
        an instance of a known class, or a class itself (`-> type[X]`, `return SomeClass`)."""
        key = (module.module, scope, made)
        gives = self._results.get(key)
        if gives is None:
            gives = self._results[key] = self._result_of(module, scope, made)
        kind, classes = gives
        if kind == "external":
            self.external += 1  # a method of what an outside function returns
            return []
        if kind == "instance":
            return self._on_instance(classes[0], rest, how or "return-type") if rest else self._call_instance(classes[0], how or "return-type")
        if kind != "classes" or "." in rest:
            return None
        # A class of which no object (or, for `rest`, no class object) is made is none of them.
        kept = [k for k in classes if (self.flows(k) if rest else self.exists(k))] or classes
        targets = dict.fromkeys(self._on_classes(kept, rest))
        self.calls_narrowed += len(kept) < len(classes) and not set(self._on_classes(classes, rest)) <= set(targets)
        return [(t, "returned-class") for t in targets] or None

    def _on_classes(self, classes: list[str], rest: str) -> list[str]:
        """`cls.rest()` (`rest` a class method) or `cls()` (a constructor) on each of `classes`."""
        if rest:
            return [t for klass in classes if (t := self.lookup_method(klass, rest))]
        return [t for klass in classes for t, _ in self._construct(klass)]

    def _result_of(self, module: ModuleFacts, scope: str, made: str) -> tuple[str, tuple[str, ...]]:
        """What the call `made()` gives: `("instance", (C,))`, `("classes", (C1, ...))` (class
        objects), `("external", ())` (something from outside the tree), or `("", ())`."""
        qualified = self.qualify(module, scope, made)
        if qualified in self.index.classes:
            return "instance", (qualified,)
        if qualified is not None and qualified.split(".")[0] not in self.index.top_packages:
            return "external", ()
        head, dot, _ = made.partition(".")
        if qualified is None and dot and head not in ("self", "cls") and not head.endswith(")"):
            fact = self.functions.get(function_node(module.module, scope), (None, None))[0]
            if fact is None or not dict(fact.params).get(head):
                return "", ()  # a method of a local value of unknown type
        found = [t for t, _ in self.resolve_callee(module, scope, made, None) or () if t in self.functions]
        classes = self.returned_classes(found[0]) if found else []
        if classes:
            return "classes", tuple(classes)
        klass = self.returned_class(found[0]) if found else None
        return ("instance", (klass,)) if klass else ("", ())

    def returned_classes(self, function: str) -> list[str]:
        """The classes (class objects, not instances) a function returns: X and its subclasses for
        `-> type[X]`, else the classes its `return` statements name."""
        fact, module = self.functions[function]
        if fact.returns_class:
            klass = self.qualify(module, fact.scope, fact.returns_class)
            return [klass, *sorted(self.subclasses.get(klass, ()))] if klass in self.index.classes else []
        found = (self.qualify(facts, fact.scope, value) for value, facts in self._returned.get(function, ()))
        return list(dict.fromkeys(k for k in found if k in self.index.classes))

    def resolve_text(self, module: ModuleFacts, scope: str, dotted: str, how: str) -> list[tuple[str, str]] | None:
        head, dot, rest = dotted.partition(".")
        bound = (module.alternatives or {}).get(head)
        if bound and self.visible(module, scope).get(head) == module.imports.get("", {}).get(head):
            # a module name bound to different imports in different branches (`try`/`except`, one per
            # platform): whichever the branch taken gives
            found = [pair for target in bound for pair in self._on_name(self.index.canonical(target + dot + rest), how) or []]
            return list(dict.fromkeys(found)) or None
        target = self.qualify(module, scope, dotted)
        return self._on_name(target, how) if target else None

    def _on_instance(self, klass: str, rest: str, how: str) -> list[tuple[str, str]] | None:
        """`self.m`, `self.a.b.m`: through the attributes' known types to the method; `self.a[]`
        (an element of `self.a`) and `self.a[i](...)`, written `self.a(...)`, through `held.py`."""
        if not rest:
            return self._construct(klass) if how == "cls" else None
        if "[]" in rest:
            container, _, after = rest.partition("[]")
            *attributes, last = container.split(".")
            reached, _, getters = self._through(klass, attributes)
            return getters + (self.held.reach(reached, last, after[1:]) or []) or None if reached else getters or None
        *attributes, method = rest.split(".")
        reached, typed, getters = self._through(klass, attributes)
        if reached is None:
            if attributes and not getters:  # `self.a.layers[i].m()` is written `self.a.layers.m()`
                held, _, _ = self._through(klass, attributes[:-1])
                return self.held.reach(held, attributes[-1], method) if held else None
            return getters or None
        found = self._on_made(klass, attributes, method, typed or how) or self._method_with_overrides(reached, method, typed or how)
        if found is None and self.lookup_method(reached, method) is None:  # `self.layer(x)`: an attribute called
            held, held_how, more = self._through(reached, [method])
            found = more + (self._call_instance(held, held_how) or []) if held else self.held.reach(reached, method, "")
        return getters + (found or []) or None

    def _on_made(self, klass: str, attributes: list[str], method: str, how: str) -> list[tuple[str, str]] | None:
        """`.a.b.m()` on an object of `klass` where `b` holds objects of known classes only
        (`attribute_made`): the method each of them resolves to, not every override of its type."""
        owner = self._through(klass, attributes[:-1])[0] if attributes else None
        holder = next((o for o in self.mro(owner) if attributes[-1] in self.attribute_types.get(o, {})), None) if owner else None
        classes = self.attribute_made.get(holder, {}).get(attributes[-1], ()) if holder else ()
        found = [t for c in classes if (t := self.lookup_method(c, method))]
        return [(t, how) for t in dict.fromkeys(found)] if found and len(found) == len(classes) else None

    def _through(self, klass: str, attributes: list[str]) -> tuple[str | None, str, list[tuple[str, str]]]:
        """`.a.b` read on an object of `klass`: the class reached (None when not known), how the last
        type was known (`attribute`, `return-type`, "" for none read), and the property getters
        run on the way (a property's type is what its getter's return annotation names)."""
        getters: list[tuple[str, str]] = []
        how = ""
        for attribute in attributes:
            typed = next((self.attribute_types[o][attribute] for o in self.mro(klass)
                          if attribute in self.attribute_types.get(o, {})), None)
            how = "attribute"
            if typed is None:
                found = self.getters(klass, attribute)
                getters += [(g, "property") for g in found]
                typed = self.returned_class(found[0]) if found else None
                how = "return-type"
            if typed is None:
                return None, how, getters
            klass = typed
        return klass, how, getters

    def _on_name(self, target: str, how: str) -> list[tuple[str, str]] | None:
        if target in self.functions:
            return [(target, how)]
        if target in self.index.classes:
            return self._construct(target)
        owner, _, method = target.rpartition(".")
        if owner in self.index.classes:  # Class.method, e.g. a classmethod or a static call
            found = self.lookup_method(owner, method)
            return [(found, how)] if found else None
        made = self._module_instance(owner)
        if made is not None:  # `REGISTRY.get(...)`, `REGISTRY = Registry()` at a module's top level
            return self._method_with_overrides(made, method, "module-instance")
        if target.split(".")[0] in self.index.top_packages:
            return None  # in the package, but not a function errscan knows (a module attribute...)
        self.external += 1
        return []

    def _module_instance(self, dotted: str) -> str | None:
        """The class of a module-level `NAME = Class(...)`, named `module.NAME`."""
        module, _, name = dotted.rpartition(".")
        facts = self.index.modules.get(module)
        made = (facts.module_values or {}).get(name, "") if facts else ""
        klass = self.qualify(facts, "", made[:-2]) if made.endswith("()") else None
        return klass if klass in self.index.classes else None
