"""Path conditions: what must hold on the way from a function's entry to a statement.

A condition is a tuple of `Term`s, all of which must hold. A term is one Python expression, kept in
three forms: `raw` as the code states it, `code` with locals that hold a computed value replaced by
their single dominating assignment (what a reader wants), and `deep` with every such local replaced,
aliases included (what knob detection needs). A loop term (`for g in groups`) quantifies the terms
after it: rendered, `any(<those terms> for g in groups)`. Where the code cannot be stated as a plain
expression (an exception raised by a guarded call, a `match` pattern) the term uses the documented
pseudo-calls `raises(E, <calls>)` and `matches(<subject>, <pattern>)`; see docs/conditions.md.
"""

from __future__ import annotations

import ast
import copy
import re
from functools import cached_property, lru_cache
from dataclasses import dataclass

from errscan.extract.astutil import walk
from errscan.extract.unparse import Unparser, fast_unparse

_INVERSE = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
    ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
PSEUDO_CALLS = frozenset({"raises", "matches"})  # the calls a pseudo term makes: no name of the code
_NAMES = re.compile(r"(?<![\w.'\"])(self\.\w+|[A-Za-z_]\w*)")
_WORDS = re.compile(r"\w+")
_CONTAINERS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_ATOMIC = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
_COMPUTED = (ast.Call, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.NamedExpr, ast.IfExp)


@dataclass(frozen=True)
class Binding:
    """A local's single dominating assignment; one made inside a loop body changes each iteration,
    so even a plain alias of it is substituted (it means nothing outside the loop's quantifier)."""

    value: ast.expr
    per_iteration: bool = False
    # A local assigned more than once: never substituted where it is read, but a term that read it
    # is restated with this value when the local is bound anew (`dataflow.forget`).
    reassigned: bool = False
    # Bound anew from its own earlier value (`x = f(x)`): stated by its value wherever it is read,
    # in every form, so that the name keeps meaning the earlier value the terms before speak of.
    itself: bool = False
    # A collection filled in a loop: `value` is the comprehension it equals (`filled.py`), said in
    # full only where its size is tested (`_sized`); what iterates its items keeps the name.
    filled: bool = False

    @cached_property
    def reads(self) -> frozenset[str]:
        """The locals (and `self.x`) the value reads: it means something else once one is rebound."""
        found = set()
        for node in walk(self.value):
            if type(node) is ast.Name:
                found.add(node.id)
            elif type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
                found.add(f"self.{node.attr}")
        return frozenset(found)

    @cached_property
    def callees(self) -> tuple[str, ...]:
        """What the value calls, printed, but builtin readers and `.get` (`_calls_again`): kept
        with the binding, as every term printed with it asks again."""
        return tuple(fast_unparse(node.func) for node in walk(self.value) if isinstance(node, ast.Call)
                     and not (isinstance(node.func, ast.Name) and node.func.id in READERS)
                     and not (isinstance(node.func, ast.Attribute) and node.func.attr == "get"))


Env = dict[str, Binding]


@dataclass(frozen=True)
class Term:
    code: str
    raw: str
    deep: str
    loop: bool = False  # a `for` term: `code` is `<target> in <iter>`
    pseudo: bool = False  # a raises()/matches() term, not plain Python
    other_error: bool = False  # `not X` where `if X:` raised another error earlier on the way

    @cached_property
    def names(self) -> frozenset[str]:
        """The locals and `self.x` the term reads as the code states it (a later change of one
        leaves the term about a value that is gone)."""
        return frozenset(_NAMES.findall(self.raw))


Condition = tuple[Term, ...]


def render(terms: Condition, form: str = "code") -> str | None:
    """One Python expression for a condition: `and` of the terms, loops quantifying what follows."""
    parts: list[str] = []
    for i, term in enumerate(terms):
        text = getattr(term, form)
        if term.loop:
            inner = render(terms[i + 1 :], form)
            parts.append(f"any({_wrap(inner) if inner else 'True'} for {text})")
            break
        parts.append(_wrap(text) if len(terms) > 1 else text)
    return " and ".join(parts) if parts else None


