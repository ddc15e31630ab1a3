"""Reaching definitions for path conditions: which assignment a local's use reads.

The walk (`collect.FactCollector`) keeps, per block, the assignment of each local that reaches the
statement it is at (`Env`). A later change of the local ends what is known of it:

- a new assignment (here or in a nested block) replaces it, and every condition term that read the
  local before is about a value that is gone: two assignments are never merged into one condition;
- a mutation (`x.add(...)`, `x[k] = v`, `x += ...`, `x` passed to a call that may change it) leaves
  a computed value (`set()`, `torch.tensor(...)`) no longer equal to the expression that made it,
  so it is not substituted any more (an alias of a name still is: it is the same object).
A loop's body may change a local before the loop's next iteration reads it: such locals are
forgotten on entry to the body. One test survives the change it is about: an iteration's
`k not in seen` before `seen[k] = v` (or `seen.append(k)`, `seen.add(k)`) stores that very key
(`tested_as_new`), what the iteration found when it tested, in the loop's `any(...)`.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterable

from errscan.extract.astutil import SCOPES, always_exits, bound_names, child_blocks, dotted, suppresses, walk
from errscan.extract.conditions import (
    READERS, Condition, Env, Term, conjuncts, is_computed, negate, parse_expression, restated,
)

# Methods that change their receiver: containers' and, by convention, in-place tensor ops (`x.add_()`).
MUTATORS = frozenset({
    "add", "append", "appendleft", "clear", "discard", "extend", "extendleft", "insert", "pop", "popitem",
    "remove", "reverse", "setdefault", "sort", "update",
})


def key_of(node: ast.AST) -> str | None:
    """The env key a node names: a local (`x`) or an attribute of self (`self.x`)."""
    if type(node) is ast.Starred:
        node = node.value
    kind = type(node)
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
        return f"self.{node.attr}"
    return None


def mutated_by_call(node: ast.Call, is_log: Callable[[str | None], object], statement: bool = False) -> list[str]:
    """Locals (and `self.x`) this call may change: its receiver when the method mutates; and, for a
    call made for its effect (a `statement`, its value unused: `all_reduce(vote)`), its arguments
    unless the callee only reads them (a builtin reader, a log call)."""
    changed = []
    func = node.func
    if isinstance(func, ast.Attribute):
        held = func.value
        while isinstance(held, ast.Subscript):  # `d[k].append(x)` changes what `d` holds
            held = held.value
        receiver = key_of(held)
        if receiver and (func.attr in MUTATORS or (func.attr.endswith("_") and not func.attr.startswith("_"))):
            changed.append(receiver)
    if statement and (node.args or node.keywords):
        callee = dotted(func)
        if callee not in READERS and not is_log(callee) and not _logs(callee):
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                key = key_of(argument)
                if key and key not in ("self", "cls"):
                    changed.append(key)
    return changed


_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def _logs(callee: str | None) -> bool:
    """`logger.info(...)`, `logging.debug(...)` and their `*_once` forms: they only print their arguments."""
    if not callee or "." not in callee:
        return False
    method = callee.rsplit(".", 1)[1]
    return method.removesuffix("_once") in _LOG_METHODS


def targets_of(stmt: ast.stmt) -> list[ast.expr]:
    """What a statement assigns (or deletes) at its own level: nested blocks are walked on their own."""
    if isinstance(stmt, ast.Assign):
        return stmt.targets
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and (stmt.value is not None or isinstance(stmt, ast.AugAssign)):
        return [stmt.target]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    if isinstance(stmt, ast.Delete):
        return stmt.targets
    return []


def assigned_by(stmt: ast.stmt) -> tuple[list[str], list[str]]:
    """(names a statement binds anew, names whose value it changes in place) at its own level:
    nested blocks are walked on their own."""
    bound, changed = [], []
    for target in targets_of(stmt):
        key = key_of(target)
        if key is not None and not isinstance(stmt, ast.AugAssign):
            bound.append(key)
        elif key is not None:
            changed.append(key)  # `x += [...]` extends a list in place
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            inner = key_of(target.value)  # `x[k] = v`, `x.a = v`
            if inner and inner not in ("self", "cls"):
                changed.append(inner)
        else:
            bound.extend(bound_names(target))
    return bound, changed


def forget(env: Env, terms: Condition, bound: Iterable[str], changed: Iterable[str], again: set[str] = frozenset(),  # type: ignore[assignment]
           through: frozenset[str] = frozenset()) -> Condition:
    """After locals were bound (`bound`; `again` those bound before in the function) or changed in
    place (`changed`): drop what no longer holds from `env` (in place) and return the terms still
    about current values, or about the earlier value of a local of `through`, bound anew from it
    (`x = f(x)`) and read from now on as its value (`Binding.itself`)."""
    bound, changed = set(bound), set(changed)
    earlier = {}
    for key in bound:
        binding = env.pop(key, None)
        if binding is not None and binding.reassigned and key not in binding.reads:
            earlier[key] = binding
    for key in changed:
        binding = env.get(key)
        if binding is not None and (is_computed(binding.value) or not isinstance(binding.value, (ast.Name, ast.Attribute))):
            del env[key]
    if again and env:  # a substitution that reads a rebound local would read the new value
        for key in [k for k, b in env.items() if not b.reads.isdisjoint(again)]:
            del env[key]
    stale = bound | changed
    if not stale or not terms:
        return terms
    kept = []
    for term in terms:
        if term.loop or term.names.isdisjoint(stale - through) or (term.names.isdisjoint(bound) and _read_as_key(term, changed)):
            kept.append(term)
        elif earlier and not term.pseudo and term.names.isdisjoint(stale - earlier.keys()):
            # `if spec is None: continue; spec = spec.inner`: the test read the earlier value
            again_read = restated(term, {k: b for k, b in earlier.items() if k in term.names})
            if again_read.names.isdisjoint(stale):
                kept.append(again_read)
    return tuple(kept)


def tested_as_new(stmt: ast.stmt, terms: Condition) -> Condition:
    """The terms of this iteration (after the innermost `for`'s) that found the key `stmt` stores
    not there yet (`if k in seen: continue` ... `seen[k] = v`, `seen.append(k)`, `seen.add(k)`):
    what the iteration tested, in the loop's `any(...)`, which the store of that very key does not
    make untrue of when it was tested."""
    stored = _stored_key(stmt)
    if stored is None:
        return ()
    container = dotted(stored[0])
    last = max((i for i, term in enumerate(terms) if term.loop), default=None)
    if container is None or last is None:
        return ()
    key = ast.dump(stored[1])
    loop = parse_expression(terms[last].raw)
    targets = _names(loop.left) if isinstance(loop, ast.Compare) else set()
    found = []
    for term in terms[last + 1 :]:
        node, deep = parse_expression(term.raw), parse_expression(term.deep)
        # (a key that is not the iteration's own is one value all along: a later test of it is no `any(...)`'s)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.NotIn) \
                and ast.dump(node.left) == key and dotted(node.comparators[0]) == container \
                and isinstance(deep, ast.Compare) and _names(deep.left) & targets:
            found.append(term)
    return tuple(found)


def _stored_key(stmt: ast.stmt) -> tuple[ast.expr, ast.expr] | None:
    """The container and the key `stmt` puts in it: `d[k] = v`, `s.add(k)`, `xs.append(k)`."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
        return stmt.targets[0].value, stmt.targets[0].slice
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ("add", "append") \
            and len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred):
        return call.func.value, call.args[0]
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _read_as_key(term: Term, changed: set[str]) -> bool:
    """Whether the term reads each local of `changed` it names only as a lookup key (`d[k]`,
    `d.get(k)`, also inside a tuple key): a key's hash and equality cannot change while it lives
    (Python's rule for hashable objects), so a change in place leaves the lookup as it was."""
    node = parse_expression(term.raw)
    if node is None or not (term.names & changed) <= {key for key in changed if "." not in key}:
        return False
    keys: set[int] = set()
    for inner in walk(node):
        if isinstance(inner, ast.Subscript):
            keys.update(map(id, _elements(inner.slice)))
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "get" and inner.args:
            keys.update(map(id, _elements(inner.args[0])))
    uses = [n for n in walk(node) if isinstance(n, ast.Name) and n.id in changed]
    return bool(uses) and all(id(n) in keys for n in uses)


