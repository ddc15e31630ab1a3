"""The definitions of the walk (`collect.py`): functions, classes, imports, and what assignments
say about attributes (their types, defaults and the settings they read)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Container

from errscan.extract.astutil import (
    admits_none, binding_counts, bindings_of, bound_names, constant_text, dotted, last_name, rebound_parameters, strip_call, strip_optional,
)
from errscan.extract.conditions import Condition, free_names, unparse
from errscan.extract.facts import AttributeDefault, AttributeRead, AttributeType, CallFact, ClassFact, FieldFact, FunctionFact
from errscan.extract.fills import attribute_fills
from errscan.extract.holders import dotted_defaults, flat
from errscan.extract.names import resolve_relative
from errscan.extract.tables import class_constants, constant_names, table_of


@dataclass
class Frame:
    """Per-function state of the walk."""

    scope: str
    once: frozenset[str]  # locals assigned exactly once in the function
    bound: Container[str]  # every local and parameter of the function, but its nested defs
    params: dict[str, str]  # annotated parameters: name -> annotation
    aliases: dict[str, list[tuple[str | None, Condition]]]
    # A local or `self.x` that holds what a call of a dotted name (`IOEngine(...)`) gave it, on
    # the straight-line way from that assignment to here: the callee (`collect.block` keeps it).
    built: dict[str, str] = field(default_factory=dict)
    arguments: frozenset[str] = frozenset()  # every parameter's name


class DefinitionWalk:
    """The part of `collect.FactCollector` that reads definitions; it uses the collector's state."""

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.scopes.at_module:
            self.local_defs.add(node.name)
        self.expressions(node.decorator_list + list(node.args.defaults), ())
        self.scopes.push(node.name, True)
        scope = self.scopes.current
        arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        params = tuple((a.arg, dotted(strip_optional(a.annotation)) if a.annotation is not None else None) for a in arguments)
        returns = strip_optional(node.returns)  # `X | None` -> X
        klass = self.class_stack[-1] if self.class_stack and self.class_stack[-1] == scope.rsplit(".", 1)[0] else None
        counts = binding_counts(node)
        self.functions.append(
            FunctionFact(
                self.qualify_scope(scope), scope, node.lineno, params,
                tuple(d for d in (dotted(strip_call(x)) for x in node.decorator_list) if d),
                ast.get_docstring(node), self.qualify_scope(klass) if klass else None,
                dotted(returns), _class_of_type(returns), len(node.args.posonlyargs) + len(node.args.args),
                _constant_defaults(node.args), rebound_parameters(node, counts[0]),
                tuple(dotted_defaults(node.args).items()),
                tuple(a.arg for a in arguments if a.annotation is not None and admits_none(a.annotation)),
                node.returns is not None and admits_none(node.returns), _typed(node.args),
            )
        )
        if any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) for d in node.decorator_list):
            enclosing = scope.rsplit(".<locals>.", 1)[0] if ".<locals>." in scope else ""
            registered = CallFact(enclosing, node.name, node.lineno, (), (), (), "reference")
            if enclosing == self.frame.scope:
                self.calls.append(registered)
        self.body(node, scope, params, bindings_of(*counts))
        self.attribute_fills += attribute_fills([*node.decorator_list, *node.args.defaults, *filter(None, node.args.kw_defaults), *node.body])
        self.scopes.pop()

    def body(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: str, params: tuple, bound: tuple) -> None:
        """A function's body, in a frame of its own: its conditions start at the function's entry."""
        saved, saved_depth, saved_changes, saved_assigned = self.frame, (self.loop_depth, self.in_try), self.changes, self.assigned
        # A parameter whose default is a name (`layer_type=Block`) holds it unless the caller says otherwise.
        defaults = {p: [(d, ())] for p, d in dotted_defaults(node.args).items()}
        self.frame, self.loop_depth, self.in_try = Frame(scope, *bound, {p: a for p, a in params if a}, defaults,
                                                                 arguments=frozenset(p for p, _ in params)), 0, 0
        self.changes, self.assigned, saved_top, self.top_body = [], set(), (self.top_body, self.top_terms), node.body
        self.block(node.body, (), {}, ())
        self.frame, (self.loop_depth, self.in_try), self.changes, self.assigned = saved, saved_depth, saved_changes, saved_assigned
        self.top_body, self.top_terms = saved_top

    def klass(self, node: ast.ClassDef) -> None:
        if self.scopes.at_module:
            self.local_defs.add(node.name)
        self.expressions(node.bases + node.decorator_list, ())
        self.scopes.push(node.name, False)
        scope = self.scopes.current
        fields, methods = [], []
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                default = dotted(stmt.value) if stmt.value is not None else None
                annotation = dotted(strip_optional(stmt.annotation))
                literal = repr(stmt.value.value) if isinstance(stmt.value, ast.Constant) else None
                fields.append(FieldFact(stmt.target.id, annotation, default, literal, not _init_false(stmt.value)))
                if annotation:
                    self.attribute_types.append(AttributeType(scope, stmt.target.id, annotation))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.append(stmt.name)
        constants = class_constants(scope, node.body)
        if constants is not None:
            self.tables.append(constants)
        self.classes.append(
            ClassFact(
                self.qualify_scope(scope),
                tuple(d for d in (dotted(b) for b in node.bases) if d),
                node.lineno,
                tuple(d for d in (dotted(strip_call(x)) for x in node.decorator_list) if d),
                tuple(fields),
                tuple(methods),
                constant_names(node.body),
            )
        )
        self.class_stack.append(scope)
        saved = self.frame
        self.frame = Frame(scope, frozenset(), frozenset(), {}, {})
        self.block(node.body, (), {}, ())
        self.attribute_fills += attribute_fills([*node.decorator_list, *node.bases, *node.keywords]) + attribute_fills(node.body, True)
        self.frame = saved
        self.class_stack.pop()
        self.scopes.pop()

    def assignment(self, stmt: ast.Assign | ast.AnnAssign, terms: Condition) -> None:
        """Tables, module values and what `self.x` is given; `terms` hold where the statement runs."""
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value is not None:
            table = table_of(self.frame.scope, targets[0].id, stmt.value)
            if table is not None:
                self.tables.append(table)
        if self.scopes.at_module:
            for target in targets:
                self.local_defs.update(bound_names(target))
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value is not None:
                value = stmt.value.func if isinstance(stmt.value, ast.Call) else stmt.value
                name = dotted(value)
                if _is_none(value) and any(s == "" and local == targets[0].id for s, local, _ in self.imports):
                    self.module_values[targets[0].id] = "None"  # `except ImportError: X = None`: an optional import
                elif name:
                    suffix = "()" if isinstance(stmt.value, ast.Call) else ""
                    self.module_values[targets[0].id] = name + suffix
                    imported = next((t for s, local, t in self.imports if s == "" and local == name), None)
                    if imported is not None and not suffix:  # `X = _Real` in `try`, `X = _Mock` in `except`
                        self.bind_import(targets[0].id, imported)
        # `self.x = Foo(...)` / `self.x: Foo = ...` in a method types the attribute x (both written
        # down for `self.x: Base = Foo(...)`: the graph prefers the class constructed).
        klass = self.class_stack[-1] if self.class_stack else None
        if klass is None or stmt.value is None and not isinstance(stmt, ast.AnnAssign):
            return
        for target in targets:
            for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else ():
                if _self_attribute(element):  # `self.a, self.b = ...`: of no known type
                    self.attribute_types.append(AttributeType(klass, element.attr, "", False, self.frame.scope))
            if _self_attribute(target):
                typed = dotted(strip_optional(stmt.annotation)) if isinstance(stmt, ast.AnnAssign) else None
                if typed:
                    self.attribute_types.append(AttributeType(klass, target.attr, typed, False, self.frame.scope))
                if isinstance(stmt.value, ast.Call) and dotted(stmt.value.func):
                    for made, when in self.expand(dotted(stmt.value.func), terms):
                        # `cls = pick(); self.x = cls(...)` types x by each choice, under its condition
                        self.attribute_types.append(AttributeType(klass, target.attr, made or "", bool(made), self.frame.scope,
                                                                  condition=self.chosen_under(when)))
                elif stmt.value is not None and _is_none(stmt.value):  # no object: what dispatches on x is the rest
                    self.attribute_types.append(AttributeType(klass, target.attr, "None", False, self.frame.scope))
                elif not typed and isinstance(stmt.value, ast.Name) and stmt.value.id in self.frame.params:
                    typed = self.frame.params[stmt.value.id]
                    self.attribute_types.append(AttributeType(klass, target.attr, typed, False, self.frame.scope, True))
                elif stmt.value is not None:  # beside an annotation too: a value of no known class
                    self.attribute_types.append(AttributeType(klass, target.attr, "", False, self.frame.scope))
                read = _setting_read(stmt.value)
                if read:
                    self.attribute_reads.append(AttributeRead(klass, target.attr, read))
                elif isinstance(stmt.value, ast.Name):  # a parameter: what the callers pass (`analysis/passed.py`)
                    self.attribute_reads.append(AttributeRead(klass, target.attr, stmt.value.id, self.frame.scope))
        attributes = [t.attr for t in flat(targets) if _self_attribute(t)]
        for made in self.held(stmt.value) if attributes and stmt.value is not None else ():
            self.attribute_types.extend(AttributeType(klass, a, made, True, self.frame.scope, element=True) for a in attributes)

    def chosen_under(self, terms: Condition) -> Condition:
        """Of the terms a value is made under, those that chose it: not what holds at the statement
        of the method's own body it is part of (an earlier `assert`, a guard that returned), nor
        what a loop quantifies (it tells nothing of the one value the attribute keeps), nor one that
        reads a local its deep form could not replace (bound twice): it means nothing elsewhere."""
        chosen: list = []
        for term in terms:
            if term.loop:
                break
            local = any(n in self.frame.bound and n not in self.frame.arguments for n in free_names(term.deep))
            if term not in self.top_terms and term not in chosen and not local:
                chosen.append(term)
        return tuple(chosen)

    def default(self, stmt: ast.Assign | ast.AnnAssign, terms: Condition) -> None:
        """`self.x = ...` (or `self.a.x = ...`) under a test of that very attribute: an `AttributeDefault`."""
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            written = dotted(target) if isinstance(target, ast.Attribute) else None
            if written and written.startswith("self.") and written.count(".") <= 2:
                test = next((t.raw for t in terms if _mentions(t.raw, written)), None)
                if test is not None:
                    self.attribute_defaults.append(AttributeDefault(self.frame.scope, written[len("self."):], test))

    def import_(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bind_import(alias.asname, alias.name)
                else:
                    head = alias.name.split(".")[0]
                    self.bind_import(head, head)
            return
        base = resolve_relative(self.module, self.is_pkg, node.level, node.module)
        for alias in node.names:
            if alias.name != "*":
                self.bind_import(alias.asname or alias.name, f"{base}.{alias.name}" if base else alias.name)
            elif base:  # `from .mod import *`: recorded as `*<module>`, which no name can shadow
                self.imports.append((self.scopes.current, f"*{base}", base))

    def loaded(self, node: ast.Import | ast.ImportFrom) -> list[str]:
        """What an import statement may load: each module written and the packages above it, and
        for `from m import x`, `m.x` (a submodule, or a name of `m`)."""
        if isinstance(node, ast.Import):
            written = [alias.name for alias in node.names]
        else:
            base = resolve_relative(self.module, self.is_pkg, node.level, node.module)
            written = [base] + [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"] if base else []
        parts = [name.split(".") for name in written]
        return list(dict.fromkeys(".".join(p[:i]) for p in parts for i in range(1, len(p) + 1)))

    def bind_import(self, local: str, target: str) -> None:
        self.imports.append((self.scopes.current, local, target))
        if self.scopes.at_module:
            self.local_defs.add(local)


def _self_attribute(node: ast.expr) -> bool:
    """`self.x` (an assignment's target)."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _is_none(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is None


_CONVERSIONS = frozenset({"int", "float", "str", "bool"})


def _setting_read(value: ast.expr | None) -> str | None:
    """The code of a value that may read a setting: a dotted chain (`cfg.kv_transfer_config.kv_role`),
    a string key of one (`cfg.extra["key"]`) or a call with a string key first (`extra.get("key",
    True)`); None for anything else."""
    if isinstance(value, ast.Attribute):
        return dotted(value)
    if (  # `float(extra.get("timeout", 30))`: a conversion of what it reads
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _CONVERSIONS
        and len(value.args) == 1 and not value.keywords
    ):
        return _setting_read(value.args[0])
    if (
        isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant)
        and isinstance(value.slice.value, str) and dotted(value.value)
    ):
        return unparse(value)
    if (
        isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant)
        and isinstance(value.args[0].value, str) and dotted(value.func)
    ):
        return unparse(value)
    return None


def _mentions(code: str, name: str) -> bool:
    """Whether `code` reads the whole dotted name (`self.x` in `self.x is None`, not in `self.xs`)."""
    start = code.find(name)
    while start >= 0:
        end = start + len(name)
        before = code[start - 1] if start else " "
        after = code[end] if end < len(code) else " "
        if not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_"):
            return True
        start = code.find(name, end)
    return False


def _class_of_type(node: ast.expr | None) -> str | None:
    """`type[X]`, `typing.Type[X]`: X, dotted."""
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("type", "Type", "typing.Type"):
        return dotted(strip_optional(node.slice))
    return None


def _typed(args: ast.arguments) -> tuple[tuple[str, str], ...]:
    """(parameter, annotation) for each parameter without a default annotated with a plain dotted
    name (`KVCacheConfig`, `"KVCacheConfig"`): not `X | None`, nor `Optional[X]`."""
    positional = args.posonlyargs + args.args
    required = positional[: len(positional) - len(args.defaults)]
    required += [a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    found = []
    for arg in required:
        annotation = arg.annotation
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                continue
        name = dotted(annotation) if isinstance(annotation, (ast.Name, ast.Attribute)) else None
        if name:
            found.append((arg.arg, name))
    return tuple(found)


def _constant_defaults(args: ast.arguments) -> tuple[tuple[str, str], ...]:
    """(parameter, default) for each parameter whose default is a constant a chain can carry."""
    positional = args.posonlyargs + args.args
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults), *zip(args.kwonlyargs, args.kw_defaults)]
    found = ((a.arg, constant_text(d)) for a, d in pairs if d is not None)
    return tuple((name, text) for name, text in found if text is not None)


def _init_false(value: ast.expr | None) -> bool:
    """`field(..., init=False)` (`dataclasses.field`, pydantic's `Field`): a field the constructor does not take."""
    return isinstance(value, ast.Call) and last_name(value.func) in ("field", "Field") and any(
        k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False for k in value.keywords)
