"""The walk of one module's `ast` that gathers its facts (`facts.py`).

One walk per file gathers everything the whole-package analysis needs: it is fast enough for all
of vLLM, where libcst is kept for the catalogued files' concrete syntax.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Container

from errscan.extract.astutil import (
    always_exits, argument_text, binding_counts, constant_text, bindings, bindings_of, bound_names, dotted, rebound_parameters, rethrows,
    strip_call, strip_optional,
)
from errscan.extract.conditions import (
    Binding, Condition, Env, case_term, conjuncts, guarded_description, loop_term, make_term, negate, pseudo_term,
    unparse,
)
from errscan.extract.dataflow import assigned_by, changed_in_loop, effect_call, forget, mutated_by_call
from errscan.extract.facts import (
    AppendFact, AttributeDefault, AttributeRead, AttributeType, CallFact, ClassFact, FieldFact, FunctionFact, ModuleFacts,
    ReturnFact, StatementPosition, TableFact, TryFact,
)
from errscan.extract.handlers import try_fact
from errscan.extract.logcalls import GENERIC, LogCalls
from errscan.extract.names import ScopeStack, resolve_relative
from errscan.extract.tables import class_constants, table_of

# Nodes that hold no call, or whose calls belong to another scope.
_LEAVES = frozenset({
    ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.FunctionDef, ast.AsyncFunctionDef,
    ast.ClassDef, ast.Lambda, str, int, bool, type(None),
})
# Fields that never hold an expression: the walk for calls does not look into them.
_SCALAR_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level", "conversion",
    "is_async", "kind", "type_comment", "simple",
})
# Statements that bind or change locals at their own level (`dataflow.assigned_by`).
_BINDING = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Delete})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # node type -> its fields that may hold expressions


@dataclass
class _Frame:
    """Per-function state of the walk."""

    scope: str
    once: frozenset[str]  # locals assigned exactly once in the function
    bound: Container[str]  # every local and parameter of the function, but its nested defs
    params: dict[str, str]  # annotated parameters: name -> annotation
    aliases: dict[str, list[tuple[str | None, Condition]]]


class FactCollector:
    """One module's walk, statement by statement, each with the condition under which it runs.

    `statement` and `body` are where a subclass may step in (`reuse` replays what it remembers)."""

    def __init__(self, module: str, is_pkg: bool, logs: LogCalls = GENERIC):
        self.module = module
        self.is_pkg = is_pkg
        self.logs = logs
        self.scopes = ScopeStack()
        self.imports: list[tuple[str, str, str]] = []  # (scope, local, target), in the order bound
        self.local_defs: set[str] = set()
        self.classes: list[ClassFact] = []
        self.functions: list[FunctionFact] = []
        self.calls: list[CallFact] = []
        self.returns: list[ReturnFact] = []
        self.appends: list[AppendFact] = []
        self.attribute_types: list[AttributeType] = []
        self.attribute_reads: list[AttributeRead] = []
        self.attribute_defaults: list[AttributeDefault] = []
        self.local_values: dict[tuple[str, str], list[str]] = {}  # (function scope, local) -> what it was assigned
        self.statements: list[StatementPosition] = []
        self.tries: list[TryFact] = []
        self.module_values: dict[str, str] = {}
        self.tables: list[TableFact] = []
        self.frame = _Frame("", frozenset(), frozenset(), {}, {})
        self.class_stack: list[str] = []
        self.loop_depth = 0  # `for` bodies around the statement being read
        self.arguments: dict[ast.Call, str] = {}  # a call written as another call's argument -> `callee:key`
        self.reads_seen: set[tuple[str, str, Condition]] = set()
        self.changes: list[tuple[str, bool]] = []  # (local, rebound or else changed in place), in walk order
        self.assigned: set[str] = set()  # locals of the function assigned so far, once or more
        self.loops: dict[int, frozenset[str]] = {}  # id of a loop -> what its body changes (`dataflow`)

    def collect(self, tree: ast.Module, names: tuple[frozenset[str], frozenset[str]] | None = None) -> ModuleFacts:
        """The module's facts; `names` are its `bindings` when the caller has them already."""
        self.frame = _Frame("", *(names or bindings(tree)), {}, {})
        self.block(tree.body, (), {}, ())
        imports: dict[str, dict[str, str]] = {}
        for scope, local, target in self.imports:
            imports.setdefault(scope, {})[local] = target
        return ModuleFacts(
            module=self.module,
            is_package=self.is_pkg,
            imports=imports,
            local_defs=frozenset(self.local_defs),
            classes=tuple(self.classes),
            statements=tuple(sorted(self.statements, key=lambda s: (s.line, s.col))),
            functions=tuple(self.functions),
            calls=tuple(self.calls),
            returns=tuple(self.returns),
            appends=tuple(self.appends),
            attribute_types=tuple(self.attribute_types),
            attribute_reads=tuple(self.attribute_reads),
            attribute_defaults=tuple(self.attribute_defaults),
            module_values=self.module_values,
            tables=tuple(self.tables),
            tries=tuple(self.tries),
        )

    def qualify_scope(self, scope: str) -> str:
        return f"{self.module}.{scope}" if self.module and scope else (scope or self.module)

    # blocks and statements
    def block(self, body: list[ast.stmt], terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        env = dict(env)
        changes = self.changes
        for stmt in body:
            mark = len(changes)
            self.statement(stmt, terms, env, partial)
            kind = type(stmt)
            if kind is ast.Expr:
                call = effect_call(stmt)
                if call is not None:
                    changes.extend((k, False) for k in mutated_by_call(call, self.logs.level, True) if k in self.frame.bound or k[:5] == "self.")
            elif kind in _BINDING:
                bound, changed = assigned_by(stmt)
                once = self.frame.once  # a first and only assignment replaces nothing
                changes.extend([*((k, True) for k in bound if k not in once), *((k, False) for k in changed)])
            if len(changes) > mark:  # what the statement (re)bound or changed no longer reaches
                new = changes[mark:]
                rebound = [k for k, again in new if again]
                if env or terms:
                    terms = forget(env, terms, rebound, [k for k, again in new if not again], self.assigned.intersection(rebound))
                self.assigned.update(rebound)
            if isinstance(stmt, ast.If):
                body_exits, else_exits = always_exits(stmt.body), bool(stmt.orelse) and always_exits(stmt.orelse)
                if body_exits and not else_exits:
                    raised = isinstance(stmt.body[-1], ast.Raise)
                    terms = terms + tuple(replace(make_term(c, env), other_error=raised) for c in conjuncts(negate(stmt.test)))
                elif else_exits and not body_exits:
                    raised = isinstance(stmt.orelse[-1], ast.Raise)
                    terms = terms + tuple(replace(make_term(c, env), other_error=raised) for c in conjuncts(stmt.test))
            elif isinstance(stmt, ast.Assert):
                terms = terms + tuple(make_term(c, env) for c in conjuncts(stmt.test))
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                bound = dotted(targets[0]) if len(targets) == 1 else None
                # A local, or a `self.x` set once in this function, until a change.
                if bound in self.frame.once:
                    env[bound] = Binding(stmt.value, self.loop_depth > 0)

    def statement(self, stmt: ast.stmt, terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        """One statement reached when `terms` hold; `env` has the dominating assignments so far."""
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(stmt)
        elif isinstance(stmt, ast.ClassDef):
            self.klass(stmt)
        elif isinstance(stmt, ast.If):
            self.expressions([stmt.test], terms)
            test_terms = tuple(make_term(c, env) for c in conjuncts(stmt.test))
            self.block(stmt.body, terms + test_terms, env, partial)
            if stmt.orelse:
                negated = tuple(make_term(c, env) for c in conjuncts(negate(stmt.test)))
                self.block(stmt.orelse, terms + negated, env, partial)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.expressions([stmt.iter], terms)
            self.loop_depth += 1
            self.block(stmt.body, terms + (loop_term(stmt.target, stmt.iter, env),), self.loop_env(stmt, env), partial)
            self.loop_depth -= 1
            if stmt.orelse:
                self.block(stmt.orelse, terms, env, partial + (f"line {stmt.lineno}: for-else",))
        elif isinstance(stmt, ast.While):
            self.expressions([stmt.test], terms)
            looped = self.loop_env(stmt, env)
            self.block(stmt.body, terms + tuple(make_term(c, looped) for c in conjuncts(stmt.test)), looped, partial)
            if stmt.orelse:
                self.block(stmt.orelse, terms, env, partial + (f"line {stmt.lineno}: while-else",))
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            found = try_fact(stmt, self.frame.scope, self.logs)
            if found is not None:
                self.tries.append(found)
            self.block(stmt.body, terms, env, partial)
            guarded = guarded_description(stmt.body)
            for handler in stmt.handlers:
                caught = unparse(handler.type) if handler.type is not None else "Exception"
                self.block(handler.body, terms + (pseudo_term(f"raises({caught}, {guarded})"),), env, partial)
            self.block(stmt.orelse, terms, env, partial)
            self.block(stmt.finalbody, terms, env, partial)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            self.expressions([item.context_expr for item in stmt.items], terms)
            self.block(stmt.body, terms, env, partial)
        elif isinstance(stmt, ast.Match):
            self.expressions([stmt.subject], terms)
            subject = unparse(stmt.subject)
            for case in stmt.cases:
                term = case_term(subject, case.pattern, env)
                self.block(case.body, terms + (term,), env, partial + ((f"line {case.pattern.lineno}: case guard",) if case.guard else ()))
        else:
            self.simple(stmt, terms, env, partial)

    def simple(self, stmt: ast.stmt, terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        if isinstance(stmt, ast.Raise):
            kind = "raise" if stmt.exc is not None and not rethrows(stmt.exc) else "reraise"
            self.position(stmt, kind, terms, partial)
        elif isinstance(stmt, ast.Assert):  # it fails when its test does, on top of the path to it
            failing = tuple(make_term(c, env) for c in conjuncts(negate(stmt.test)))
            self.position(stmt, "assert" if stmt.msg is not None else "assert-nomsg", terms + failing, partial)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and stmt.value.args:
            if self.logs.level(dotted(stmt.value.func)):
                self.position(stmt, "log", terms, partial)
        elif isinstance(stmt, ast.Return):
            value = dotted(stmt.value) if stmt.value else None
            sources = self.local_values.get((self.frame.scope, value), []) if isinstance(stmt.value, ast.Name) else []
            deep = f"({', '.join(dict.fromkeys(sources))},)" if sources else None  # whichever assignment it holds
            self.returns.append(ReturnFact(self.frame.scope, value, stmt.lineno, terms, deep))
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.import_(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            self.assignment(stmt)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if not self.scopes.at_module and len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value is not None:
                self.local_values.setdefault((self.frame.scope, targets[0].id), []).append(ast.unparse(stmt.value))
            self.alias(stmt, terms)
            if terms and self.class_stack:
                self.default(stmt, terms)
        self.expressions([stmt], terms)

    def default(self, stmt: ast.Assign | ast.AnnAssign, terms: Condition) -> None:
        """`self.x = ...` (or `self.a.x = ...`) under a test of that very attribute: an `AttributeDefault`."""
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            written = dotted(target) if isinstance(target, ast.Attribute) else None
            if written and written.startswith("self.") and written.count(".") <= 2:
                test = next((t.raw for t in terms if _mentions(t.raw, written)), None)
                if test is not None:
                    self.attribute_defaults.append(AttributeDefault(self.frame.scope, written[len("self."):], test))

    def alias(self, stmt: ast.Assign | ast.AnnAssign, terms: Condition) -> None:
        """`cls = module.Impl`: remember what a later `cls(...)` may call, and when."""
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if self.scopes.at_module or len(targets) != 1 or not isinstance(targets[0], ast.Name) or stmt.value is None:
            return
        value = stmt.value
        if isinstance(value, (ast.Name, ast.Attribute)):
            choices = self.expand(dotted(value), terms)
        elif isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and dotted(value.func):
            choices = [(text + "()" if text else None, when) for text, when in self.expand(dotted(value.func), terms)]
        else:
            choices = [(None, terms)]
        self.frame.aliases.setdefault(targets[0].id, []).extend(choices)

    def expand(self, name: str | None, terms: Condition) -> list[tuple[str | None, Condition]]:
        """A dotted name whose head is itself a local alias, through each of that alias's bindings."""
        if name is None:
            return [(None, terms)]
        head, dot, rest = name.partition(".")
        known = self.frame.aliases.get(head)
        if not known:
            return [(name, terms)]
        return [(None if base is None else base + dot + rest, when + terms) for base, when in known]

    def position(self, stmt: ast.stmt, kind: str, terms: Condition, partial: tuple[str, ...]) -> None:
        end = stmt.end_lineno or stmt.lineno
        self.statements.append(StatementPosition(stmt.lineno, stmt.col_offset, end, kind, terms, partial))

    def expressions(self, nodes: list[ast.AST], terms: Condition) -> None:
        """Calls (and list appends) within these nodes, not descending into nested scopes."""
        stack: list = list(nodes)
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in _LEAVES:
                continue
            if kind is ast.Call:
                self.call(node, terms)
                root = node.func
                while type(root) is ast.Attribute:
                    root = root.value
                if type(root) is ast.Name:  # `f`, `a.b.f`, `self.a.f`: the call's own fact covers it
                    stack.extend(node.args)
                    stack.extend(node.keywords)
                    continue
            elif kind is ast.Attribute:
                # A dotted name holds no call: only its root may (`f().a.b`, `x[0].a`).
                root = node.value
                while type(root) is ast.Attribute:
                    root = root.value
                if type(root) is not ast.Name:
                    stack.append(root)
                elif root.id in ("self", "cls"):
                    read = node if type(node.ctx) is ast.Load else node.value  # `self.a.b = v` reads self.a
                    if type(read) is ast.Attribute:
                        self.read(_self_chain(read), node.lineno, terms)
                continue
            fields = _CHILD_FIELDS.get(kind)
            if fields is None:
                fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)
            for name in fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    stack.extend(value)
                else:
                    stack.append(value)

    def read(self, text: str, line: int, terms: Condition) -> None:
        """`self.a.b` read (not called): a property on the way calls its getter. Once per
        function, text and condition."""
        key = (self.frame.scope, text, terms)
        if key not in self.reads_seen:
            self.reads_seen.add(key)
            self.calls.append(CallFact(self.frame.scope, text, line, terms, (), (), "read"))

    def loop_env(self, loop: ast.For | ast.AsyncFor | ast.While, env: Env) -> Env:
        """`env` without the locals the loop body changes: the next iteration reads their new value."""
        if not env:
            return env
        changed = changed_in_loop(loop, self.loops, self.logs.level)
        return {k: v for k, v in env.items() if k not in changed} if not changed.isdisjoint(env) else env

    def call(self, node: ast.Call, terms: Condition) -> None:
        receiving = self.arguments.pop(node, None)
        if type(node.func) is ast.Attribute:
            self.changes.extend((k, False) for k in mutated_by_call(node, self.logs.level) if k in self.frame.bound or k[:5] == "self.")
        callee = _callee_text(node.func)
        arguments = tuple(argument_text(a) for a in node.args)
        keywords = tuple((k.arg or "**", argument_text(k.value)) for k in node.keywords)
        for key, argument in [*enumerate(node.args), *((k.arg, k.value) for k in node.keywords)]:
            if callee and type(argument) is ast.Call:
                self.arguments[argument] = f"{callee}:{key}"
            passed = dotted(argument) if isinstance(argument, (ast.Name, ast.Attribute)) else None
            head = passed.split(".")[0] if passed else None
            # A local's value is data (a function passed on is `self.run`, a module's name or an
            # import); `self`/`cls` are the exception, as their methods are what gets passed.
            aliased = any(text for text, _ in self.frame.aliases.get(head, ()))  # `cb = self.run`
            if passed and (head not in self.frame.bound or aliased or (head in ("self", "cls") and "." in passed)):
                through = tuple(self.expand(passed, ())) if aliased else ()
                to = f"{callee}:{key}" if callee else None
                self.calls.append(CallFact(
                    self.frame.scope, passed, node.lineno, terms, (), through, "reference", to, (), arguments, keywords))
        if callee is None:
            return
        literal = tuple(a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args)
        aliases = tuple(self.expand(callee, ())) if callee.split(".")[0] in self.frame.aliases else ()
        strings = tuple(
            (k.arg, k.value.value) for k in node.keywords if k.arg and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
        )
        self.calls.append(CallFact(
            self.frame.scope, callee, node.lineno, terms, literal, aliases, "call", receiving, strings, arguments, keywords))
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "append" and isinstance(func.value, ast.Name) and len(node.args) == 1:
            source = unparse(node.args[0])
            self.appends.append(AppendFact(self.frame.scope, func.value.id, source, node.lineno, terms))

    # definitions
    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.scopes.at_module:
            self.local_defs.add(node.name)
        self.expressions(node.decorator_list + list(node.args.defaults), ())
        self.scopes.push(node.name, True)
        scope = self.scopes.current
        params = tuple(
            (a.arg, dotted(strip_optional(a.annotation)) if a.annotation is not None else None)
            for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        )
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
            )
        )
        if any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) for d in node.decorator_list):
            enclosing = scope.rsplit(".<locals>.", 1)[0] if ".<locals>." in scope else ""
            registered = CallFact(enclosing, node.name, node.lineno, (), (), (), "reference")
            if enclosing == self.frame.scope:
                self.calls.append(registered)
        self.body(node, scope, params, bindings_of(*counts))
        self.scopes.pop()

    def body(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: str, params: tuple, bound: tuple) -> None:
        """A function's body, in a frame of its own: its conditions start at the function's entry."""
        saved, saved_depth, saved_changes, saved_assigned = self.frame, self.loop_depth, self.changes, self.assigned
        self.frame, self.loop_depth = _Frame(scope, *bound, {p: a for p, a in params if a}, {}), 0
        self.changes, self.assigned = [], set()
        self.block(node.body, (), {}, ())
        self.frame, self.loop_depth, self.changes, self.assigned = saved, saved_depth, saved_changes, saved_assigned

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
                fields.append(FieldFact(stmt.target.id, annotation, default, literal))
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
            )
        )
        self.class_stack.append(scope)
        saved = self.frame
        self.frame = _Frame(scope, frozenset(), frozenset(), {}, {})
        self.block(node.body, (), {}, ())
        self.frame = saved
        self.class_stack.pop()
        self.scopes.pop()

    def assignment(self, stmt: ast.Assign | ast.AnnAssign) -> None:
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
        # `self.x = Foo(...)` / `self.x: Foo = ...` in a method types the attribute x.
        klass = self.class_stack[-1] if self.class_stack else None
        if klass is None or stmt.value is None and not isinstance(stmt, ast.AnnAssign):
            return
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                typed = dotted(strip_optional(stmt.annotation)) if isinstance(stmt, ast.AnnAssign) else None
                if typed:
                    self.attribute_types.append(AttributeType(klass, target.attr, typed, False, self.frame.scope))
                elif isinstance(stmt.value, ast.Call) and dotted(stmt.value.func):
                    for made, _ in self.expand(dotted(stmt.value.func), ()):
                        if made:  # `cls = pick(); self.x = cls(...)` types x by each choice
                            self.attribute_types.append(AttributeType(klass, target.attr, made, True, self.frame.scope))
                elif isinstance(stmt.value, ast.Name) and stmt.value.id in self.frame.params:
                    typed = self.frame.params[stmt.value.id]
                    self.attribute_types.append(AttributeType(klass, target.attr, typed, False, self.frame.scope))
                read = _setting_read(stmt.value)
                if read:
                    self.attribute_reads.append(AttributeRead(klass, target.attr, read))

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

    def bind_import(self, local: str, target: str) -> None:
        self.imports.append((self.scopes.current, local, target))
        if self.scopes.at_module:
            self.local_defs.add(local)


