"""Values a library outside the scanned package answered. A check on what a call into such a
library returned (`assert engine.register(t) is not None`, `engine` an object of a class imported
from another package, or `f(x)` with `f` imported from one) fails on that library's answer: its
install or its version, not the program's own state, is what to look at first.

A call counts as one into a library when what it runs is named by an import of another package
(not one of the scanned tree's top packages, nor the standard library): a method of an object of
such a class (as written where the receiver is given a value: a constructor, a parameter's
annotation; never a class of the tree), whose state is the library's; or such a function called
with constants only. A function given the program's values (`re.match(pattern, value)`) answers
for those values: what it returns is decided by them, not by the library.
"""

from __future__ import annotations

import ast
import sys

from errscan.extract.conditions import parse_expression
from errscan.extract.facts import ModuleFacts
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph
from errscan.graph.index import function_node

_STANDARD = frozenset(sys.stdlib_module_names)


def library_answer(code: str, graph: CallGraph | None, module: ModuleFacts | None, function: str) -> tuple[str, str, str] | None:
    """(the call as written, the library's module, what it returned in words) for the first call
    into a library whose result the condition `code` (deep, in `function` of `module`) compares
    with a constant or negates, in its last conjunct: the test that fails (those before it are
    the checks passed on the way)."""
    if graph is None or module is None:
        return None
    tree = parse_expression(code)
    if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        tree = tree.values[-1]
    scope = "" if function == "<module>" else function
    for node in ast.walk(tree) if tree is not None else ():
        tested = tested_call(node)
        if tested is None:
            continue
        call, returned = tested
        library = _library(call, graph, module, scope)
        if library is not None:
            return fast_unparse(call), library, returned
    return None


FALSE_RETURNED = "a false value (None, False, zero or empty)"  # `not call`
NONE_RETURNED = "`None`"  # `call is None`


def tested_call(node: ast.AST | None) -> tuple[ast.Call, str] | None:
    """`call is None`, `call == 0`, `not call`: the call and what it returned, in words."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Call):
        return node.operand, FALSE_RETURNED
    if not isinstance(node, ast.Compare) or len(node.comparators) != 1:
        return None
    left, right, op = node.left, node.comparators[0], node.ops[0]
    call, constant = (left, right) if isinstance(left, ast.Call) else (right, left)
    if not isinstance(call, ast.Call) or not isinstance(constant, ast.Constant):
        return None
    if isinstance(op, (ast.Is, ast.Eq)):
        return call, f"`{fast_unparse(constant)}`"
    if isinstance(op, (ast.IsNot, ast.NotEq)):
        return call, f"something other than `{fast_unparse(constant)}`"
    return None


def _library(call: ast.Call, graph: CallGraph, module: ModuleFacts, scope: str) -> str | None:
    """The module of the library the call runs code of, or None when it is the tree's or unknown."""
    func = call.func
    constant = all(isinstance(a, ast.Constant) for a in [*call.args, *(k.value for k in call.keywords)])
    if isinstance(func, ast.Name):
        return _outside(graph.qualify(module, scope, func.id), graph) if constant else None
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Call):  # `Engine(...).m()`: of the class the call builds
        return _library(receiver, graph, module, scope) if isinstance(receiver.func, (ast.Name, ast.Attribute)) else None
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
        return _held(receiver.attr, graph, module, scope)
    if isinstance(receiver, ast.Name):
        fact = graph.functions.get(function_node(module.module, scope), (None, None))[0]
        annotation = dict(fact.params).get(receiver.id) if fact is not None else None
        if annotation:  # a parameter of a written type
            return _outside(graph.qualify(module, scope, annotation), graph)
        qualified = graph.qualify(module, scope, f"{receiver.id}.{func.attr}")  # `lib.f()`, lib imported
        return _outside(qualified, graph) if constant and (fact is None or receiver.id not in dict(fact.params)) else None
    return None


def _held(attribute: str, graph: CallGraph, module: ModuleFacts, scope: str) -> str | None:
    """The library of the class `self.attribute` holds, as the class (and its bases) give it values:
    each typed value names a class of the same library, and at least one does."""
    fact = graph.functions.get(function_node(module.module, scope), (None, None))[0]
    if fact is None or fact.class_qualname is None:
        return None
    found = set()
    for klass in graph.mro(fact.class_qualname):
        entry = graph.index.classes.get(klass)
        if entry is None:
            continue
        owner = entry[1]
        class_scope = klass[len(owner.module) + 1:]
        for typed in owner.attribute_types:
            if typed.class_scope == class_scope and typed.attribute == attribute and typed.type not in ("", "None"):
                found.add(_outside(graph.qualify(owner, typed.scope or class_scope, typed.type), graph))
    return found.pop() if len(found) == 1 else None


def _outside(qualified: str | None, graph: CallGraph) -> str | None:
    """The module of a qualified name of another package's (`mori.io.IOEngine` -> `mori.io`)."""
    if not qualified or "." not in qualified:
        return None
    top = qualified.split(".", 1)[0]
    if top in graph.index.top_packages or top in _STANDARD or qualified in graph.index.classes or qualified in graph.functions:
        return None
    return qualified.rpartition(".")[0]
