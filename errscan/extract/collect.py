"""The walk of one module's `ast` that gathers its facts (`facts.py`).

One walk per file gathers everything the whole-package analysis needs: it is fast enough for all
of vLLM, where libcst is kept for the catalogued files' concrete syntax.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from errscan.extract.astutil import always_exits, bindings, bound_name, bound_names, dotted, jumps_out, leaves_function, rethrows, walk
from errscan.extract.callsites import CallWalk
from errscan.extract.conditions import (
    Binding, Condition, Env, as_stated, case_term, conjuncts, deep_text, loop_term, make_term, negate, parse_expression, render,
    unparse,
)
from errscan.extract.dataflow import (
    assigned_by, changed_in_loop, effect_call, forget, mutated_by_call, nested_exits, rereadable, tested_as_new, unchanged_by,
)
from errscan.extract.definitions import DefinitionWalk, Frame
from errscan.extract.filled import filled_in
from errscan.extract.fills import attribute_fills
from errscan.extract.facts import (
    AppendFact, AttributeDefault, AttributeFill, AttributeRead, AttributeStore, AttributeType, CallFact, ClassFact, FirstCall, FunctionFact,
    ModuleFacts, ReturnFact, StatementPosition, TableFact, TryFact,
)
from errscan.extract.guarded import caught_names, handler_term
from errscan.extract.handlers import try_fact
from errscan.extract.holders import alternatives
from errscan.extract.logcalls import GENERIC, LogCalls
from errscan.extract.names import ScopeStack
from errscan.extract.stores import first_call, stored
from errscan.extract.unparse import fast_unparse

# Statements that bind or change locals at their own level (`dataflow.assigned_by`).
_BINDING = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Delete})
_TRIES = frozenset({ast.Try, getattr(ast, "TryStar", ast.Try)})


class FactCollector(DefinitionWalk, CallWalk):
    """One module's walk, statement by statement, each with the condition under which it runs; the
    calls it meets are read in `callsites.py`, the definitions in `definitions.py`.

    `statement` and `body` are where a subclass may step in (`reuse` replays what it remembers)."""

    def __init__(self, module: str, is_pkg: bool, logs: LogCalls = GENERIC):
        self.module = module
        self.is_pkg = is_pkg
        self.logs = logs
        self.scopes = ScopeStack()
        self.imports: list[tuple[str, str, str]] = []  # (scope, local, target), in the order bound
        self.imported: list[tuple[str, str | None]] = []  # (what an import loads, under what condition)
        self.local_defs: set[str] = set()
        self.classes: list[ClassFact] = []
        self.functions: list[FunctionFact] = []
        self.calls: list[CallFact] = []
        self.returns: list[ReturnFact] = []
        self.appends: list[AppendFact] = []
        self.attribute_types: list[AttributeType] = []
        self.attribute_reads: list[AttributeRead] = []
        self.attribute_defaults: list[AttributeDefault] = []
        self.attribute_stores: list[AttributeStore] = []
        self.first_calls: list[FirstCall] = []
        self.attribute_fills: list[AttributeFill] = []
        # (function scope, local) -> what it was assigned, printed only when a `return` reads it
        self.local_values: dict[tuple[str, str], list[ast.expr]] = {}
        self.statements: list[StatementPosition] = []
        self.tries: list[TryFact] = []
        self.values: list[tuple[str, str, str | None]] = []  # see `ModuleFacts.values`
        self.module_values: dict[str, str] = {}
        self.tables: list[TableFact] = []
        self.frame = Frame("", frozenset(), frozenset(), {}, {})
        self.class_stack: list[str] = []
        self.loop_depth = 0  # `for` bodies around the statement being read
        self.arguments: dict[ast.Call, str] = {}  # a call written as another call's argument -> `callee:key`
        self.reads_seen: set[tuple[str, str, Condition]] = set()
        self.changes: list[tuple[str, bool]] = []  # (local, rebound or else changed in place), in walk order
        self.assigned: set[str] = set()  # locals of the function assigned so far, once or more
        self.loops: dict[int, frozenset[str]] = {}  # id of a loop -> what its body changes (`dataflow`)
        self.in_lambda = 0  # lambda bodies around the expression being read (`expressions`)
        self.in_try = 0  # `try` bodies with handlers around the statement being read
        self.top_body: list[ast.stmt] | None = None  # the statements of the function being read, not nested
        self.top_terms: Condition = ()  # what holds at the statement of `top_body` being read

    def collect(self, tree: ast.Module, names: tuple[frozenset[str], frozenset[str]] | None = None) -> ModuleFacts:
        """The module's facts; `names` are its `bindings` when the caller has them already."""
        self.frame = Frame("", *(names or bindings(tree)), {}, {})
        self.block(tree.body, (), {}, ())
        self.attribute_fills += attribute_fills([s for s in tree.body if isinstance(s, ast.stmt)])  # (not what `reuse` stands in for)
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
            alternatives=alternatives(self.imports),
            imported=tuple(dict.fromkeys(self.imported)),  # each once, in the order first loaded
            attribute_stores=tuple(self.attribute_stores),
            first_calls=tuple(self.first_calls),
            attribute_fills=tuple(self.attribute_fills),
            values=tuple(dict.fromkeys(self.values)),
        )

    def qualify_scope(self, scope: str) -> str:
        return f"{self.module}.{scope}" if self.module and scope else (scope or self.module)

    # blocks and statements
    def block(self, body: list[ast.stmt], terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        env = dict(env)
        changes = self.changes
        start = len(changes)
        outer = dict(self.frame.built)  # what this block builds holds only in it
        for position, stmt in enumerate(body):
            kind = type(stmt)
            mark = len(changes)
            fills = filled_in(stmt, env) if kind is ast.For and env else None
            if body is self.top_body:
                self.top_terms = terms
            self.statement(stmt, terms, env, partial)
            if kind is ast.Assign and position + 1 < len(body) and (first := first_call(stmt, body[position + 1])):
                self.first_calls.append(FirstCall(self.frame.scope, *first))
            if kind is ast.Expr:
                call = effect_call(stmt)
                if call is not None:
                    changes.extend((k, False) for k in mutated_by_call(call, self.logs.level, True) if k in self.frame.bound or k[:5] == "self.")
            elif kind in _BINDING:
                always = body is self.top_body and kind not in (ast.For, ast.AsyncFor)
                self.attribute_stores += [AttributeStore(self.frame.scope, receiver, attribute, stmt.lineno, value, always)
                                          for receiver, attribute, value in stored(stmt)]
                bound, changed = assigned_by(stmt)
                once = self.frame.once  # a first and only assignment replaces nothing
                changes.extend([*((k, True) for k in bound if k not in once), *((k, False) for k in changed)])
            through = self.rebuilt(stmt, env, terms) if kind is ast.Assign else frozenset()
            if len(changes) > mark:  # what the statement (re)bound or changed no longer reaches
                new = changes[mark:]
                rebound = [k for k, again in new if again]
                if env or terms:
                    tested = tested_as_new(stmt, terms) if kind is ast.Assign or kind is ast.Expr else ()
                    terms = forget(env, tuple(t for t in terms if t not in tested), rebound, [k for k, again in new if not again],
                                   self.assigned.intersection(rebound), through) + tested
                self.assigned.update(rebound)
                for key, _ in new:
                    self.frame.built.pop(key, None)
            if kind is ast.If:
                body_exits, else_exits = always_exits(stmt.body, (stmt.test,)), bool(stmt.orelse) and always_exits(stmt.orelse)
                # Past the `if`, the test's value is the one tested unless the other block changed what it reads.
                if body_exits and not else_exits and unchanged_by(stmt.test, stmt.orelse, self.logs.level):
                    raised = isinstance(stmt.body[-1], ast.Raise)
                    terms = terms + tuple(replace(make_term(c, env), other_error=raised) for c in conjuncts(negate(stmt.test)))
                elif else_exits and not body_exits and unchanged_by(stmt.test, stmt.body, self.logs.level):
                    raised = isinstance(stmt.orelse[-1], ast.Raise)
                    terms = terms + tuple(replace(make_term(c, env), other_error=raised) for c in conjuncts(stmt.test))
                terms = terms + self.nested_exit_terms(stmt, env)  # `if A: ...; if C: return`: past it, not both
            elif kind is ast.With or kind is ast.AsyncWith:
                terms = terms + self.nested_exit_terms(stmt, env)
            elif kind is ast.Assert:
                terms = terms + tuple(make_term(c, env) for c in conjuncts(stmt.test))
            elif kind is ast.For:
                terms = terms + self.asserted_each_time(stmt, env)
                env.update((key, Binding(value, self.loop_depth > 0, filled=True)) for key, value in (fills or {}).items())
            elif (kind is ast.Assign or kind is ast.AnnAssign) and stmt.value is not None:
                targets = stmt.targets if kind is ast.Assign else [stmt.target]
                bound = bound_name(targets[0]) if len(targets) == 1 else None
                # A local, or a `self.x` set once in this function, until a change.
                if bound in through:
                    env[bound] = Binding(stmt.value, self.loop_depth > 0, itself=True)
                elif bound in self.frame.once:
                    env[bound] = Binding(stmt.value, self.loop_depth > 0)
                elif bound and "." not in bound and rereadable(stmt.value):
                    env[bound] = Binding(stmt.value, self.loop_depth > 0, reassigned=True)
                made = dotted(stmt.value.func) if isinstance(stmt.value, ast.Call) else None
                if bound and made:
                    self.frame.built[bound] = made
        self.frame.built = outer
        if len(changes) > start and leaves_function(body, not self.in_try):
            del changes[start:]  # `if not keys: record(key); return`: what follows is not reached that way

    @staticmethod
    def rebuilt(stmt: ast.Assign, env: Env, terms: Condition) -> frozenset[str]:
        """The local `x = f(x)` binds anew from its own value when a term holds of that value: it
        still does, `x` read as `f(x)` from here on. Not when the earlier value is known (`forget`
        states the term by it) or was one such already (`x` would name two earlier values)."""
        target = stmt.targets[0]
        if len(stmt.targets) != 1 or not isinstance(target, ast.Name) or target.id in env \
                or not any(target.id in term.names for term in terms):
            return frozenset()
        reads = any(isinstance(n, ast.Name) and n.id == target.id for n in walk(stmt.value))
        return frozenset({target.id}) if reads else frozenset()

    def statement(self, stmt: ast.stmt, terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        """One statement reached when `terms` hold; `env` has the dominating assignments so far."""
        kind = type(stmt)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self.function(stmt)
        elif kind is ast.ClassDef:
            self.klass(stmt)
        elif kind is ast.If:
            self.expressions([stmt.test], terms)
            test_terms = tuple(make_term(c, env) for c in conjuncts(stmt.test))
            self.block(stmt.body, terms + test_terms, env, partial)
            if stmt.orelse:
                negated = tuple(make_term(c, env) for c in conjuncts(negate(stmt.test)))
                self.block(stmt.orelse, terms + negated, env, partial)
        elif kind is ast.For or kind is ast.AsyncFor:
            self.expressions([stmt.iter], terms)
            self.loop_alias(stmt.target, stmt.iter)
            self.forget_built(stmt)
            self.loop_depth += 1
            looped, before = self.loop_env(stmt, env, terms)
            self.block(stmt.body, before + (loop_term(stmt.target, stmt.iter, env),), looped, partial)
            self.loop_depth -= 1
            if stmt.orelse:
                self.block(stmt.orelse, terms, env, partial + (f"line {stmt.lineno}: for-else",))
        elif kind is ast.While:
            self.expressions([stmt.test], terms)
            looped, before = self.loop_env(stmt, env, terms)
            self.forget_built(stmt)
            self.block(stmt.body, before + tuple(make_term(c, looped) for c in conjuncts(stmt.test)), looped, partial)
            if stmt.orelse:
                self.block(stmt.orelse, terms, env, partial + (f"line {stmt.lineno}: while-else",))
        elif kind in _TRIES:
            found = try_fact(stmt, self.frame.scope, self.logs, env)
            if found is not None:
                self.tries.append(found)
            self.in_try += bool(stmt.handlers)
            self.block(stmt.body, terms, env, partial)
            self.in_try -= bool(stmt.handlers)
            earlier: list[tuple[str, ...]] = []
            for handler in stmt.handlers:
                caught = caught_names(handler)
                self.block(handler.body, terms + (as_stated(handler_term(stmt.body, caught, earlier, self.logs), env),), env, partial)
                earlier.append(caught)
            self.block(stmt.orelse, terms, env, partial)
            self.block(stmt.finalbody, terms, env, partial)
        elif kind is ast.With or kind is ast.AsyncWith:
            self.expressions([item.context_expr for item in stmt.items], terms)
            self.block(stmt.body, terms, env, partial)
        elif kind is ast.Match:
            self.expressions([stmt.subject], terms)
            subject = unparse(stmt.subject)
            for case in stmt.cases:
                term = as_stated(case_term(subject, case.pattern, env), env)
                self.block(case.body, terms + (term,), env, partial + ((f"line {case.pattern.lineno}: case guard",) if case.guard else ()))
        else:
            self.simple(stmt, terms, env, partial)

    def simple(self, stmt: ast.stmt, terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        kind = type(stmt)
        if kind is ast.Raise:
            self.position(stmt, "raise" if stmt.exc is not None and not rethrows(stmt.exc) else "reraise", terms, partial)
        elif kind is ast.Assert:  # it fails when its test does, on top of the path to it
            failing = tuple(make_term(c, env) for c in conjuncts(negate(stmt.test)))
            self.position(stmt, "assert" if stmt.msg is not None else "assert-nomsg", terms + failing, partial)
        elif kind is ast.Expr and type(stmt.value) is ast.Call and stmt.value.args:
            if self.logs.level(dotted(stmt.value.func)):
                self.position(stmt, "log", terms, partial)
        elif kind is ast.Return:
            value = dotted(stmt.value) if stmt.value else None
            sources = self.local_values.get((self.frame.scope, value), []) if isinstance(stmt.value, ast.Name) else []
            deep = f"({', '.join(dict.fromkeys(map(fast_unparse, sources)))},)" if sources else None  # whichever assignment it holds
            made = self.made(dotted(stmt.value.func)) if isinstance(stmt.value, ast.Call) else None
            expression = deep_text(stmt.value, env) if stmt.value is not None else "None"
            self.returns.append(ReturnFact(self.frame.scope, value, stmt.lineno, terms, deep, made, expression))
        elif kind is ast.Import or kind is ast.ImportFrom:
            self.import_(stmt)
            code = render(terms, "deep")
            self.imported += [(target, code) for target in self.loaded(stmt)]
        elif kind is ast.Assign or kind is ast.AnnAssign:
            self.assignment(stmt, terms)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if not self.scopes.at_module and len(targets) == 1 and isinstance(targets[0], ast.Name) and stmt.value is not None:
                self.local_values.setdefault((self.frame.scope, targets[0].id), []).append(stmt.value)
            self.alias(stmt, terms, env)
            if terms and self.class_stack:
                self.default(stmt, terms)
        self.expressions([stmt], terms)

    def position(self, stmt: ast.stmt, kind: str, terms: Condition, partial: tuple[str, ...]) -> None:
        end = stmt.end_lineno or stmt.lineno
        self.statements.append(StatementPosition(stmt.lineno, stmt.col_offset, end, kind, terms, partial))

    def asserted_each_time(self, loop: ast.For, env: Env) -> Condition:
        """After a loop without `break`, `all(T for x in xs)` for each check T every iteration
        passed: the body's first statements, up to one of another kind, are `assert T`, `if not T:
        <raise or return>` and locals bound once (`g = f(x)`), which `all(...)` states by their
        value (past the loop the local holds only the last one). Kept when, so stated, T reads
        nothing the body changes: each iteration's T is about what the loop starts from."""
        if jumps_out(loop.body, (ast.Break,)):
            return ()
        per_iteration = changed_in_loop(loop, self.loops, self.logs.level) - set(bound_names(loop.target))
        local: Env = {}
        found: list = []
        for stmt in loop.body:
            if isinstance(stmt, ast.Assert):
                tests, raised = conjuncts(stmt.test), False
            elif isinstance(stmt, ast.If) and not stmt.orelse and leaves_function(stmt.body, True):
                tests, raised = conjuncts(negate(stmt.test)), isinstance(stmt.body[-1], ast.Raise)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and stmt.targets[0].id in self.frame.once:
                local[stmt.targets[0].id] = Binding(stmt.value, True)
                # `meta = d.pop(k)` changes `d`: `d.pop(k)` stated again past the loop is another value
                per_iteration = per_iteration.union(
                    k for n in walk(stmt.value) if isinstance(n, ast.Call) for k in mutated_by_call(n, self.logs.level))
                continue
            else:
                break
            for test in tests:
                each = ast.Call(ast.Name("all", ast.Load()), [ast.GeneratorExp(test, [ast.comprehension(loop.target, loop.iter, [], 0)])], [])
                term = make_term(each, {**env, **local})
                if local:  # the raw form too: the body's locals mean nothing past the loop
                    term = replace(term, raw=deep_text(each, local))
                if all(per_iteration.isdisjoint(_reads(text)) for text in (term.code, term.raw, term.deep)):
                    found.append(replace(term, other_error=raised))
        return tuple(found)

    def nested_exit_terms(self, stmt: ast.If | ast.With | ast.AsyncWith, env: Env) -> Condition:
        """Past the statement, the tests on the way to each exit nested in it do not all hold:
        `not (A and C)`, or a single test's negation, split into its conjuncts."""
        found: list = []
        for path, raised in nested_exits(stmt, self.logs.level):
            failing = conjuncts(negate(path[0])) if len(path) == 1 else [ast.UnaryOp(ast.Not(), ast.BoolOp(ast.And(), path))]
            found += [replace(make_term(c, env), other_error=raised) for c in failing]
        return tuple(found)

    def forget_built(self, loop: ast.For | ast.AsyncFor | ast.While) -> None:
        """A name the loop's body changes may hold its new value from the second iteration on."""
        for key in changed_in_loop(loop, self.loops, self.logs.level) & self.frame.built.keys():
            del self.frame.built[key]

    def loop_env(self, loop: ast.For | ast.AsyncFor | ast.While, env: Env, terms: Condition) -> tuple[Env, Condition]:
        """`env` without the locals the loop body changes: the next iteration reads their new value;
        and `terms` without those about the earlier value of one bound anew from itself
        (`Binding.itself`): in the body its name stands for the value it has now."""
        if not env:
            return env, terms
        changed = changed_in_loop(loop, self.loops, self.logs.level)
        if changed.isdisjoint(env):
            return env, terms
        gone = {key for key in changed if key in env and env[key].itself}
        return {k: v for k, v in env.items() if k not in changed}, tuple(t for t in terms if t.names.isdisjoint(gone))


def _reads(text: str) -> set[str | None]:
    """The locals and dotted names a printed expression reads."""
    node = parse_expression(text)
    return {"<unparsed>"} if node is None else {dotted(n) for n in walk(node) if isinstance(n, (ast.Name, ast.Attribute))}


def collect_facts(tree: ast.Module, module: str, is_pkg: bool, logs: LogCalls = GENERIC) -> ModuleFacts:
    return FactCollector(module, is_pkg, logs).collect(tree)

