"""Settings read in helper functions: a condition that calls `is_conv_state_dim_first()` is decided by
the environment variable that function's helper reads.

A helper that takes no arguments and computes its result from what it reads alone (no call left
once its own helpers are inlined) is inlined into the condition's deep form (`inlined`): its
`return`s as `a if c else b`, so the solver sees `envs.X == 'DS'` where the code says
`is_conv_state_dim_first()`, and a fix can name the value.

What a function returns depends on its `return` values and on the conditions under which each
`return` is reached; so the settings read there are the function's, and, up to `MAX_DEPTH` calls
down, those of the functions called in them (on a `return` line, or in such a condition). What a
function does besides (logging, other work) decides nothing about its result and is not read, nor
is a setting it only passes on to another call (`make(cfg.x)`): errscan does not follow arguments.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import replace
from typing import Callable

from errscan.analysis.bindings import substitute
from errscan.analysis.knobs import KnobCatalog, knobs_in
from errscan.analysis.solver import satisfiable
from errscan.extract.astutil import walk
from errscan.extract.conditions import Condition, parse_expression
from errscan.extract.facts import CallFact, ModuleFacts, ReturnFact
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph
from errscan.model import Knob
from errscan.profiles import Profile

MAX_DEPTH = 3
_BUILTINS = frozenset(dir(builtins))


class HelperSettings:
    def __init__(self, graph: CallGraph, catalog: KnobCatalog, profile: Profile):
        self.graph = graph
        self.catalog = catalog
        self.profile = profile
        # module -> scope -> (its returns, its calls by line), built for a module when first needed
        self._bodies: dict[str, dict[str, tuple[list[ReturnFact], dict[int, list[CallFact]]]]] = {}
        self._known: dict[tuple[str, int], tuple[Knob, ...]] = {}
        self._called: dict[tuple[str, str, str, int], list[Knob]] = {}  # many conditions repeat
        self._built: dict[tuple[str, str, str, str], dict[str, str]] = {}  # and many sites' classes

    def called_in(self, expression: str, module: ModuleFacts, scope: str, depth: int = 0) -> list[Knob]:
        """Settings read by the functions of the tree that `expression` (code of `scope`) calls."""
        if "(" not in expression or depth >= MAX_DEPTH:
            return []
        key = (expression, module.module, scope, depth)
        found = self._called.get(key)
        if found is None:
            tree = parse_expression(expression)
            calls = (_dotted(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)) if tree is not None else ()
            found = self._called[key] = [
                knob for callee in calls if callee
                for function in self._functions(module, scope, callee) for knob in self.read_by(function, depth)
            ]
        return found

    def read_by(self, function: str, depth: int = 0) -> tuple[Knob, ...]:
        """Settings `function`'s result depends on (see the module's docstring)."""
        key = (function, depth)
        if key in self._known:
            return self._known[key]
        self._known[key] = ()  # a recursive helper adds nothing more to itself
        fact, module = self.graph.functions[function]
        returns, calls = self._body(module).get(fact.scope, ([], {}))
        own: list[Knob] = []
        deeper: list[Knob] = []
        for ret in returns:
            for source in [t.deep for t in ret.condition if not t.pseudo] + [v for v in (ret.value, ret.deep) if v]:
                own.extend(knobs_in(source, self.catalog, self.profile, arguments=False))
                deeper.extend(self.called_in(source, module, fact.scope, depth + 1))
            for call in calls.get(ret.line, ()):  # what the returned expression is computed from
                if call.literal_args and call.literal_args[0] is not None:
                    own.extend(knobs_in(f"{call.callee}({call.literal_args[0]!r})", self.catalog, self.profile))
                if depth + 1 < MAX_DEPTH:
                    for callee in self._functions(module, fact.scope, call.callee):
                        deeper.extend(self.read_by(callee, depth + 1))
        name = function.rsplit(".", 1)[1]
        found = [Knob(k.kind, k.name, f"{k.detail}, read in {name}()" if k.detail else f"read in {name}()") for k in own]
        self._known[key] = tuple(dict.fromkeys(found + deeper))
        return self._known[key]

    def inlined(self, terms: Condition, module: ModuleFacts, scope: str, keep_settings: bool = False) -> Condition:
        """`terms` with each helper call of their deep form that can be inlined replaced by what it returns;
        with `keep_settings`, a call of a function whose result reads settings alone stays a call
        (`by_settings`): the same call in another function of a chain is then the same term."""
        return tuple(replace(t, deep=self._inline(t.deep, module, scope, keep_settings=keep_settings))
                     if "()" in t.deep and not t.pseudo else t for t in terms)

    def _inline(self, expression: str, module: ModuleFacts, scope: str, depth: int = 0, keep_settings: bool = False) -> str:
        try:
            tree = ast.parse(expression, mode="eval")
        except SyntaxError:
            return expression
        helpers = self

        replaced: list[str] = []

        class _Inline(ast.NodeTransformer):
            def visit_Call(self, node: ast.Call) -> ast.expr:
                self.generic_visit(node)
                callee = None if node.args or node.keywords else _dotted(node.func)
                functions = helpers._functions(module, scope, callee) if callee and callee.split(".")[0] != "cls" else []
                returned = helpers._returned(functions[0], callee, depth) if len(functions) == 1 else None  # type: ignore[arg-type]
                if returned is None or keep_settings and helpers.by_settings(functions[0], returned):
                    return node
                replaced.append(returned)
                return ast.parse(returned, mode="eval").body

        inlined = _Inline().visit(tree)
        return fast_unparse(_Defaulted().visit(inlined)) if replaced else expression

    def by_settings(self, function: str, returned: str) -> bool:
        """Whether `function`, a module-level function that takes no arguments and gives `returned`
        (its `return`s inlined), gives one value wherever a run calls it: `returned` reads nothing but
        attributes of the profile's environment modules (`envs.X`), settings the user fixes before
        the run, as errscan reads them everywhere. So two calls of it on one chain are one term of
        the solver (one code, one variable), however far apart. A helper of a class, or one that
        reads a module's object (which the package may change between the calls), is not."""
        fact, _ = self.graph.functions[function]
        tree = parse_expression(returned)
        if fact.class_qualname is not None or tree is None:
            return False
        modules = {m.rsplit(".", 1)[-1] for m in self.profile.env_modules}
        bases = {id(n.value) for n in walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        names = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
        return bool(names) and all(id(n) in bases and n.id in modules for n in names)

    def _returned(self, function: str, callee: str, depth: int) -> str | None:
        """What a call `callee()` of `function` gives, as one expression over what it reads; None
        when it takes parameters, reads another object's `self`, calls anything, or may fall off
        its end (its last `return` is not the only way left)."""
        fact, module = self.graph.functions[function]
        own_self = fact.class_qualname is not None and "staticmethod" not in fact.decorators
        if depth >= MAX_DEPTH or len(fact.params) != int(own_self) or own_self and callee.split(".")[0] != "self":
            return None
        text = self._returns(module, fact.scope)
        if text is None:
            return None
        text = self._inline(text, module, fact.scope, depth + 1)
        tree = parse_expression(text)
        return text if tree is not None and not any(isinstance(n, ast.Call) for n in walk(tree)) else None

    def applied(self, expression: str, module: ModuleFacts, scope: str, qualify: Callable[[str, str], str | None]) -> str | None:
        """`expression` (code of `scope`) with each call of a helper of the tree that passes arguments
        replaced by what the helper returns, `a if c else b` over its `return`s, its parameters
        replaced by the arguments and its own names by `qualify(code, helper)`; None if it does not parse.
        Only a helper every way out of which is a `return` whose value and conditions read its
        parameters and names of the package alone."""
        try:
            tree = ast.parse(expression, mode="eval")  # its own tree: it is rewritten
        except SyntaxError:
            return None
        helpers = self

        class _Apply(ast.NodeTransformer):
            def visit_Call(self, node: ast.Call) -> ast.expr:
                self.generic_visit(node)
                callee = _dotted(node.func) if node.args or node.keywords else None
                functions = helpers._functions(module, scope, callee) if callee else []
                returned = helpers._given(functions[0], node, qualify) if len(functions) == 1 else None
                return node if returned is None else ast.parse(returned, mode="eval").body

        return fast_unparse(_Apply().visit(tree))

    def _given(self, function: str, call: ast.Call, qualify: Callable[[str, str], str | None]) -> str | None:
        """What `call` of `function` gives, its arguments substituted (see `applied`)."""
        fact, module = self.graph.functions[function]
        params = [name for name, _ in fact.params]
        own = fact.class_qualname is not None and "staticmethod" not in fact.decorators
        head = _dotted(call.func).split(".")[0]  # type: ignore[union-attr]
        skip = int(own and ("classmethod" in fact.decorators or head in ("self", "cls")))
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) or fact.rebound:
            return None
        given = dict(zip(params[skip:fact.positional], (fast_unparse(a) for a in call.args)))
        if skip and isinstance(call.func, ast.Attribute):  # `self`/`cls` is what the method is called on
            given[params[0]] = fast_unparse(call.func.value)
        given.update((k.arg, fast_unparse(k.value)) for k in call.keywords if k.arg in params[skip:])
        given.update((name, default) for name, default in fact.defaults if name not in given)
        text = self._returns(module, fact.scope) if len(given) == len(params) else None
        qualified = qualify(text, function) if text else None
        tree = parse_expression(qualified) if qualified else None
        read = {n.id for n in walk(tree) if isinstance(n, ast.Name)} if tree is not None else {"<unparsed>"}
        if not read <= set(given) | self.graph.index.top_packages | _BUILTINS:
            return None
        return substitute(qualified, {name: f"({value})" for name, value in given.items()})  # type: ignore[arg-type]

    def _returns(self, module: ModuleFacts, scope: str) -> str | None:
        """A function's `return`s as one expression, `a if c else b`; None when it may fall off its
        end (its last `return` is not the only way left) or a `return` is under a loop or a pseudo-term."""
        returns = sorted(self._body(module).get(scope, ([], {}))[0], key=lambda r: r.line)
        if not returns or any(t.loop or t.pseudo for r in returns for t in r.condition):
            return None
        guards = [" and ".join(f"({t.deep})" for t in r.condition) or "True" for r in returns]
        if satisfiable(f"not ({guards[-1]})", *(f"not ({g})" for g in guards[:-1])) is not False:
            return None
        text = f"({returns[-1].expression})"
        for ret, guard in zip(returns[-2::-1], guards[-2::-1]):
            text = f"({ret.expression} if {guard} else {text})"
        return text

    def built_field(self, call: str, field: str, module: ModuleFacts, scope: str) -> str | None:
        """What the object `call` (`Config.from_config()`, code of `scope`) holds in `field`, when the
        function returns `cls(..., field=value)`: a config object a classmethod builds from the settings."""
        callee = call[:-2] if call.endswith("()") else None
        functions = self._functions(module, scope, callee) if callee else []
        if len(functions) != 1:
            return None
        fact, home = self.graph.functions[functions[0]]
        for ret in self._body(home).get(fact.scope, ([], {}))[0]:
            tree = parse_expression(ret.expression) if ret.made else None
            value = next((k.value for k in tree.keywords if k.arg == field), None) if isinstance(tree, ast.Call) else None
            if value is not None:
                return fast_unparse(value)
        return None

    def built_reads(self, attribute: str, made: str, module: ModuleFacts, scope: str) -> dict[str, str]:
        """`self.cfg.x` read in `module`, cfg built by `made`: `cfg.x` -> what the built cfg holds in x."""
        key = (attribute, made, module.module, scope)
        if key not in self._built:
            reads = {c.callee for c in module.calls if c.kind == "read" and c.callee.count(".") == 2 and c.callee.startswith(f"self.{attribute}.")}
            self._built[key] = {read[5:]: built for read in reads if (built := self.built_field(made, read.rsplit(".", 1)[1], module, scope))}
        return self._built[key]

    def _functions(self, module: ModuleFacts, scope: str, callee: str) -> list[str]:
        targets = self.graph.resolve_callee(module, scope, callee, None) or []
        return [t for t, how in targets if t in self.graph.functions and how != "constructor"]

    def _body(self, module: ModuleFacts) -> dict[str, tuple[list[ReturnFact], dict[int, list[CallFact]]]]:
        bodies = self._bodies.get(module.module)
        if bodies is None:
            bodies = self._bodies[module.module] = {}
            for ret in module.returns:
                bodies.setdefault(ret.scope, ([], {}))[0].append(ret)
            for call in module.calls:
                if call.caller in bodies and call.kind == "call":
                    bodies[call.caller][1].setdefault(call.line, []).append(call)
        return bodies


