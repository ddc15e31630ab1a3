"""The calls of the walk (`collect.py`): each call, function passed along and `self.a.b` read, with
the local aliases (`cls = pick()`) a later call goes through."""

from __future__ import annotations

import ast

from errscan.extract.astutil import argument_text, dotted, node_fields
from errscan.extract.conditions import Condition, Env, conjuncts, make_term, negate, render, unparse
from errscan.extract.dataflow import mutated_by_call
from errscan.extract.facts import AppendFact, AttributeStore, CallFact
from errscan.extract.holders import held, iterated
from errscan.extract.stores import set_by_call

# Nodes that hold no call, or whose calls belong to another scope.
_LEAVES = frozenset({
    ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.FunctionDef, ast.AsyncFunctionDef,
    ast.ClassDef, str, int, bool, type(None),
})
# Nodes whose items are values handed on (`ModuleFacts.values`), and the fields that hold them.
_HOLDING = {ast.List: ("elts",), ast.Tuple: ("elts",), ast.Set: ("elts",), ast.Dict: ("keys", "values"),
            ast.IfExp: ("body", "orelse"), ast.BoolOp: ("values",), ast.Assign: ("value",), ast.Starred: ("value",)}


class CallWalk:
    """The part of `collect.FactCollector` that records calls; it uses the collector's state."""

    def expressions(self, nodes: list[ast.AST], terms: Condition) -> None:
        """Calls (and list appends) within these nodes, not descending into nested scopes."""
        stack: list = list(nodes)
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in _LEAVES:
                continue
            if kind is ast.Lambda:  # its calls run when it is called: counted as this function's
                self.in_lambda += 1
                self.expressions([node.body], terms)
                self.in_lambda -= 1
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
            held = _HOLDING.get(kind)
            if held is not None:
                self.hold(node, held, terms)
            elif kind is ast.Subscript and type(node.slice) is ast.Tuple:  # `dict[str, A]` holds no value
                stack.append(node.value)
                stack.extend(node.slice.elts)
                continue
            for name in node_fields(kind):
                value = getattr(node, name, None)
                if type(value) is list:
                    stack.extend(value)
                else:
                    stack.append(value)

    def hold(self, node: ast.AST, fields: tuple[str, ...], terms: Condition) -> None:
        """The capitalised names (classes, by convention) among a node's items: `ModuleFacts.values`."""
        code = None
        for name in fields:
            value = getattr(node, name)
            for item in value if type(value) is list else (value,):
                text = dotted(item) if type(item) in (ast.Name, ast.Attribute) else None
                if text and text.rsplit(".", 1)[-1][:1].isupper():
                    code = code or render(terms, "deep")
                    self.values.append((self.frame.scope, text, code))

    def read(self, text: str, line: int, terms: Condition) -> None:
        """`self.a.b` read (not called): a property on the way calls its getter. Once per
        function, text and condition."""
        key = (self.frame.scope, text, terms)
        if key not in self.reads_seen:
            self.reads_seen.add(key)
            self.calls.append(CallFact(self.frame.scope, text, line, terms, (), (), "read"))

    def call(self, node: ast.Call, terms: Condition) -> None:
        receiving = self.arguments.pop(node, None)
        if type(node.func) is ast.Attribute and not self.in_lambda:
            self.changes.extend((k, False) for k in mutated_by_call(node, self.logs.level) if k in self.frame.bound or k[:5] == "self.")
        callee = _callee_text(node.func)
        written = set_by_call(callee, node) if callee else None
        if written is not None:
            self.attribute_stores.append(AttributeStore(self.frame.scope, *written, node.lineno))
        given = [*enumerate(node.args), *((k.arg, k.value) for k in node.keywords)]  # (position or keyword, value)
        locals_built = [self.built_local(a) for _, a in given]
        texts = [self.argument(a, local) for (_, a), local in zip(given, locals_built)]
        positional = len(node.args)
        arguments = tuple(texts[:positional])
        keywords = tuple((k.arg or "**", text) for k, text in zip(node.keywords, texts[positional:]))
        built = tuple((str(key), name) for (key, _), name in zip(given, locals_built) if key is not None and name)
        aliases = self.frame.aliases
        for key, argument in given:
            kind = type(argument)
            if kind is ast.Call:
                if callee:
                    self.arguments[argument] = f"{callee}:{key}"
                continue
            if kind is not ast.Name and kind is not ast.Attribute:
                continue
            passed = dotted(argument)
            if not passed:
                continue
            head = passed.split(".")[0]
            # A local's value is data (a function passed on is `self.run`, a module's name or an
            # import); `self`/`cls` are the exception, as their methods are what gets passed.
            aliased = head in aliases and any(text for text, _ in aliases[head])  # `cb = self.run`
            if head not in self.frame.bound or aliased or (head in ("self", "cls") and "." in passed):
                through = tuple(self.expand(passed, ())) if aliased else ()
                to = f"{callee}:{key}" if callee else _registrar(node.func, key)
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
            self.frame.scope, callee, node.lineno, terms, literal, aliases, "call", receiving, strings, arguments, keywords, built))
        func = node.func
        if self.in_lambda:
            return
        if isinstance(func, ast.Attribute) and func.attr == "append" and isinstance(func.value, ast.Name) and len(node.args) == 1:
            source = unparse(node.args[0])
            self.appends.append(AppendFact(self.frame.scope, func.value.id, source, node.lineno, terms))

    def argument(self, node: ast.expr, local: str | None) -> str:
        """An argument as `argument_text` writes it, but `C(...)` for a call of a dotted name, or a
        local (or `self.x`) that holds what one gave it (`Frame.built`; `local` is `built_local`'s
        answer): a chain can tell an object a constructor made from None."""
        made = dotted(node.func) if type(node) is ast.Call else local and self.frame.built[local]
        return f"{made}(...)" if made else argument_text(node)

    def built_local(self, node: ast.expr) -> str | None:
        """The local (or `self.x`) `node` names when it holds what a call gave it (`Frame.built`);
        not at module level: a definition's facts read no module-level values (`reuse.py`)."""
        built = self.frame.built
        if not built or not self.frame.scope or type(node) is not ast.Name and type(node) is not ast.Attribute:
            return None
        name = dotted(node)
        return name if name and built.get(name) else None

    def alias(self, stmt: ast.Assign | ast.AnnAssign, terms: Condition, env: Env) -> None:
        """`cls = module.Impl` (or `cls = A if c else B`): remember what a later `cls(...)` may
        call, and when."""
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if self.scopes.at_module or len(targets) != 1 or not isinstance(targets[0], ast.Name) or stmt.value is None:
            return
        value = stmt.value
        # a term about the local's earlier value (`if stats is None: stats = extra`) is gone with it
        terms = tuple(t for t in terms if t.loop or targets[0].id not in t.names)
        if isinstance(value, (ast.Name, ast.Attribute)):
            choices = self.expand(dotted(value), terms)
        elif isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and dotted(value.func):
            choices = [(text + "()" if text else None, when) for text, when in self.expand(dotted(value.func), terms)]
        elif isinstance(value, ast.Subscript) and isinstance(value.value, (ast.Name, ast.Attribute)) and dotted(value.value):
            choices = [(text + "[]" if text else None, when) for text, when in self.expand(dotted(value.value), terms)]
        elif isinstance(value, ast.IfExp) and all(type(v) in (ast.Name, ast.Attribute) and dotted(v) for v in (value.body, value.orelse)):
            choices = [
                *self.expand(dotted(value.body), terms + tuple(make_term(c, env) for c in conjuncts(value.test))),
                *self.expand(dotted(value.orelse), terms + tuple(make_term(c, env) for c in conjuncts(negate(value.test)))),
            ]
        else:
            choices = [(None, terms)]
        self.frame.aliases.setdefault(targets[0].id, []).extend(choices)

    def loop_alias(self, target: ast.expr, items: ast.expr) -> None:
        """`for layer in self.layers` (or `enumerate(islice(self.layers, a, b))`, a slice, `.values()`):
        the local is an element of the container, written `self.layers[]` as an alias."""
        if self.scopes.at_module:
            return
        for name, container in iterated(target, items):
            choices = [(text + "[]" if text else None, when) for text, when in self.expand(container, ())]
            self.frame.aliases.setdefault(name, []).extend(choices)

    def made(self, callee: str | None) -> str | None:
        """What a call builds, as written, through a local alias bound to one name
        (`layer_type(...)` builds a `Block` when `layer_type=Block` is the parameter's default)."""
        choices = self.expand(callee, ())
        return choices[0][0] if len(choices) == 1 else None

    def held(self, value: ast.expr) -> list[str]:
        """What a value keeps objects of (`holders.held`), through local aliases."""
        return held(value, lambda callee: [text for text, _ in self.expand(callee, ()) if text], self.frame.bound)

    def expand(self, name: str | None, terms: Condition) -> list[tuple[str | None, Condition]]:
        """A dotted name whose head is itself a local alias, through each of that alias's bindings."""
        if name is None:
            return [(None, terms)]
        head, dot, rest = name.partition(".")
        known = self.frame.aliases.get(head)
        if not known:
            return [(name, terms)]
        return [(None if base is None else base + dot + rest, when + tuple(t for t in terms if t not in when)) for base, when in known]


def _callee_text(func: ast.expr) -> str | None:
    """`f`, `a.b.f`, `super().f`, and `get().f` (a method of what a call returns)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        inner = dotted(func.value.func)
        if inner == "super" and not func.value.args:
            return f"super().{func.attr}"
        return f"{inner}().{func.attr}" if inner else None
    return dotted(func)


def _self_chain(node: ast.Attribute) -> str | None:
    """`self.a.b` (or `cls.a.b`) as text: plain attributes of `self`/`cls`; None for anything else."""
    names = []
    while type(node) is ast.Attribute:
        names.append(node.attr)
        node = node.value
    if type(node) is ast.Name and node.id in ("self", "cls"):
        return ".".join([node.id, *reversed(names)])
    return None


def _registrar(func: ast.expr, key: int | str) -> str | None:
    """`deco(...):0` for a value handed to what a call returned (`app.post("/x")(handler)`): a
    decorator applied by hand, which registers the value to run later."""
    callee = _callee_text(func.func) if type(func) is ast.Call else None
    return f"{callee}():{key}" if callee else None
