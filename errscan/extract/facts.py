"""Definitions, imports, calls and path conditions of one module, from the stdlib `ast`.

One walk per file gathers everything the whole-package analysis needs: it is fast enough for all
of vLLM, where libcst is kept for the catalogued files' concrete syntax. Scopes are named like
Python's `__qualname__` (`Class.method`, `outer.<locals>.inner`, `""` for the module), and every
call, return, `append` and raise/assert statement carries its path condition within its function.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable

from errscan.extract.conditions import (
    Binding, Condition, Env, Term, conjuncts, loop_term, make_term, negate, pseudo_term, unparse,
)
from errscan.extract.names import ScopeStack, resolve_relative

_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
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
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # node type -> its fields that may hold expressions


@dataclass(frozen=True)
class FieldFact:
    name: str
    annotation: str | None  # dotted, outer generic stripped: `list[X]` -> `list`
    default: str | None  # the default's source when it is a dotted name (`ParallelConfig.x`)


@dataclass(frozen=True)
class ClassFact:
    qualname: str  # fully qualified: module.Class
    bases: tuple[str, ...]  # as written, dotted ("Base", "errors.KVError")
    line: int
    decorators: tuple[str, ...] = ()
    fields: tuple[FieldFact, ...] = ()  # annotated class-level names (dataclass fields)
    methods: tuple[str, ...] = ()  # names of the functions defined in the class body


@dataclass(frozen=True)
class FunctionFact:
    qualname: str  # fully qualified: module.Class.method
    scope: str  # the module-relative scope: Class.method
    line: int
    params: tuple[tuple[str, str | None], ...]  # (name, annotation dotted)
    decorators: tuple[str, ...]
    docstring: str | None
    class_qualname: str | None  # the class it is a method of
    returns: str | None = None  # return annotation, dotted, `X | None` stripped to X
    returns_class: str | None = None  # `-> type[X]`: X, the class (or a subclass of it) returned itself


@dataclass(frozen=True)
class CallFact:
    caller: str  # module-relative scope of the calling function ("" for module level)
    callee: str  # the called expression as dotted text: "f", "self.m", "super().m", "mod.C"
    line: int
    condition: Condition
    literal_args: tuple[str | None, ...]  # string-literal positional arguments, None for others
    # The callee's head is a local bound to names: the callee through each binding, and when it
    # was made (None where a binding is not a plain name, such as a call's result).
    aliases: tuple[tuple[str | None, Condition], ...] = ()
    # "call": a call; "reference": a function passed as a value (`Thread(target=self.run)`) or
    # registered by a decorator call (`@app.post("/x")`), which the receiver calls later; "read":
    # `self.a.b` read, which calls a property's getter.
    kind: str = "call"
    # The call this value (or this call's result) is an argument of, as `callee:position` or
    # `callee:keyword`: `threading.Thread:target`, `loop.run_in_executor:1`, `asyncio.create_task:0`.
    passed_to: str | None = None


@dataclass(frozen=True)
class ReturnFact:
    scope: str
    value: str | None  # dotted text of the returned value, if it is a name
    line: int
    condition: Condition


@dataclass(frozen=True)
class AppendFact:
    scope: str
    target: str  # the list's local name
    argument: str  # the appended expression's source
    line: int
    condition: Condition


@dataclass(frozen=True)
class AttributeType:
    class_scope: str  # module-relative class scope
    attribute: str
    type: str  # dotted, as written
    from_call: bool = False  # `type` is a called function's name: the attribute holds what it returns
    scope: str = ""  # where it is written (its imports name the type); the class body if ""


@dataclass(frozen=True)
class AttributeRead:
    """`self.x = cfg.a.b` or `self.x = d.get("key", default)` in a method: where the attribute's
    value comes from, so that a guard on `self.x` elsewhere can name the setting behind it."""

    class_scope: str  # module-relative class scope
    attribute: str
    source: str  # the value's code


@dataclass(frozen=True)
class AttributeDefault:
    """`self.x = ...` in a method under a test of `self.x` itself (`if self.x is None: self.x =
    str(uuid4())`): the code gives the attribute a value of its own when it has none."""

    scope: str  # module-relative scope of the method
    attribute: str
    test: str  # the term that tests it, as written: "self.engine_id is None"


SITE_KINDS = frozenset({"raise", "assert"})  # the statement kinds that are catalogued


@dataclass(frozen=True)
class StatementPosition:
    """A `raise` or `assert` statement; `kind` tells which and whether it is a site."""

    line: int
    col: int
    end_line: int
    kind: str  # "raise" | "reraise" | "assert" | "assert-nomsg"
    condition: Condition = ()
    partial: tuple[str, ...] = ()  # steps on the way that were not understood


@dataclass(frozen=True)
class ModuleFacts:
    module: str
    is_package: bool
    imports: dict[str, dict[str, str]]  # scope -> local name -> imported dotted target
    local_defs: frozenset[str]  # module-level names bound by def, class, assignment or import
    classes: tuple[ClassFact, ...]
    statements: tuple[StatementPosition, ...]  # every raise/assert, in source order
    functions: tuple[FunctionFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    returns: tuple[ReturnFact, ...] = ()
    appends: tuple[AppendFact, ...] = ()
    attribute_types: tuple[AttributeType, ...] = ()
    attribute_reads: tuple[AttributeRead, ...] = ()
    attribute_defaults: tuple[AttributeDefault, ...] = ()
    module_values: dict[str, str] | None = None  # module-level `X = call()` / `X = Y`: X -> source

    def lookup(self, scope: str) -> dict[str, str]:
        """Imports visible in `scope`: the module's, overridden by enclosing functions' own."""
        visible = dict(self.imports.get("", {}))
        parts = scope.split(".") if scope else []
        for i in range(1, len(parts) + 1):
            visible.update(self.imports.get(".".join(parts[:i]), {}))
        return visible


_BodyKey = tuple[str, "str | None", str]  # (scope, enclosing class scope, the def's source text)


@dataclass(frozen=True)
class _Body:
    """What walking one function's body added to each list of facts, at the line it was walked."""

    line: int
    facts: dict[str, tuple]  # collector list -> the entries it gained
    imports: tuple[tuple[str, str, str], ...]  # (scope, local, target) bound in the body


