"""Conditions as SMT formulas: whether a trigger can hold, and which setting values rule it out.

The one place where Python conditions (as the analysis prints them) meet z3. A leaf of a condition
(a name, attribute, call or subscript) is a variable named by its code, of the sort its use asks
for: `x > 1` an integer, `x == 'a'` a string, `if x:` a boolean, `x is None` a boolean of its own.
Anything the encoding does not model (a quantifier, `isinstance`, a call with a side condition) is
an opaque boolean named by its code. Each such choice only adds freedom, so `unsat` is a proof that
the condition cannot hold (given that one piece of code has one value at one point), while `sat`
only says that nothing here rules it out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache

import z3

from errscan.extract.astutil import walk
from errscan.extract.conditions import parse_expression
from errscan.extract.unparse import fast_unparse

# Per check: conditions are small (vLLM 0.27.1's take at most ~2,300 units), and a slow one is
# `unknown`, not a wait. The limit counts z3's own work units, not seconds, so the answer does not
# depend on how loaded the machine is; the wall-clock timeout is only a safety net.
RESOURCE_LIMIT = 1_000_000  # about 0.3 s of one core
TIMEOUT_MS = 10_000
Value = bool | int | str | None


def _conjunction(parts: list[z3.BoolRef]) -> z3.BoolRef:
    """`z3.And(parts)`, the same term; made directly of Boolean terms, past the checks and
    conversions z3's Python API makes of each part (a third of the encoding's time). Parts of
    another kind or context go through `z3.And`, which converts or refuses them."""
    ctx = parts[0].ctx if parts else None
    if not parts or not all(isinstance(part, z3.BoolRef) and part.ctx is ctx for part in parts):
        return z3.And(parts)
    return z3.BoolRef(z3.Z3_mk_and(ctx.ref(), len(parts), (z3.Ast * len(parts))(*(part.as_ast() for part in parts))), ctx)


class _Opaque(Exception):
    """The node has no model here; the caller treats it as an opaque boolean."""


@dataclass
class Encoding:
    """One or more conditions over shared variables (the same code is the same variable)."""

    variables: dict[tuple[str, str], z3.ExprRef] = field(default_factory=dict)  # (code, sort) -> var
    facts: list[z3.BoolRef] = field(default_factory=list)  # `len(x) >= 0` and the like
    ctx: z3.Context | None = None  # None: z3's main context, shared by every such encoding

    def formula(self, code: str) -> z3.BoolRef:
        node = parse_expression(code)
        return self._bool(node) if node is not None else self._var(code, "bool")

    # sorts
    def _var(self, code: str, sort: str) -> z3.ExprRef:
        key = (code, sort)
        if key not in self.variables:
            name = f"{sort}:{code}"
            made = {"bool": z3.Bool, "int": z3.Int, "str": z3.String, "real": z3.Real}[sort](name, self.ctx)
            self.variables[key] = made
            if code.startswith("len(") and sort == "int":
                self.facts.append(made >= 0)
            self._sized(code, sort)
        return self.variables[key]

    def _sized(self, code: str, sort: str) -> None:
        """An object the condition takes the length of is true exactly when it holds something
        (`not x` and `len(x) != 0` cannot both hold): the truth of a sized object without `__bool__`."""
        if sort == "int" and code.startswith("len("):
            tree = parse_expression(code)
            if not (isinstance(tree, ast.Call) and len(tree.args) == 1 and not tree.keywords):
                return
            sized, count = fast_unparse(tree.args[0]), self.variables[(code, sort)]
        elif sort == "bool":
            sized, count = code, self.variables.get((f"len({code})", "int"))
        else:
            return
        truth = self.variables.get((sized, "bool")) if sort == "int" else self.variables[(code, sort)]
        if truth is not None and count is not None:
            self.facts.append(truth == (count > 0))

    def _bool(self, node: ast.expr) -> z3.BoolRef:
        try:
            return self._bool_or_raise(node)
        except _Opaque:
            return self._var(fast_unparse(node), "bool")

    def _bool_or_raise(self, node: ast.expr) -> z3.BoolRef:
        if isinstance(node, ast.BoolOp):
            parts = [self._bool(v) for v in node.values]
            return _conjunction(parts) if isinstance(node.op, ast.And) else z3.Or(parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return z3.Not(self._bool(node.operand))
        if isinstance(node, ast.Constant):
            return z3.BoolVal(bool(node.value), self.ctx)
        if written_size(node) is not None:  # a collection written out is true when it holds an item
            return z3.BoolVal(written_size(node) > 0, self.ctx)
        if isinstance(node, ast.Compare):
            return _conjunction([self._compare(a, op, b) for a, op, b in _pairs(node)])
        if isinstance(node, ast.IfExp):
            return z3.If(self._bool(node.test), self._bool(node.body), self._bool(node.orelse))
        invariant = _any_invariant(node)
        if invariant:  # `any(a(x) and b for x in xs)` holds only if `b` does
            return z3.And(self._var(fast_unparse(node), "bool"), *(self._bool(part) for part in invariant))
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
                return self._int(node) > 0  # a container is true when it holds something
            return self._var(fast_unparse(node), "bool")
        raise _Opaque

    def _compare(self, left: ast.expr, op: ast.cmpop, right: ast.expr) -> z3.BoolRef:
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not _is_none(right):
                raise _Opaque
            unset = self._var(f"{fast_unparse(left)} is None", "bool")
            return unset if isinstance(op, ast.Is) else z3.Not(unset)
        if isinstance(op, (ast.In, ast.NotIn)):
            options = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else None
            if options is None or not all(isinstance(o, (ast.Constant, ast.Name, ast.Attribute)) for o in options):
                raise _Opaque
            inside = z3.Or([self._compare(left, ast.Eq(), o) for o in options]) if options else z3.BoolVal(False, self.ctx)
            return inside if isinstance(op, ast.In) else z3.Not(inside)
        sort = _sort_of(left) or _sort_of(right) or "int"
        a, b = self._term(left, sort), self._term(right, sort)
        if isinstance(op, ast.Eq):
            return a == b
        if isinstance(op, ast.NotEq):
            return a != b
        if sort not in ("int", "real"):
            raise _Opaque
        return {ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b}[type(op)]

    def _term(self, node: ast.expr, sort: str) -> z3.ExprRef:
        if isinstance(node, ast.IfExp):  # an inlined helper's returns (`helpers.py`)
            return z3.If(self._bool(node.test), self._term(node.body, sort), self._term(node.orelse, sort))
        if sort == "str":
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return z3.StringVal(node.value, self.ctx)
            return self._leaf(node, "str")
        if sort == "bool":
            return self._bool(node)
        return self._int(node) if sort == "int" else self._real(node)

    def _int(self, node: ast.expr) -> z3.ArithRef:
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int)):
            return z3.IntVal(int(node.value), self.ctx)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self._int(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and written_size(node.args[0]) is not None:
            return z3.IntVal(written_size(node.args[0]), self.ctx)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](self._int(node.left), self._int(node.right))
        return self._leaf(node, "int")

    def _real(self, node: ast.expr) -> z3.ArithRef:
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
            return z3.RealVal(node.value, self.ctx)
        if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult):
            return _ARITHMETIC[type(node.op)](self._real(node.left), self._real(node.right))
        return self._leaf(node, "real")

    def _leaf(self, node: ast.expr, sort: str) -> z3.ExprRef:
        node = _unwrapped(node)
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            return self._var(fast_unparse(node), sort)
        raise _Opaque


_CONVERSIONS = frozenset({"str", "int", "float"})
_CASE = frozenset({"lower", "upper", "strip"})


def _any_invariant(node: ast.expr) -> list[ast.expr]:
    """The parts of an `any(...)` generator's test that no loop variable enters: each must hold
    for the `any` to hold (the rest stays one opaque truth value)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "any"
            and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)):
        return []
    generator = node.args[0]
    bound = {n.id for g in generator.generators for n in walk(g.target) if isinstance(n, ast.Name)}
    tests = [generator.elt, *(test for g in generator.generators for test in g.ifs)]
    parts = [v for t in tests for v in (t.values if isinstance(t, ast.BoolOp) and isinstance(t.op, ast.And) else [t])]
    return [p for p in parts if not {n.id for n in walk(p) if isinstance(n, ast.Name)} & bound]