@lru_cache(maxsize=1 << 16)
def parse_expression(text: str) -> ast.expr | None:
    """`text` parsed as one expression, None when it is not one. The analysis reads the same
    condition texts many times over (knobs, words, negations), so trees are shared: never mutate one."""
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def guarded_statements(code: str) -> list[ast.expr]:
    """The statements a `raises(E, <statement>, ...)` term guards, as expressions; [] for any other term."""
    tree = parse_expression(code)
    if not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "raises"):
        return []
    return tree.args[1:]


@lru_cache(maxsize=1 << 14)
def free_names(code: str) -> frozenset[str]:
    """The free names `code` reads (those a comprehension or lambda binds left out)."""
    tree = parse_expression(code)
    if tree is None:
        return frozenset({"<unparsed>"})
    bound = {n.id for n in walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}
    return frozenset(n.id for n in walk(tree) if isinstance(n, ast.Name) and n.id not in bound)


@lru_cache(maxsize=1 << 16)
def _wrap(text: str) -> str:
    """Parenthesize an `or`/`if-else`/lambda so it stays one operand of `and`."""
    node = parse_expression(text)
    if node is None:
        return f"({text})"
    if isinstance(node, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)) and not (
        isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)
    ):
        return f"({text})"
    return text


def negate(node: ast.expr) -> ast.expr:
    """`not node`, simplified: double negation, inverted comparisons, De Morgan on simple operands."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _INVERSE:
        return ast.Compare(node.left, [_INVERSE[type(node.ops[0])]()], node.comparators)
    if isinstance(node, ast.NamedExpr):
        return negate(node.value)
    if isinstance(node, ast.BoolOp) and len(node.values) <= 3 and all(_negates_cleanly(v) for v in node.values):
        flipped = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return ast.BoolOp(flipped, [negate(v) for v in node.values])
    return ast.UnaryOp(ast.Not(), node)


def _negates_cleanly(node: ast.expr) -> bool:
    if isinstance(node, (ast.Name, ast.Attribute)):
        return True  # `not flag` reads as well as `flag`
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _INVERSE


def conjuncts(node: ast.expr) -> list[ast.expr]:
    """Top-level `and` operands; a walrus stands for its value, and a true constant (`while True`)
    is none."""
    if isinstance(node, ast.Constant) and node.value:
        return []
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [c for v in node.values for c in conjuncts(v)]
    if isinstance(node, ast.NamedExpr):
        return [node.value]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        simpler = negate(node.operand)  # `not a == b` -> `a != b`, De Morgan where it reads better
        return conjuncts(simpler) if not (isinstance(simpler, ast.UnaryOp) and simpler.operand is node.operand) else [node]
    return [node]


def is_computed(value: ast.expr) -> bool:
    """A local worth substituting in `code`: it holds a computed value, not an alias of a name."""
    return isinstance(value, _COMPUTED)


# Calls that only read their arguments.
READERS = frozenset({
    "abs", "all", "any", "bool", "callable", "dict", "enumerate", "float", "format", "frozenset", "getattr",
    "hasattr", "hash", "id", "int", "isinstance", "issubclass", "iter", "len", "list", "max", "min", "print",
    "range", "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple", "type", "zip",
})


class _SubstitutingUnparser(Unparser):
    """Prints an expression with locals replaced by their single dominating assignment.

    Printing the replacement in place, instead of copying and rewriting the tree, keeps this cheap
    enough to run on every condition of a whole package.
    """

    def __init__(self, env: Env | None = None, only_computed: bool = True, depth: int = 0,
                 around: tuple[ast.expr, ...] = (), **unparser_options):
        super().__init__(**unparser_options)
        self._env = env or {}
        self._only_computed = only_computed
        self._depth = depth
        self._around = around  # the printed expression, then each value put in on the way to this one
        self._around_callees: frozenset[str] | None = None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and f"{node.value.id}.{node.attr}" in self._env:
            self._substitute(node, f"{node.value.id}.{node.attr}")
        else:
            super().visit_Attribute(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._substitute(node, node.id)

    def _substitute(self, node: ast.Name | ast.Attribute, key: str) -> None:
        binding = self._env.get(key)
        value = binding.value if binding else None
        if binding is not None and binding.itself and isinstance(node.ctx, ast.Load):
            earlier = {k: b for k, b in self._env.items() if k != key}  # the name in the value is the earlier one
            text = _SubstitutingUnparser(earlier, self._only_computed, self._depth + 1, (*self._around, value)).visit(value)
            self.write(text if isinstance(value, _ATOMIC) else f"({text})")
            return
        if (
            value is None
            or not isinstance(node.ctx, ast.Load)
            or self._depth > 4
            or isinstance(value, _CONTAINERS)  # a list built up later: its first value says nothing
            or binding.reassigned
            or (self._only_computed and not is_computed(value) and not binding.per_iteration)
            or (self._only_computed and self._calls_again(binding))
        ):
            self.write(key)
            return
        text = _SubstitutingUnparser(self._env, self._only_computed, self._depth + 1, (*self._around, value)).visit(value)
        self.write(text if isinstance(value, _ATOMIC) else f"({text})")

    def _calls_again(self, binding: Binding) -> bool:
        """Whether the value calls what the printed expression (or a value already put into it)
        calls itself: `deadline = time.monotonic() + t` then `time.monotonic() > deadline` printed
        with the value in place would read as one clock compared with itself, and so would `t0 =
        time.perf_counter()` inside `elapsed = time.perf_counter() - t0`. The shown form keeps the
        name; the deep form, which finds settings, still reads through it."""
        callees = binding.callees
        if not callees or not self._around:
            return False
        if self._around_callees is None:
            self._around_callees = frozenset(fast_unparse(node.func) for expression in self._around
                                             for node in walk(expression) if isinstance(node, ast.Call))
        return not self._around_callees.isdisjoint(callees)


def unparse(node: ast.AST) -> str:
    """`ast.unparse`, which on Python < 3.12 cannot print some f-strings with backslashes."""
    try:
        return fast_unparse(node)
    except ValueError:
        return "<expression errscan cannot print>"


def _substituted(node: ast.expr, env: Env, only_computed: bool) -> str:
    try:
        return _SubstitutingUnparser(env, only_computed, around=(node,)).visit(node)
    except ValueError:
        return unparse(node)


def _may_read(text: str, env: Env) -> bool:
    """Whether a printed expression may read a key of `env` (`x`, `x.attr`): every name in it is
    a word of its text. Cheaper than walking its tree; a word that is no name (in a string, say)
    only costs printing it again, with nothing to substitute."""
    words = set(_WORDS.findall(text))
    return any(key.partition(".")[0] in words for key in env)


def make_term(node: ast.expr, env: Env) -> Term:
    raw = unparse(node)
    if not env or not _may_read(raw, env):
        return Term(raw, raw, raw)
    own = {key: binding for key, binding in env.items() if binding.itself}
    if own and _may_read(raw, own):
        raw = _substituted(node, own, False)
    node = _sized(node, env)
    return Term(_substituted(node, env, True), raw, _substituted(node, env, False))


def deep_text(node: ast.expr, env: Env) -> str:
    """`make_term(node, env).deep` alone, for what needs no other form (what a `return` gives):
    one substituting print instead of three."""
    raw = unparse(node)
    if not env or not _may_read(raw, env):
        return raw
    return _substituted(_sized(node, env), env, False)


_SOME = {ast.Gt: 0, ast.GtE: 1, ast.NotEq: 0}  # `len(c) > 0`, `len(c) >= 1`, `len(c) != 0`
_NONE = {ast.LtE: 0, ast.Lt: 1, ast.Eq: 0}


def _sized(node: ast.expr, env: Env) -> ast.expr:
    """A size test of a collection filled in a loop, said of the loop's items: whether it is empty
    (`if found:`, `len(found) > 0`) reads `any(<tests> for x in xs)` (`not any(...)`); any other
    `len(c)` reads `len(<the comprehension c equals>)`."""
    filled = {key: b.value for key, b in env.items() if b.filled}
    if not filled:
        return node
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    subject, some = (node.operand, False) if negated else (node, True)
    if isinstance(subject, ast.Compare) and len(subject.ops) == 1 and isinstance(subject.comparators[0], ast.Constant) \
            and _length_of(subject.left, filled):
        op, bound = type(subject.ops[0]), subject.comparators[0].value
        if _SOME.get(op, -1) == bound or _NONE.get(op, -1) == bound:
            subject, some = subject.left.args[0], (op in _SOME) == some  # type: ignore[attr-defined]
    value = filled.get(subject.id) if isinstance(subject, ast.Name) else None
    if value is not None and value.generators[0].ifs:  # type: ignore[attr-defined]
        (generator,) = value.generators  # type: ignore[attr-defined]
        test = generator.ifs[0] if len(generator.ifs) == 1 else ast.BoolOp(ast.And(), generator.ifs)
        each = ast.GeneratorExp(test, [ast.comprehension(generator.target, generator.iter, [], 0)])
        found = ast.Call(ast.Name("any", ast.Load()), [each], [])
        return found if some else ast.UnaryOp(ast.Not(), found)

    class Lengths(ast.NodeTransformer):
        def visit_Call(self, call: ast.Call) -> ast.expr:
            if _length_of(call, filled):
                return ast.Call(call.func, [filled[call.args[0].id]], [])  # type: ignore[attr-defined]
            return self.generic_visit(call)

    return Lengths().visit(copy.deepcopy(node))


def _length_of(node: ast.expr, filled: dict[str, ast.expr]) -> bool:
    """Whether `node` is `len(c)` of a collection of `filled`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
        and isinstance(node.args[0], ast.Name) and node.args[0].id in filled


