"""What a called function's documentation says its answer means. A check that a call of the package
returned nothing (`if self.manager.prepare_store(keys) is None:`), where that function's docstring
says when it does ("None is returned if the blocks cannot be stored."), fails for the reason the
docstring gives: the page quotes that sentence, in its author's words, instead of calling the
check an inconsistency of the program's own state."""

from __future__ import annotations

import ast
import re

from errscan.analysis.libraries import FALSE_RETURNED, NONE_RETURNED, tested_call
from errscan.extract.conditions import parse_expression
from errscan.extract.facts import ModuleFacts
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph
from errscan.graph.index import function_node

_SAYS_NONE = re.compile(r"(?:^|(?<=[.:]\s))([^.:]*\bNone\b[^.]*\.)")


def documented_answer(code: str, graph: CallGraph | None, module: ModuleFacts | None, function: str) -> tuple[str, str] | None:
    """(the call as written, the sentence of the called function's docstring that says when it returns
    None) where the last conjunct of `code` (deep, in `function` of `module`; inside `any(...)`, its
    item's) tests a call's result `is None` or `not` it, and every function the call reaches that
    documents it says the same one sentence."""
    if graph is None or module is None:
        return None
    tested = tested_call(_last(parse_expression(code)))
    call = tested[0] if tested is not None and tested[1] in (NONE_RETURNED, FALSE_RETURNED) else None
    node = function_node(module.module, "" if function == "<module>" else function)
    if call is None or node not in graph.graph:
        return None
    text = fast_unparse(call.func)
    targets = [callee for callee in graph.graph.successors(node)
               if any(site.call is not None and site.call.callee == text for site in graph.graph[node][callee]["sites"])]
    said = {sentence for target in targets for sentence in _sentences(graph, target)}
    return (fast_unparse(call), said.pop()) if len(said) == 1 else None


def _last(tree: ast.expr | None) -> ast.expr | None:
    """The last conjunct, looking into `any(<item> for ...)`: the test that fails."""
    while True:
        if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
            tree = tree.values[-1]
        elif isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "any" \
                and len(tree.args) == 1 and isinstance(tree.args[0], ast.GeneratorExp):
            tree = tree.args[0].elt
        else:
            return tree


def _sentences(graph: CallGraph, function: str) -> list[str]:
    fact = graph.functions.get(function, (None, None))[0]
    text = " ".join((fact.docstring or "").split()) if fact is not None else ""
    return [m.group(1).strip() for m in _SAYS_NONE.finditer(text)]