def _unwrapped(node: ast.expr) -> ast.expr:
    """`str(x)`, `int(x)` and `x.lower()` are read as `x`: settings are compared that way, and a
    fix built from the compared constant (already in that form) stays right."""
    while isinstance(node, ast.Call) and not node.keywords:
        if isinstance(node.func, ast.Name) and node.func.id in _CONVERSIONS and len(node.args) == 1:
            node = node.args[0]
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _CASE and not node.args:
            node = node.func.value
        else:
            break
    return node


_ARITHMETIC = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a / b,  # z3's integer division rounds toward minus infinity too
    ast.Mod: lambda a, b: a % b,
}


def _pairs(node: ast.Compare) -> list[tuple[ast.expr, ast.cmpop, ast.expr]]:
    operands = [node.left, *node.comparators]
    return [(operands[i], op, operands[i + 1]) for i, op in enumerate(node.ops)]


def written_size(node: ast.expr | None) -> int | None:
    """How many items a collection written out holds (`(a, b)`, `{"k": v}`); None for anything else
    or one with `*`/`**` items, whose size is not written."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return len(node.elts)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return len(node.keys)
    return None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _sort_of(node: ast.expr) -> str | None:
    """The sort a constant or arithmetic operand fixes for a comparison; None when it does not."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, int):
            return "int"
        if isinstance(value, float):
            return "real"
        if isinstance(value, str):
            return "str"
    if isinstance(node, (ast.BinOp, ast.UnaryOp)) and not isinstance(getattr(node, "op", None), ast.Not):
        return "int"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return "int"
    if isinstance(node, ast.IfExp):
        return _sort_of(node.body) or _sort_of(node.orelse)
    return None


