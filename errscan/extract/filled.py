"""A collection filled in a loop, read as the comprehension it amounts to.

`layouts = set(); for c, t in pairs: required = c.layout(t); if required is not None:
layouts.add(required)` leaves `layouts` equal to `{required for (c, t) in pairs if (required :=
c.layout(t)) is not None}`. A later test of its size (`len(layouts) > 1`) is then a statement about
the loop's items, which a reader (and the knob search) can follow back to what the loop iterates;
the local alone names nothing. Only plain loops are read: assignments, `if`s, `continue` and one
`add`/`append` per collection; anything else may change the collection in ways a comprehension
does not state.
"""

from __future__ import annotations

import ast
import copy

from errscan.extract.astutil import bound_names, walk
from errscan.extract.conditions import Env, negate

_FILLERS = {"set": "add", "list": "append"}


def empty_kind(value: ast.expr) -> str | None:
    """`set` or `list` for an empty one (`set()`, `list()`, `[]`), else None."""
    if isinstance(value, ast.List) and not value.elts:
        return "list"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _FILLERS \
            and not value.args and not value.keywords:
        return value.func.id
    return None


def filled_in(loop: ast.stmt, env: Env) -> dict[str, ast.expr]:
    """The locals of `env` bound to an empty collection that `loop` fills, each with the
    comprehension equal to its value after the loop; {} when the body does more than fill."""
    empty = {key: kind for key, b in env.items() if not b.reassigned and "." not in key and (kind := empty_kind(b.value))}
    if not empty or not isinstance(loop, ast.For) or loop.orelse:
        return {}
    targets = set(bound_names(loop.target))
    reads = {n.id for n in walk(loop.iter) if isinstance(n, ast.Name)}
    body = _Body(empty, loop.body)
    if not body.read(loop.body, [], set()) or not body.adds or reads & (empty.keys() | body.values.keys()):
        return {}
    if targets & body.values.keys() or (targets | body.values.keys()) & env.keys():
        return {}  # the comprehension would bind a name the condition reads as something else
    found = {}
    for key, (tests, item) in body.adds.items():
        ifs, elt = _inlined([*tests, item], body.values)
        generator = ast.comprehension(loop.target, loop.iter, ifs, 0)
        found[key] = ast.SetComp(elt, [generator]) if empty[key] == "set" else ast.ListComp(elt, [generator])
    return found


class _Body:
    """What a loop body assigns (`values`) and adds to each collection, under which tests (`adds`)."""

    def __init__(self, empty: dict[str, str], body: list[ast.stmt]):
        self.empty = empty
        self.values: dict[str, ast.expr] = {}
        self.adds: dict[str, tuple[list[ast.expr], ast.expr]] = {}
        self.assigned = {n.id for stmt in body for n in walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def read(self, body: list[ast.stmt], tests: list[ast.expr], known: set[str]) -> bool:
        """`known`: the body's locals assigned on the way to `body` (a read of another would be of
        the previous iteration's value)."""
        tests, known = list(tests), set(known)
        for stmt in body:
            if isinstance(stmt, ast.If) and len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Continue) and not stmt.orelse:
                if not self._plain(stmt.test, known):
                    return False
                tests.append(negate(stmt.test))  # the rest of the body runs only when it fails
            elif isinstance(stmt, ast.If):
                if not (self._plain(stmt.test, known) and self.read(stmt.body, [*tests, stmt.test], known)
                        and self.read(stmt.orelse, [*tests, negate(stmt.test)], known)):
                    return False
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and not self._assigned(stmt, known):
                return False
            elif isinstance(stmt, ast.Expr) and not self._added(stmt.value, tests, known):
                return False
            elif not isinstance(stmt, (ast.If, ast.Assign, ast.AnnAssign, ast.Expr, ast.Pass)):
                return False
        return True

    def _plain(self, node: ast.expr, known: set[str]) -> bool:
        """Whether `node` leaves the collections alone (it neither reads nor assigns them) and
        reads only the body's locals assigned before it in this iteration."""
        for n in walk(node):
            if isinstance(n, ast.NamedExpr) or isinstance(n, ast.Name) and (n.id in self.empty or n.id in self.assigned - known):
                return False
        return True

    def _assigned(self, stmt: ast.Assign | ast.AnnAssign, known: set[str]) -> bool:
        """A local bound once in the body, to a value that reads no collection being filled."""
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name) or stmt.value is None:
            return False
        name = targets[0].id
        if name in self.values or name in self.empty or not self._plain(stmt.value, known):
            return False
        self.values[name] = stmt.value
        known.add(name)
        return True

    def _added(self, call: ast.expr, tests: list[ast.expr], known: set[str]) -> bool:
        """`c.add(x)` / `c.append(x)`, once per collection."""
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)):
            return False
        key = call.func.value.id
        if key not in self.empty or call.func.attr != _FILLERS[self.empty[key]] or key in self.adds:
            return False
        if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred) or not self._plain(call.args[0], known):
            return False
        self.adds[key] = (list(tests), call.args[0])
        return True


def _inlined(parts: list[ast.expr], values: dict[str, ast.expr]) -> tuple[list[ast.expr], ast.expr]:
    """The tests and the item (the last of `parts`) with the body's locals put back, in the order the
    comprehension evaluates them: a local read once becomes its value, one read again is bound
    where it is first read (`(x := value)`) and read by name after."""
    uses: dict[str, int] = {}
    pending = list(parts)  # what is printed: the parts, and each used local's value once
    while pending:
        for node in ast.walk(pending.pop()):
            if isinstance(node, ast.Name) and node.id in values:
                uses[node.id] = uses.get(node.id, 0) + 1
                if uses[node.id] == 1:
                    pending.append(values[node.id])
    bound: set[str] = set()

    class Inline(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if node.id not in values or node.id in bound:
                return node
            value = Inline().visit(copy.deepcopy(values[node.id]))
            if uses[node.id] == 1:
                return value
            bound.add(node.id)
            return ast.NamedExpr(ast.Name(node.id, ast.Store()), value)

    done = [Inline().visit(copy.deepcopy(part)) for part in parts]
    return done[:-1], done[-1]