@dataclass(frozen=True)
class _Statement:
    """A top-level `def` or `class` as walked (its `line` the first, decorators included), and
    what it read of the module around it: whether module-level code binds each name its
    decorators, defaults or bases pass along."""

    walked: _Body
    name: str
    module_reads: tuple[tuple[str, bool], ...]


class BodyMemo:
    """Function bodies and top-level statements walked already, by their source text, for the
    versions of one file.

    Releases of a package share most functions even in the files they change. A function whose
    text, scope and enclosing class are unchanged has the same facts, moved by as many lines as it
    moved, because a body's facts depend on nothing outside it but those (its decorators and
    defaults, which read the enclosing scope, are walked every time). A whole top-level `def` or
    `class` whose text is unchanged is not even parsed again (`collect_facts_reusing`), as long as
    the module binds the names it read as it did."""

    def __init__(self) -> None:
        self.bodies: dict[_BodyKey, _Body] = {}
        self.statements: dict[str, _Statement] = {}
        self.bodies_replayed = 0  # function bodies not walked again, for tests and benchmarks
        self.statements_replayed = 0  # top-level definitions neither parsed nor walked again


_MOVED_LISTS = ("functions", "classes", "calls", "returns", "appends", "statements")
_KEPT_LISTS = ("attribute_types", "attribute_reads", "attribute_defaults")  # no line in them: taken as they are


@dataclass
class _Frame:
    """Per-function state of the walk."""

    scope: str
    once: frozenset[str]  # locals assigned exactly once in the function
    bound: frozenset[str]  # every local and parameter of the function, but its nested defs
    params: dict[str, str]  # annotated parameters: name -> annotation
    aliases: dict[str, list[tuple[str | None, Condition]]]