def _check(solver: z3.Solver) -> bool | None:
    result = solver.check()
    return True if result == z3.sat else False if result == z3.unsat else None


def _solver(encoding: Encoding, *formulas: z3.BoolRef) -> z3.Solver:
    solver = z3.Solver(ctx=encoding.ctx)
    _limit(solver)
    solver.add(*encoding.facts, *formulas)
    return solver


def _limit(solver: z3.Solver) -> z3.Solver:
    solver.set("rlimit", RESOURCE_LIMIT)
    solver.set("timeout", TIMEOUT_MS)
    return solver


_SHARED: list[z3.Solver] = []  # one solver for every yes/no check: making one costs more than a check


def _holds(encoding: Encoding, *formulas: z3.BoolRef) -> bool | None:
    """Whether the formulas can hold together, on the shared solver (its state is restored)."""
    if not _SHARED:
        _SHARED.append(_limit(z3.Solver()))
    solver = _SHARED[0]
    solver.push()
    try:
        solver.add(*encoding.facts, *formulas)
        return _check(solver)
    finally:
        solver.pop()


@lru_cache(maxsize=1 << 14)
def satisfiable(*codes: str) -> bool | None:
    """Whether all of `codes` can hold together: True, False (proved impossible) or None (unknown)."""
    encoding = Encoding()
    formulas = [encoding.formula(code) for code in codes]
    return _holds(encoding, *formulas)


def one_of(leaf: str, names: tuple[str, ...]) -> str:
    """`leaf` equal to one of the named constants `names` (an Enum's members), as a condition the
    encoding reads: the disjunction of `leaf == name`, names free to be equal to each other."""
    return f"{leaf} in ({', '.join(names)},)"


def value_of(leaf: str, value: Value) -> ast.expr:
    """`leaf == value` (`leaf is None` for None) as an expression the encoding reads."""
    target = parse_expression(leaf)
    if target is None:
        raise ValueError(f"not an expression: {leaf}")
    if value is None:
        return ast.Compare(target, [ast.Is()], [ast.Constant(None)])
    is_set = ast.Compare(target, [ast.IsNot()], [ast.Constant(None)])
    if isinstance(value, bool):
        return ast.BoolOp(ast.And(), [is_set, target if value else ast.UnaryOp(ast.Not(), target)])
    return ast.BoolOp(ast.And(), [is_set, ast.Compare(target, [ast.Eq()], [ast.Constant(value)])])


def rules_out(condition: str, assignment: dict[str, Value], keep: tuple[str, ...] = ()) -> bool:
    """Whether setting the leaves as `assignment` says makes `condition` impossible (for every value
    of everything else), while `keep` (the checks earlier on the same path) can still all pass."""
    encoding = Encoding()
    chosen = [encoding._bool(value_of(leaf, value)) for leaf, value in assignment.items()]
    if _holds(encoding, encoding.formula(condition), *chosen) is not False:
        return False
    if keep and _holds(encoding, *(encoding.formula(k) for k in keep), *chosen) is False:
        return False
    return True


def example_values(condition: str, leaves: tuple[str, ...]) -> dict[str, Value] | None:
    """Values of `leaves` under which `condition` can hold (a model), None when none is found;
    whole numbers positive where the condition allows it, as sizes and counts are.

    In a context of its own: which model z3 gives depends on what its context was asked before,
    and the answer must not depend on which other errors (or processes) came first."""
    encoding = Encoding(ctx=z3.Context())
    solver = _solver(encoding, encoding.formula(condition))
    numbers = [var for (code, sort), var in encoding.variables.items() if code in leaves and sort == "int"]
    solver.push()
    solver.add(*(var >= 1 for var in numbers))
    if _check(solver) is not True:
        solver.pop()
        if _check(solver) is not True:
            return None
    model = solver.model()
    found: dict[str, Value] = {}
    for (code, sort), var in encoding.variables.items():
        if code in leaves and sort != "bool":
            found[code] = _python(model.eval(var, model_completion=True))
        elif sort == "bool" and code in leaves:
            found[code] = bool(z3.is_true(model.eval(var, model_completion=True)))
    return found


def _python(value: z3.ExprRef) -> Value:
    if z3.is_int_value(value):
        return value.as_long()
    if z3.is_string_value(value):
        return value.as_string()
    if z3.is_true(value) or z3.is_false(value):
        return z3.is_true(value)
    return str(value)