def restated(term: Term, values: Env) -> Term:
    """`term` with each local of `values` replaced by the value it held where the term was read:
    what the term said stays true once the local is bound anew."""
    plain = {key: Binding(binding.value, True, itself=binding.itself) for key, binding in values.items()}
    forms = []
    for text in (term.code, term.raw, term.deep):
        node = parse_expression(text)
        forms.append(text if node is None else _substituted(node, plain, False))
    return Term(*forms, pseudo=term.pseudo, other_error=term.other_error)


def as_stated(term: Term, env: Env) -> Term:
    """A term printed from the code's text (`raises(...)`, `matches(...)`) with the locals bound
    anew from themselves stated by their value, as `make_term` states them."""
    own = {key: binding for key, binding in env.items() if binding.itself and key in term.names}
    return restated(term, own) if own else term


def loop_term(target: ast.expr, iterable: ast.expr, env: Env) -> Term:
    compare = ast.Compare(target, [ast.In()], [iterable])
    compare.lineno = compare.col_offset = 0
    term = make_term(compare, env)
    return Term(term.code, term.raw, term.deep, loop=True)


def either(conditions: list[Condition]) -> Term:
    """One term that holds when any of the conditions does."""
    if len(conditions) == 1:
        return Term(render(conditions[0]) or "True", render(conditions[0], "raw") or "True", render(conditions[0], "deep") or "True")
    forms = {form: " or ".join(f"({render(c, form)})" for c in conditions) for form in ("code", "raw", "deep")}
    return Term(forms["code"], forms["raw"], forms["deep"], pseudo=any(t.pseudo for c in conditions for t in c))


def pseudo_term(text: str) -> Term:
    return Term(text, text, text, pseudo=True)


def case_term(subject: str, pattern: ast.pattern, env: Env) -> Term:
    """A `case` pattern as plain Python where it is a value or a bare class, else `matches(...)`."""
    if isinstance(pattern, ast.MatchValue):
        return make_term(ast.parse(f"{subject} == {unparse(pattern.value)}", mode="eval").body, env)
    if isinstance(pattern, ast.MatchClass) and not pattern.patterns and not pattern.kwd_patterns:
        return make_term(ast.parse(f"isinstance({subject}, {unparse(pattern.cls)})", mode="eval").body, env)
    return pseudo_term(f"matches({subject}, {unparse(pattern)})")