class _FactCollector:
    def __init__(self, module: str, is_pkg: bool, lines: list[str] | None = None, memo: BodyMemo | None = None):
        self.module = module
        self.is_pkg = is_pkg
        self.lines = lines  # the source's lines, for the memo's keys
        self.memo = memo if lines is not None else None
        self.recording = False  # walking a body the memo will keep: its nested bodies are part of it
        self.module_reads: list[tuple[str, bool]] | None = None  # set while a top-level statement is recorded
        self.bound_imports: list[tuple[str, str, str]] = []
        self.scopes = ScopeStack()
        self.imports: dict[str, dict[str, str]] = {}
        self.local_defs: set[str] = set()
        self.classes: list[ClassFact] = []
        self.functions: list[FunctionFact] = []
        self.calls: list[CallFact] = []
        self.returns: list[ReturnFact] = []
        self.appends: list[AppendFact] = []
        self.attribute_types: list[AttributeType] = []
        self.attribute_reads: list[AttributeRead] = []
        self.attribute_defaults: list[AttributeDefault] = []
        self.statements: list[StatementPosition] = []
        self.module_values: dict[str, str] = {}
        self.frame = _Frame("", frozenset(), frozenset(), {}, {})
        self.class_stack: list[str] = []
        self.loop_depth = 0  # `for` bodies around the statement being read
        self.arguments: dict[ast.Call, str] = {}  # a call written as another call's argument -> `callee:key`
        self.reads_seen: set[tuple[str, str, Condition]] = set()

    def qualify_scope(self, scope: str) -> str:
        return f"{self.module}.{scope}" if self.module and scope else (scope or self.module)

    # blocks and statements
    def block(self, body: list[ast.stmt], terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        env = dict(env)
        for stmt in body:
            self.statement(stmt, terms, env, partial)
            if isinstance(stmt, ast.If):
                body_exits, else_exits = _exits(stmt.body), bool(stmt.orelse) and _exits(stmt.orelse)
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
                bound = _dotted(targets[0]) if len(targets) == 1 else None
                if bound in self.frame.once:  # a local, or a `self.x` set once in this function
                    env[bound] = Binding(stmt.value, self.loop_depth > 0)

    def statement(self, stmt: ast.stmt, terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        if isinstance(stmt, _Known):
            self.replay_statement(stmt)
        elif isinstance(stmt, _DEFINITIONS) and self.memo is not None and self.scopes.at_module:
            self.remembered_statement(stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
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
            self.block(stmt.body, terms + (loop_term(stmt.target, stmt.iter, env),), env, partial)
            self.loop_depth -= 1
            if stmt.orelse:
                self.block(stmt.orelse, terms, env, partial + (f"line {stmt.lineno}: for-else",))
        elif isinstance(stmt, ast.While):
            self.expressions([stmt.test], terms)
            self.block(stmt.body, terms + tuple(make_term(c, env) for c in conjuncts(stmt.test)), env, partial)
            if stmt.orelse:
                self.block(stmt.orelse, terms, env, partial + (f"line {stmt.lineno}: while-else",))
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.block(stmt.body, terms, env, partial)
            guarded = _guarded_description(stmt.body)
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
                term = _case_term(subject, case.pattern, env)
                self.block(case.body, terms + (term,), env, partial + ((f"line {case.pattern.lineno}: case guard",) if case.guard else ()))
        else:
            self.simple(stmt, terms, env, partial)

    def simple(self, stmt: ast.stmt, terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        if isinstance(stmt, ast.Raise):
            kind = "raise" if stmt.exc is not None and not rethrows(stmt.exc) else "reraise"
            self.position(stmt, kind, terms, partial)
        elif isinstance(stmt, ast.Assert):
            self.position(stmt, "assert" if stmt.msg is not None else "assert-nomsg", terms, partial)
        elif isinstance(stmt, ast.Return):
            self.returns.append(ReturnFact(self.frame.scope, _dotted(stmt.value) if stmt.value else None, stmt.lineno, terms))
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.import_(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            self.assignment(stmt)
            self.alias(stmt, terms)
            if terms and self.class_stack:
                self.default(stmt, terms)
        self.expressions([stmt], terms)

    def default(self, stmt: ast.Assign | ast.AnnAssign, terms: Condition) -> None:
        """`self.x = ...` under a test of `self.x`: an `AttributeDefault`."""
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                test = next((t.raw for t in terms if _mentions(t.raw, f"self.{target.attr}")), None)
                if test is not None:
                    self.attribute_defaults.append(AttributeDefault(self.frame.scope, target.attr, test))

    def alias(self, stmt: ast.Assign | ast.AnnAssign, terms: Condition) -> None:
        """`cls = module.Impl`: remember what a later `cls(...)` may call, and when."""
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if self.scopes.at_module or len(targets) != 1 or not isinstance(targets[0], ast.Name) or stmt.value is None:
            return
        value = stmt.value
        if isinstance(value, (ast.Name, ast.Attribute)):
            bindings = self.expand(_dotted(value), terms)
        elif isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and _dotted(value.func):
            bindings = [(text + "()" if text else None, when) for text, when in self.expand(_dotted(value.func), terms)]
        else:
            bindings = [(None, terms)]
        self.frame.aliases.setdefault(targets[0].id, []).extend(bindings)

    def expand(self, dotted: str | None, terms: Condition) -> list[tuple[str | None, Condition]]:
        """A dotted name whose head is itself a local alias, through each of that alias's bindings."""
        if dotted is None:
            return [(None, terms)]
        head, dot, rest = dotted.partition(".")
        known = self.frame.aliases.get(head)
        if not known:
            return [(dotted, terms)]
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
                        self.read(_self_attribute(read), node.lineno, terms)
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

    def call(self, node: ast.Call, terms: Condition) -> None:
        receiving = self.arguments.pop(node, None)
        callee = _callee_text(node.func)
        for key, argument in [*enumerate(node.args), *((k.arg, k.value) for k in node.keywords)]:
            if callee and type(argument) is ast.Call:
                self.arguments[argument] = f"{callee}:{key}"
            passed = _dotted(argument) if isinstance(argument, (ast.Name, ast.Attribute)) else None
            head = passed.split(".")[0] if passed else None
            # A local's value is data (a function passed on is `self.run`, a module's name or an
            # import); `self`/`cls` are the exception, as their methods are what gets passed.
            aliased = any(text for text, _ in self.frame.aliases.get(head, ()))  # `cb = self.run`
            if passed and self.module_reads is not None and self.scopes.at_module:
                self.module_reads.append((head, head in self.frame.bound))
            if passed and (head not in self.frame.bound or aliased or (head in ("self", "cls") and "." in passed)):
                through = tuple(self.expand(passed, ())) if aliased else ()
                to = f"{callee}:{key}" if callee else None
                self.calls.append(CallFact(self.frame.scope, passed, node.lineno, terms, (), through, "reference", to))
        if callee is None:
            return
        literal = tuple(a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args)
        aliases = tuple(self.expand(callee, ())) if callee.split(".")[0] in self.frame.aliases else ()
        self.calls.append(CallFact(self.frame.scope, callee, node.lineno, terms, literal, aliases, "call", receiving))
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
            (a.arg, _dotted(_strip_generic(a.annotation)) if a.annotation is not None else None)
            for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        )
        returns = _strip_generic(node.returns)  # `X | None` -> X
        klass = self.class_stack[-1] if self.class_stack and self.class_stack[-1] == scope.rsplit(".", 1)[0] else None
        self.functions.append(
            FunctionFact(
                self.qualify_scope(scope), scope, node.lineno, params,
                tuple(d for d in (_dotted(_strip_call(x)) for x in node.decorator_list) if d),
                ast.get_docstring(node), self.qualify_scope(klass) if klass else None,
                _dotted(returns), _class_of_type(returns),
            )
        )
        if any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) for d in node.decorator_list):
            enclosing = scope.rsplit(".<locals>.", 1)[0] if ".<locals>." in scope else ""
            registered = CallFact(enclosing, node.name, node.lineno, (), (), (), "reference")
            if enclosing == self.frame.scope:
                self.calls.append(registered)
        if self.memo is None or self.recording:
            self.body(node, scope, params)
        else:
            self.remembered_body(node, scope, params)
        self.scopes.pop()

    def body(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: str, params: tuple) -> None:
        saved, saved_depth = self.frame, self.loop_depth
        self.frame, self.loop_depth = _Frame(scope, *_bindings(node), {p: a for p, a in params if a}, {}), 0
        self.block(node.body, (), {}, ())
        self.frame, self.loop_depth = saved, saved_depth

    def remembered_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: str, params: tuple) -> None:
        """`body`, replayed from the memo when this very function was walked in another version."""
        assert self.memo is not None and self.lines is not None
        text = "\n".join(self.lines[node.lineno - 1 : node.end_lineno])
        key = (scope, self.class_stack[-1] if self.class_stack else None, text)
        known = self.memo.bodies.get(key)
        if known is not None:
            self.memo.bodies_replayed += 1
            self.replay(known, node.lineno - known.line)
            return
        self.recording = True
        self.memo.bodies[key] = self.walked(node.lineno, lambda: self.body(node, scope, params))
        self.recording = False

    def remembered_statement(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """Walk a top-level definition and keep what it made, for a later version to replay."""
        assert self.memo is not None and self.lines is not None
        self.module_reads = []
        start = _first_line(stmt)
        walked = self.walked(start, lambda: self.klass(stmt) if isinstance(stmt, ast.ClassDef) else self.function(stmt))
        text = "\n".join(self.lines[start - 1 : stmt.end_lineno])
        self.memo.statements[text] = _Statement(walked, stmt.name, tuple(dict.fromkeys(self.module_reads)))
        self.module_reads = None

    def walked(self, line: int, walk: Callable[[], None]) -> _Body:
        """What `walk` adds to each list of facts and to the imports, as made at `line`."""
        marks = {name: len(getattr(self, name)) for name in _MOVED_LISTS + _KEPT_LISTS}
        imports_mark = len(self.bound_imports)
        walk()
        added = {name: tuple(getattr(self, name)[mark:]) for name, mark in marks.items()}
        return _Body(line, added, tuple(self.bound_imports[imports_mark:]))

    def replay_statement(self, known: "_Known") -> None:
        assert self.memo is not None
        self.memo.statements_replayed += 1
        self.local_defs.add(known.name)
        self.replay(known.statement.walked, known.line - known.statement.walked.line)

    def replay(self, body: _Body, delta: int) -> None:
        for name in _KEPT_LISTS:
            getattr(self, name).extend(body.facts[name])
        for name in _MOVED_LISTS:
            entries = body.facts[name]
            getattr(self, name).extend(entries if not delta else (_moved(e, delta) for e in entries))
        for scope, local, target in body.imports:
            self.imports.setdefault(scope, {})[local] = target
            self.bound_imports.append((scope, local, target))

    def klass(self, node: ast.ClassDef) -> None:
        if self.scopes.at_module:
            self.local_defs.add(node.name)
        self.expressions(node.bases + node.decorator_list, ())
        self.scopes.push(node.name, False)
        scope = self.scopes.current
        fields, methods = [], []
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                default = _dotted(stmt.value) if stmt.value is not None else None
                annotation = _dotted(_strip_generic(stmt.annotation))
                fields.append(FieldFact(stmt.target.id, annotation, default))
                if annotation:
                    self.attribute_types.append(AttributeType(scope, stmt.target.id, annotation))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.append(stmt.name)
        self.classes.append(
            ClassFact(
                self.qualify_scope(scope),
                tuple(d for d in (_dotted(b) for b in node.bases) if d),
                node.lineno,
                tuple(d for d in (_dotted(_strip_call(x)) for x in node.decorator_list) if d),
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
        if self.scopes.at_module:
            for target in targets:
                self.local_defs.update(_bound_names(target))
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value is not None:
                value = stmt.value.func if isinstance(stmt.value, ast.Call) else stmt.value
                dotted = _dotted(value)
                if dotted:
                    suffix = "()" if isinstance(stmt.value, ast.Call) else ""
                    self.module_values[targets[0].id] = dotted + suffix
        # `self.x = Foo(...)` / `self.x: Foo = ...` in a method types the attribute x.
        klass = self.class_stack[-1] if self.class_stack else None
        if klass is None or stmt.value is None and not isinstance(stmt, ast.AnnAssign):
            return
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                typed = _dotted(_strip_generic(stmt.annotation)) if isinstance(stmt, ast.AnnAssign) else None
                if typed:
                    self.attribute_types.append(AttributeType(klass, target.attr, typed, False, self.frame.scope))
                elif isinstance(stmt.value, ast.Call) and _dotted(stmt.value.func):
                    for made, _ in self.expand(_dotted(stmt.value.func), ()):
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

    def bind_import(self, local: str, target: str) -> None:
        self.imports.setdefault(self.scopes.current, {})[local] = target
        self.bound_imports.append((self.scopes.current, local, target))
        if self.scopes.at_module:
            self.local_defs.add(local)


def _first_line(stmt: ast.stmt) -> int:
    """A statement's first line: its first decorator's, if it has any."""
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


def _definition_chunks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line of each run of lines that may be a top-level `def` or `class`: from a
    line starting one (or its decorators) at column 0 up to the last code line before the next
    line of code at column 0. Only a guess from the text: `collect_facts_reusing` checks it."""
    chunks: list[tuple[int, int]] = []
    start = None  # of the chunk being read
    header_seen = False  # its `def`/`class` line, after any decorators
    last_code = 0
    for number, line in enumerate(lines, 1):
        head = line[:1]
        # Indented, blank, a comment, or closing brackets (`) -> None:` of a long signature): never
        # the start of a statement.
        if not head or head in " \t#\x0c)]}":
            if line.strip() and not line.lstrip().startswith("#"):
                last_code = number
            continue
        decorated = start is not None and not header_seen and line.startswith(_DEFINITION_STARTS)
        if start is not None and not decorated:  # code at column 0 ends the chunk being read
            chunks.append((start, last_code))
            start = None
        if start is None and line.startswith(_DEFINITION_STARTS):
            start, header_seen = number, False
        if start is not None and not line.startswith("@"):
            header_seen = True
        last_code = number
    if start is not None:
        chunks.append((start, last_code))
    return chunks


def _moved(fact, delta: int):
    """A fact of a body that moved `delta` lines, as the walk at its new place would make it."""
    if isinstance(fact, StatementPosition):
        partial = tuple(_moved_note(note, delta) for note in fact.partial)
        return replace(fact, line=fact.line + delta, end_line=fact.end_line + delta, partial=partial)
    return replace(fact, line=fact.line + delta)


def _moved_note(note: str, delta: int) -> str:
    """`line 12: for-else` -> `line 15: for-else`: the notes `statement` writes."""
    number, colon, rest = note.removeprefix("line ").partition(":")
    return f"line {int(number) + delta}{colon}{rest}"


def _exits(body: list[ast.stmt]) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, _EXITS):
        return True
    if isinstance(last, ast.If):
        return _exits(last.body) and bool(last.orelse) and _exits(last.orelse)
    return False


def rethrows(exc: ast.expr) -> bool:
    """`raise err`, `raise self.error`: no new exception but one made elsewhere (caught, kept,
    handed over), raised again. Its message and origin are another raise's, so like a bare
    `raise` it is counted, not catalogued; classes are CamelCase, objects are not."""
    dotted = _dotted(exc) if isinstance(exc, (ast.Name, ast.Attribute)) else None
    return dotted is not None and is_value_name(dotted)


def is_value_name(dotted: str) -> bool:
    """A dotted name whose last part names an object, not a class: `err`, `self._error`."""
    last = dotted.rsplit(".", 1)[-1]
    return last[:1].islower() or last[:1] == "_"


def _setting_read(value: ast.expr | None) -> str | None:
    """The code of a value that may read a setting: a dotted chain (`cfg.kv_transfer_config.kv_role`)
    or a call with a string key first (`extra.get("key", True)`); None for anything else."""
    if isinstance(value, ast.Attribute):
        return _dotted(value)
    if (
        isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant)
        and isinstance(value.args[0].value, str) and _dotted(value.func)
    ):
        return unparse(value)
    return None


def _bindings(node: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """(locals bound exactly once, every local bound) in a function; parameters are bound but never
    count as once, and nested scopes' own names stay theirs.

    Only statements are walked (binding forms, plus walrus in `if`/`while` tests), which keeps this
    pass a small fraction of a full tree walk.
    """
    counts: Counter[str] = Counter()
    defined: set[str] = set()  # names of nested functions and classes: code, not data
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None:
                counts[a.arg] += 2
    stack: list[ast.stmt] = list(getattr(node, "body", []))
    while stack:
        stmt = stack.pop()
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            targets = [stmt.target]
            if isinstance(stmt, ast.AugAssign):
                counts.update(_bound_names(stmt.target))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, _Known)):
            counts[stmt.name] += 1
            defined.add(stmt.name)
            continue
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            counts.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif isinstance(stmt, (ast.If, ast.While)) and isinstance(stmt.test, ast.NamedExpr):
            targets = [stmt.test.target]
        for target in targets:
            counts.update(_bound_names(target))
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                counts[f"self.{target.attr}"] += 1
        for field in ("body", "orelse", "finalbody"):
            stack.extend(getattr(stmt, field, ()))
        for handler in getattr(stmt, "handlers", ()):
            if handler.name:
                counts[handler.name] += 1
            stack.extend(handler.body)
        for case in getattr(stmt, "cases", ()):
            stack.extend(case.body)
    return frozenset(name for name, n in counts.items() if n == 1), frozenset(counts) - defined


def _guarded_description(body: list[ast.stmt]) -> str:
    """What a `try` guards, for `raises(E, ...)`: its first call, else its first import or line
    (as a string literal, so that the term stays valid Python syntax)."""
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return repr(unparse(stmt))
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                return unparse(node)
    return repr(unparse(body[0])) if body else "..."


def _case_term(subject: str, pattern: ast.pattern, env: Env) -> Term:
    if isinstance(pattern, ast.MatchValue):
        return make_term(ast.parse(f"{subject} == {unparse(pattern.value)}", mode="eval").body, env)
    if isinstance(pattern, ast.MatchClass) and not pattern.patterns and not pattern.kwd_patterns:
        return make_term(ast.parse(f"isinstance({subject}, {unparse(pattern.cls)})", mode="eval").body, env)
    return pseudo_term(f"matches({subject}, {unparse(pattern)})")


def _callee_text(func: ast.expr) -> str | None:
    """`f`, `a.b.f`, `super().f`, and `get().f` (a method of what a call returns)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        inner = _dotted(func.value.func)
        if inner == "super" and not func.value.args:
            return f"super().{func.attr}"
        return f"{inner}().{func.attr}" if inner else None
    return _dotted(func)


def _mentions(code: str, dotted: str) -> bool:
    """Whether `code` reads the whole dotted name (`self.x` in `self.x is None`, not in `self.xs`)."""
    start = code.find(dotted)
    while start >= 0:
        end = start + len(dotted)
        before = code[start - 1] if start else " "
        after = code[end] if end < len(code) else " "
        if not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_"):
            return True
        start = code.find(dotted, end)
    return False


def _self_attribute(node: ast.Attribute) -> str | None:
    """`self.a.b` (or `cls.a.b`) as text: plain attributes of `self`/`cls`; None for anything else."""
    names = []
    while type(node) is ast.Attribute:
        names.append(node.attr)
        node = node.value
    if type(node) is ast.Name and node.id in ("self", "cls"):
        return ".".join([node.id, *reversed(names)])
    return None


def _dotted(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if isinstance(node, ast.Subscript):  # Generic[T] -> Generic
        return _dotted(node.value)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "VllmConfig" annotations
        return node.value if node.value.replace(".", "").isidentifier() else None
    return None


def _strip_generic(node: ast.expr | None) -> ast.expr | None:
    """`X | None` and `Optional[X]` -> X: the type an attribute or parameter holds when set."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = node.left, node.right
        if isinstance(right, ast.Constant) and right.value is None:
            return _strip_generic(left)
        if isinstance(left, ast.Constant) and left.value is None:
            return _strip_generic(right)
    if isinstance(node, ast.Subscript) and _dotted(node.value) in ("Optional", "typing.Optional"):
        return _strip_generic(node.slice)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _strip_generic(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    return node


def _class_of_type(node: ast.expr | None) -> str | None:
    """`type[X]`, `typing.Type[X]`: X, dotted."""
    if isinstance(node, ast.Subscript) and _dotted(node.value) in ("type", "Type", "typing.Type"):
        return _dotted(_strip_generic(node.slice))
    return None


def _strip_call(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _bound_names(elt)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_DEFINITION_STARTS = ("def ", "async def ", "class ", "@")


@dataclass(frozen=True)
class _Known:
    """Stands, in a module's body, for a top-level definition taken from the memo unparsed."""

    line: int  # where it starts in this version
    statement: _Statement

    @property
    def name(self) -> str:
        return self.statement.name


def collect_facts_reusing(lines: list[str], module: str, is_pkg: bool, memo: BodyMemo) -> ModuleFacts | None:
    """The module's facts, parsing only what is not a top-level definition the memo holds from
    another version: those lines are blanked out and their facts replayed. None when nothing is
    known, or when the shortcut cannot be trusted (then parse the whole file): the rest must parse,
    no statement of it may span a blanked definition (it would have been inside a string or
    brackets), and the module must bind the names those definitions read as it did before.
    """
    known = [
        (start, end, found) for start, end in _definition_chunks(lines)
        if (found := memo.statements.get("\n".join(lines[start - 1 : end]))) is not None
    ]
    if not known:
        return None
    blanked = list(lines)
    for start, end, _ in known:
        blanked[start - 1 : end] = [""] * (end - start + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse("\n".join(blanked))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    for stmt in tree.body:
        first, last = _first_line(stmt), stmt.end_lineno or stmt.lineno
        if any(first <= end and start <= last for start, end, _ in known):
            return None
    markers = [_Known(start, found) for start, _, found in known]
    tree.body = sorted([*tree.body, *markers], key=lambda s: s.line if isinstance(s, _Known) else _first_line(s))
    once, bound = _bindings(tree)
    if any((name in bound) != was for marker in markers for name, was in marker.statement.module_reads):
        return None
    return _collect(tree, module, is_pkg, lines, memo, _Frame("", once, bound, {}, {}))


def collect_facts(
    tree: ast.Module, module: str, is_pkg: bool, lines: list[str] | None = None, memo: BodyMemo | None = None
) -> ModuleFacts:
    """The module's facts; with its source `lines` and a `memo` shared by versions of the same
    file, function bodies seen in another version are not walked again."""
    return _collect(tree, module, is_pkg, lines, memo, _Frame("", *_bindings(tree), {}, {}))


def _collect(
    tree: ast.Module, module: str, is_pkg: bool, lines: list[str] | None, memo: BodyMemo | None, frame: _Frame
) -> ModuleFacts:
    collector = _FactCollector(module, is_pkg, lines, memo)
    collector.frame = frame
    collector.block(tree.body, (), {}, ())
    return ModuleFacts(
        module=module,
        is_package=is_pkg,
        imports=collector.imports,
        local_defs=frozenset(collector.local_defs),
        classes=tuple(collector.classes),
        statements=tuple(sorted(collector.statements, key=lambda s: (s.line, s.col))),
        functions=tuple(collector.functions),
        calls=tuple(collector.calls),
        returns=tuple(collector.returns),
        appends=tuple(collector.appends),
        attribute_types=tuple(collector.attribute_types),
        attribute_reads=tuple(collector.attribute_reads),
        attribute_defaults=tuple(collector.attribute_defaults),
        module_values=collector.module_values,
    )