class _Defaulted(ast.NodeTransformer):
    """`(x if x is not None else d) == c` is `x == c` when `d` compares with the constant `c` as
    None does (`d != c`, c not None): an inlined getter's default, left out of what is said."""

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        left, right = node.left, node.comparators[0]
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Eq, ast.NotEq)) or not isinstance(left, ast.IfExp):
            return node
        test, default = left.test, left.orelse
        if not (isinstance(right, ast.Constant) and right.value is not None and isinstance(default, ast.Constant)
                and isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.IsNot) and len(test.ops) == 1
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
                and ast.dump(test.left) == ast.dump(left.body)):
            return node
        if (default.value == right.value) != (None == right.value):  # noqa: E711 (None as the comparison sees it)
            return node
        return ast.Compare(left.body, node.ops, [right])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        """`not a == b` (a helper's `==` under the caller's `not`) as `a != b`."""
        self.generic_visit(node)
        operand = node.operand
        if isinstance(node.op, ast.Not) and isinstance(operand, ast.Compare) and len(operand.ops) == 1 \
                and isinstance(operand.ops[0], (ast.Eq, ast.NotEq)):
            return ast.Compare(operand.left, [ast.NotEq() if isinstance(operand.ops[0], ast.Eq) else ast.Eq()], operand.comparators)
        return node


def _dotted(node: ast.expr) -> str | None:
    """`f`, `mod.f`, `self.f` as text; None for any other callee (`f()()`, `x[0].f`)."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(names)]) if isinstance(node, ast.Name) else None