def _elements(key: ast.expr) -> list[ast.expr]:
    return [key, *key.elts] if isinstance(key, ast.Tuple) else [key]


def rereadable(value: ast.expr) -> bool:
    """Whether evaluating `value` again gives what it gave, as long as nothing it reads changed:
    names, attributes, items, constants and operators on them, builtin readers (`len(x)`) and
    lookups (`d.get(k)`); any other call may give something else each time (`sock.recv()`)."""
    for node in walk(value):
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if not (name in READERS or (isinstance(node.func, ast.Attribute) and node.func.attr == "get")):
                return False
        elif isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, *_COMPREHENSIONS)):
            return False
    return True


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SIMPLE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Raise, ast.Pass, ast.Import, ast.ImportFrom)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def changed_in_loop(loop: ast.stmt, memo: dict[int, frozenset[str]], is_log: Callable[[str | None], object]) -> frozenset[str]:
    """The locals (and `self.x`) a loop's body binds or changes by its statements (assignments and
    calls made for their effect): on the next iteration their value is not the one that reached
    the loop. `memo` keeps each loop's answer, nested loops' included, so a function is read once."""
    if id(loop) not in memo:
        memo[id(loop)] = frozenset(_changed(loop.body, memo, is_log))  # type: ignore[attr-defined]
    return memo[id(loop)]


