"""Where the package makes objects of each class, or hands a class itself on to be used as one.

What decides whether an object of exactly a class can exist (a base nothing builds, whose
subclasses override a method, never runs its own: `Resolver.exists`), and on which platforms the
objects of a class are made (`analysis/platforms.py`). A making is a call of the class (through a
local alias too), `cls(...)` in one of its methods, a call of one of its class methods, the class
passed as an argument (but to `isinstance`/`issubclass`), returned, held in a table, a class field,
a list, tuple, set or dict, a conditional expression or an assignment (`ModuleFacts.values`, for
capitalised names), or named by a string (loaded by name). Each comes with the condition it is made
under (`deep` code; None: any).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from typing import TYPE_CHECKING

from errscan.extract.astutil import dotted
from errscan.extract.conditions import Condition, parse_expression, render
from errscan.extract.facts import CallFact, ModuleFacts

if TYPE_CHECKING:
    from errscan.graph.resolve import Resolver

_TESTS = frozenset({"isinstance", "issubclass"})  # a class passed to these is only compared
_CLASS_METHODS = frozenset({"classmethod", "staticmethod"})
_WORDS = re.compile(r"\w+")

Making = tuple[str, str | None]  # (the module it is made in, the condition it is made under)


def makings(resolver: Resolver) -> dict[str, list[Making]]:
    """class -> where the package makes its objects or hands the class on."""
    short: dict[str, list[str]] = defaultdict(list)  # a class's own name -> the classes so named
    for klass in resolver.index.classes:
        short[klass.rsplit(".", 1)[1]].append(klass)
    found: dict[str, list[Making]] = defaultdict(list)
    for module in resolver.index.modules.values():
        # names imported under another name (`from m import Runner as RunnerV1`): the class's own name is not the text
        renamed = {alias for names in module.imports.values() for alias, target in names.items()
                   if target.rsplit(".", 1)[-1] in short and alias != target.rsplit(".", 1)[-1]}
        for call in module.calls:
            if call.kind in ("call", "reference"):
                for klass, when in _called(resolver, module, call, short, renamed):
                    found[klass].append((module.module, render(when + call.condition, "deep")))
            for text in (*call.literal_args, *(v for _, v in call.literal_keywords)):
                _named(short, text, found, module.module)
        for ret in module.returns:
            for expression in (ret.expression, ret.deep or ""):  # `return cls` with `cls = Impl` before
                for klass in _returned(resolver, module, ret.scope, expression, short):
                    found[klass].append((module.module, render(ret.condition, "deep")))
        for scope, text, code in module.values:
            klass = resolver.qualify(module, scope, text) if not short.keys().isdisjoint(text.split(".")[-1:]) else None
            if klass in resolver.index.classes:
                found[klass].append((module.module, code))
        for table in module.tables:
            for name in table.names:
                klass = resolver.qualify(module, table.scope, name) if name else None
                if klass in resolver.index.classes:
                    found[klass].append((module.module, None))
            for strings in table.strings:
                for text in strings:
                    _named(short, text, found, module.module)
        for fact in module.classes:
            for field in fact.fields:
                klass = resolver.qualify(module, "", field.default) if field.default else None
                if klass in resolver.index.classes:
                    found[klass].append((module.module, None))
    return found


def _called(resolver: Resolver, module: ModuleFacts, call: CallFact, short: dict[str, list[str]], renamed: set[str]) -> list[tuple[str, Condition]]:
    """The classes a call makes or a reference hands on, with the condition of the alias it goes through."""
    if call.kind == "reference" and (call.passed_to or "").rpartition(":")[0].rsplit(".", 1)[-1] in _TESTS:
        return []
    texts = call.aliases or ((call.callee, ()),)
    found = []
    for text, when in texts:
        if not text or text.endswith(("()", "[]")):
            continue
        if text == "cls":  # `cls(...)`, `super().__new__(cls)`
            klass = resolver._instance_class(module, call.caller, "cls")
        elif short.keys().isdisjoint(text.split(".")[-2:]) and text.split(".", 1)[0] not in renamed:
            continue
        else:
            klass = resolver.qualify(module, call.caller, text)
            if klass not in resolver.index.classes and call.kind == "call":
                klass = _class_method_owner(resolver, klass)
        if klass in resolver.index.classes:
            found.append((klass, when))
    return found


def _class_method_owner(resolver: Resolver, qualified: str | None) -> str | None:
    """The class of `Class.m` when `m` may run with the class itself (a class or static method,
    or one from outside the tree): `Class.create()` may build a `Class`."""
    owner, _, method = (qualified or "").rpartition(".")
    if owner not in resolver.index.classes:
        return None
    found = resolver.lookup_method(owner, method)
    decorators = resolver.functions[found][0].decorators if found else ()
    return owner if found is None or _CLASS_METHODS.intersection(d.rsplit(".", 1)[-1] for d in decorators) else None


def _returned(resolver: Resolver, module: ModuleFacts, scope: str, expression: str, short: dict[str, list[str]]) -> list[str]:
    """The classes a returned expression names as values (`return Impl`, `return (Backend, Impl)`)."""
    tree = None if short.keys().isdisjoint(_WORDS.findall(expression)) else parse_expression(expression)
    if tree is None:
        return []
    found = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Name, ast.Attribute)):
            text = dotted(node)
            klass = resolver.qualify(module, scope, text) if text else None
            if klass in resolver.index.classes:
                found.append(klass)
                continue
        if isinstance(node, ast.Attribute):
            continue  # `Class.attribute` is no class
        if isinstance(node, ast.Call):
            stack.extend(node.args)
            stack.extend(k.value for k in node.keywords)
            continue  # the called function is no value handed on
        stack.extend(ast.iter_child_nodes(node))
    return found


def _named(short: dict[str, list[str]], text: str | None, found: dict[str, list[Making]], module: str) -> None:
    """A string naming a class (`"pkg.mod.Class"`, or its own name beside its module's, as a
    registry takes it): it may be loaded by name, anywhere."""
    if not text or not text.replace(".", "").isidentifier():
        return
    for klass in short.get(text.rsplit(".", 1)[-1], ()):
        if "." not in text or klass == text or klass.endswith("." + text):
            found[klass].append((module, None))
