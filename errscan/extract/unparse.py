"""`ast.unparse`, faster: the same text, printed with less overhead per node.

Conditions, templates and the analysis print hundreds of thousands of expressions on a whole
package, and `ast._Unparser` spends most of its time on the way to each node (a method looked up
by name, a context manager per pair of brackets), not on the text. `Unparser` keeps its printer
and overrides only the frequent nodes, each writing exactly what the standard method writes;
everything else (f-strings, statements) is the standard method.
"""

from __future__ import annotations

import ast

_Precedence = ast._Precedence  # type: ignore[attr-defined]
_ATOM, _TEST, _FACTOR = _Precedence.ATOM, _Precedence.TEST, _Precedence.FACTOR
_CMP, _AFTER_CMP = _Precedence.CMP, _Precedence.CMP.next()
_METHODS: dict[tuple[type, type], object] = {}  # (printer class, node class) -> its visit method


class Unparser(ast._Unparser):  # type: ignore[name-defined]
    def traverse(self, node):  # type: ignore[no-untyped-def]
        if isinstance(node, list):
            for item in node:
                self.traverse(item)
            return
        key = (type(self), node.__class__)
        method = _METHODS.get(key)
        if method is None:
            method = _METHODS[key] = getattr(type(self), "visit_" + node.__class__.__name__, type(self).generic_visit)
        method(self, node)  # type: ignore[operator]

    def visit_Name(self, node: ast.Name) -> None:
        self._source.append(node.id)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        kind = type(value)
        if node.kind is None and (kind is int or kind is bool or value is None or (kind is str and not self._avoid_backslashes)):
            self._source.append(repr(value))
        else:
            super().visit_Constant(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        value = node.value
        self._precedences[value] = _ATOM
        self.traverse(value)
        if isinstance(value, ast.Constant) and isinstance(value.value, int):
            self._source.append(" ")  # `3 .real`
        self._source.append(".")
        self._source.append(node.attr)

    def visit_Call(self, node: ast.Call) -> None:
        self._precedences[node.func] = _ATOM
        self.traverse(node.func)
        self._source.append("(")
        comma = False
        for e in node.args:
            if comma:
                self._source.append(", ")
            comma = True
            self.traverse(e)
        for e in node.keywords:
            if comma:
                self._source.append(", ")
            comma = True
            self.traverse(e)
        self._source.append(")")

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is None:
            self._source.append("**")
        else:
            self._source.append(node.arg)
            self._source.append("=")
        self.traverse(node.value)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._precedences[node.value] = _ATOM
        self.traverse(node.value)
        self._source.append("[")
        if isinstance(node.slice, ast.Tuple) and node.slice.elts:
            self.items_view(self.traverse, node.slice.elts)  # no brackets around a non-empty tuple
        else:
            self.traverse(node.slice)
        self._source.append("]")

    def visit_Compare(self, node: ast.Compare) -> None:
        parens = self._precedences.get(node, _TEST) > _CMP
        if parens:
            self._source.append("(")
        precedences = self._precedences
        precedences[node.left] = _AFTER_CMP
        for e in node.comparators:
            precedences[e] = _AFTER_CMP
        self.traverse(node.left)
        for o, e in zip(node.ops, node.comparators):
            self._source.append(" " + self.cmpops[o.__class__.__name__] + " ")
            self.traverse(e)
        if parens:
            self._source.append(")")

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        operator = self.unop[node.op.__class__.__name__]
        precedence = self.unop_precedence[operator]
        parens = self._precedences.get(node, _TEST) > precedence
        if parens:
            self._source.append("(")
        self._source.append(operator)
        if precedence is not _FACTOR:  # `-1`, but `not x`
            self._source.append(" ")
        self._precedences[node.operand] = precedence
        self.traverse(node.operand)
        if parens:
            self._source.append(")")

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        operator = self.boolops[node.op.__class__.__name__]
        precedence = self.boolop_precedence[operator]
        parens = self._precedences.get(node, _TEST) > precedence
        if parens:
            self._source.append("(")
        separator = f" {operator} "
        for i, value in enumerate(node.values):
            if i:
                self._source.append(separator)
            precedence = precedence.next()  # each operand binds tighter than the one before
            self._precedences[value] = precedence
            self.traverse(value)
        if parens:
            self._source.append(")")

    def visit_BinOp(self, node: ast.BinOp) -> None:
        operator = self.binop[node.op.__class__.__name__]
        precedence = self.binop_precedence[operator]
        parens = self._precedences.get(node, _TEST) > precedence
        if parens:
            self._source.append("(")
        if operator in self.binop_rassoc:
            left, right = precedence.next(), precedence
        else:
            left, right = precedence, precedence.next()
        self._precedences[node.left] = left
        self.traverse(node.left)
        self._source.append(f" {operator} ")
        self._precedences[node.right] = right
        self.traverse(node.right)
        if parens:
            self._source.append(")")


def fast_unparse(node: ast.AST) -> str:
    """Exactly `ast.unparse(node)` (it raises where that does). A name, or an attribute of one, is
    written without a printer: most of the nodes the analysis prints one by one are."""
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined]
    if kind is ast.Attribute and type(node.value) is ast.Name:  # type: ignore[attr-defined]
        return f"{node.value.id}.{node.attr}"  # type: ignore[attr-defined]
    return Unparser().visit(node)