def _changed(body: list[ast.stmt], memo: dict[int, frozenset[str]], is_log: Callable[[str | None], object],
             rebound: set[str] | None = None) -> set[str]:
    """What `body` binds or changes; `rebound`, when given, gathers those it may bind anew (not
    only change in place; a nested loop's count as bound)."""
    found: set[str] = set()
    for stmt in body:
        bound, changed = assigned_by(stmt)
        found.update(bound)
        found.update(changed)
        call = effect_call(stmt)
        if call is not None:
            found.update(mutated_by_call(call, is_log, True))
        if rebound is not None:
            rebound.update(bound)
        if isinstance(stmt, _SIMPLE) or isinstance(stmt, SCOPES):
            continue
        if isinstance(stmt, _LOOPS):
            looped = changed_in_loop(stmt, memo, is_log)
            found |= looped
            if rebound is not None:
                rebound.update(looped)
            found |= _changed(stmt.orelse, memo, is_log, rebound)
        else:
            for block in child_blocks(stmt):
                found |= _changed(block, memo, is_log, rebound)
    return found


def effect_call(stmt: ast.stmt) -> ast.Call | None:
    """The call a statement makes for its effect alone (`f(x)`, `await f(x)`), if it is one."""
    if isinstance(stmt, ast.Expr):
        value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
        return value if isinstance(value, ast.Call) else None
    return None


def nested_exits(stmt: ast.If | ast.With | ast.AsyncWith, is_log: Callable[[str | None], object]) -> list[tuple[list[ast.expr], bool]]:
    """The exits nested in an `if` or `with` that does not always leave, each as the conjunction of
    the tests on the way to it, which must not all hold past the statement: `if A: ...; with lock:
    if B: ...; continue` gives `[A, B]`; an `else` takes the negated test, and an `assert T` leaves
    when `not T`. A block that always leaves is a term of its own already (`if A: return` gives
    `not A`), so the tests of the other block's exits go without it; a `with` adds no test (its
    body runs, unless it swallows exceptions). Kept only when nothing the path runs after a test
    changes what that test reads; with whether the exit raises."""
    found: list[tuple[list[ast.expr], bool]] = []

    def leave(tests: list[tuple[ast.expr, list[ast.stmt]]], test: ast.expr, raised: bool, rest: list[ast.stmt]) -> None:
        """An exit taken when `test` holds after the enclosing `tests`."""
        if all(unchanged_by(t, later, is_log) for t, later in [*tests, (test, rest)]):
            path = [c for t in [*(outer for outer, _ in tests), test] for c in conjuncts(t)]
            if path:
                found.append((path, raised))

    def visit(body: list[ast.stmt], tests: list[tuple[ast.expr, list[ast.stmt]]], after: list[ast.stmt]) -> None:
        """`tests`: the enclosing tests, each with what runs after it on the way out of `stmt`."""
        for index, inner in enumerate(body):
            rest = body[index + 1:] + after
            if isinstance(inner, ast.Assert):
                leave(tests, negate(inner.test), True, rest)
            elif isinstance(inner, (ast.With, ast.AsyncWith)) and not suppresses(inner):
                visit(inner.body, tests, rest)
            elif isinstance(inner, ast.If):
                for block, test in ((inner.body, inner.test), (inner.orelse, negate(inner.test))):
                    if block and always_exits(block):
                        leave(tests, test, isinstance(block[-1], ast.Raise), rest)
                    elif block:
                        visit(block, [*tests, (test, block + rest)], rest)

    if isinstance(stmt, ast.If):
        body_exits, else_exits = always_exits(stmt.body, (stmt.test,)), bool(stmt.orelse) and always_exits(stmt.orelse)
        if not body_exits:
            visit(stmt.body, [] if else_exits else [(stmt.test, stmt.body)], [])
        if not else_exits:
            visit(stmt.orelse, [] if body_exits else [(negate(stmt.test), stmt.orelse)], [])
    elif not suppresses(stmt):
        visit(stmt.body, [], [])
    return found


def unchanged_by(test: ast.expr, later: list[ast.stmt], is_log: Callable[[str | None], object]) -> bool:
    """Whether what `test` reads (locals, `self.x`) keeps its value through `later` on the way on
    past it: a block that always leaves never runs on, so what it changes does not count."""
    reads = {key for key in map(key_of, walk(test)) if key}
    rebound: set[str] = set()
    touched = reads & _changed(_passing(later), {}, is_log, rebound)
    return all(key not in rebound and _identity_only(test, key) for key in touched)


def _identity_only(test: ast.expr, key: str) -> bool:
    """Whether `test` reads `key` only in `is` / `is not` comparisons (`x is None`): a change of
    the object in place leaves which object it is as it was."""
    operands: set[int] = set()
    for node in walk(test):
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            operands.update(map(id, [node.left, *node.comparators]))
    return all(id(node) in operands for node in walk(test) if key_of(node) == key)


def _passing(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` as the way on past it runs it: each `if` or `else` block that always leaves emptied,
    at any depth of `if`s and `with`s."""
    kept: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            stmt = ast.If(stmt.test, [] if always_exits(stmt.body) else _passing(stmt.body),
                          [] if always_exits(stmt.orelse) else _passing(stmt.orelse))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            stmt = ast.With(stmt.items, _passing(stmt.body))
        kept.append(stmt)
    return kept