def _is_none(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is None


def _setting_read(value: ast.expr | None) -> str | None:
    """The code of a value that may read a setting: a dotted chain (`cfg.kv_transfer_config.kv_role`)
    or a call with a string key first (`extra.get("key", True)`); None for anything else."""
    if isinstance(value, ast.Attribute):
        return dotted(value)
    if (
        isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant)
        and isinstance(value.args[0].value, str) and dotted(value.func)
    ):
        return unparse(value)
    return None


def _callee_text(func: ast.expr) -> str | None:
    """`f`, `a.b.f`, `super().f`, and `get().f` (a method of what a call returns)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        inner = dotted(func.value.func)
        if inner == "super" and not func.value.args:
            return f"super().{func.attr}"
        return f"{inner}().{func.attr}" if inner else None
    return dotted(func)


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


def _self_chain(node: ast.Attribute) -> str | None:
    """`self.a.b` (or `cls.a.b`) as text: plain attributes of `self`/`cls`; None for anything else."""
    names = []
    while type(node) is ast.Attribute:
        names.append(node.attr)
        node = node.value
    if type(node) is ast.Name and node.id in ("self", "cls"):
        return ".".join([node.id, *reversed(names)])
    return None


def _class_of_type(node: ast.expr | None) -> str | None:
    """`type[X]`, `typing.Type[X]`: X, dotted."""
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("type", "Type", "typing.Type"):
        return dotted(strip_optional(node.slice))
    return None


def collect_facts(tree: ast.Module, module: str, is_pkg: bool, logs: LogCalls = GENERIC) -> ModuleFacts:
    return FactCollector(module, is_pkg, logs).collect(tree)


def _constant_defaults(args: ast.arguments) -> tuple[tuple[str, str], ...]:
    """(parameter, default) for each parameter whose default is a constant a chain can carry."""
    positional = args.posonlyargs + args.args
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults), *zip(args.kwonlyargs, args.kw_defaults)]
    found = ((a.arg, constant_text(d)) for a, d in pairs if d is not None)
    return tuple((name, text) for name, text in found if text is not None)
