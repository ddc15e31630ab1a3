"""Conditions in a user's terms: settings by the name the user writes, model properties in words.

A condition reads in user terms when every value it tests is something a user knows: a setting
(`--block-size`), or a piece of code the profile's vocabulary names ("the model uses MLA
attention"). Anything else (a local variable, an internal attribute) makes the condition internal:
`user_words` then says None rather than show code to a user.
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Container

from errscan.analysis.plain import plain_words
from errscan.extract.astutil import last_name, walk
from errscan.extract.conditions import parse_expression
from errscan.profiles import Phrase
from errscan.extract.unparse import fast_unparse

_PLACEHOLDER = "__u{}"
_BUILTINS = frozenset({"len", "isinstance", "any", "all", "abs", "min", "max", "int", "str", "bool", "True", "False", "None"})
_PRECONDITIONS = frozenset({"", "hasattr", "callable"})  # calls `substantive` passes over besides those ("": not a name)

# The last word of a setting that tells the peer's or a server's address, or a file's place: a value
# such a setting holds is set or not, never on or off.
ADDRESS = re.compile(r"(^|[_-])(host|hostname|ip|port|addr|address|url)s?($|[_-])", re.IGNORECASE)
PATH = re.compile(r"(^|[_-])(path|dir|directory|file|folder|root|mount)s?$", re.IGNORECASE)  # not `file_size`

Namer = Callable[[ast.expr], "str | None"]  # a node's user-facing name (a setting), or None


class Raw(str):
    """A name the namer has already written in full (with its own code marks)."""


def phrase_for(code: str, vocabulary: tuple[Phrase, ...]) -> Phrase | None:
    return next((p for p in vocabulary if re.fullmatch(p.pattern, code)), None)


def user_words(code: str, setting_name: Namer, vocabulary: tuple[Phrase, ...], decided: Container[str] = ()) -> str | None:
    """`code` in words with settings and vocabulary substituted; None when some value it tests
    has no user-facing name. `decided`: settings the program gives a value when they are left
    out, which are never "unset" when it tests them."""
    tree = parse_expression(code)
    if tree is None:
        return None
    names: dict[str, tuple[str, Phrase | None]] = {}
    counts: set[str] = set()  # placeholders of `len(...)`: a number, tested as one

    def substitute(node: ast.expr) -> ast.expr:
        text = fast_unparse(node)
        phrase = phrase_for(text, vocabulary)
        setting = None if phrase else setting_name(node)
        if phrase or setting:
            placeholder = _PLACEHOLDER.format(len(names))
            names[placeholder] = (setting or phrase.words, phrase)  # type: ignore[union-attr]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
                counts.add(placeholder)
            return ast.Name(placeholder, ast.Load())
        quantified = _any_over_model(node)
        if quantified is not None:  # "for some group g, g is Mamba" reads as "the model has Mamba layers"
            inner = substitute(quantified)
            if not _names(inner) - set(names) - _BUILTINS:
                return inner
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                setattr(node, field, substitute(value))
            elif isinstance(value, list):
                setattr(node, field, [substitute(v) if isinstance(v, ast.expr) else v for v in value])
        return node

    rewritten = substitute(_copy(tree))
    if _names(rewritten) - set(names) - _BUILTINS or _has_attribute(rewritten):
        return None
    text = plain_words(fast_unparse(rewritten))
    for placeholder, (words, phrase) in names.items():
        code_name = f"`{placeholder}`"
        if placeholder in counts:
            text = text.replace(f"{code_name} is true (set, non-empty)", f"{code_name} is not 0")
            text = text.replace(f"{code_name} is false or empty", f"{code_name} is 0")
        if phrase is not None and not phrase.noun:
            text = text.replace(f"{code_name} is true (set, non-empty)", phrase.words)
            text = text.replace(f"{code_name} is false or empty", phrase.negated or f"not ({phrase.words})")
        if phrase is None:  # a setting
            name = words.split("`")[0]
            place = PATH.search(name.rsplit(".", 1)[-1]) or ADDRESS.search(name.rsplit(".", 1)[-1])
            text = text.replace(f"{code_name} is true (set, non-empty)", f"`{words}` is {'set' if place else 'on'}")
            unset = "" if name in decided else " or unset"
            text = text.replace(f"{code_name} is false or empty", f"`{words}` is {'not set' if place else f'off{unset}'}")
        text = text.replace(code_name, words if phrase is not None or isinstance(words, Raw) else f"`{words}`")
        text = text.replace(placeholder, words)
    return None if "__u" in text else text


def _any_over_model(node: ast.expr) -> ast.expr | None:
    """The test of `any(<test> for <target> in <items>)`, whose loop the vocabulary words away."""
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "any"
        and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
    ):
        return node.args[0].elt
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _has_attribute(node: ast.AST) -> bool:
    return any(isinstance(n, (ast.Attribute, ast.Subscript)) for n in walk(node))


def _copy(tree: ast.expr) -> ast.expr:
    """Parsed trees are shared (see `parse_expression`): rewrite a copy."""
    return ast.parse(fast_unparse(tree), mode="eval").body


def runtime_words(code: str) -> str | None:
    """A part of a condition that tests the program's data at run time (no setting), in words made
    from its names: what must hold besides the settings, so that a summary never reads as if the
    settings alone decide it. None for a mere precondition (`x is not None`, a bare flag, a type
    test) or a test of a call's result nested in it, which the condition on the page shows."""
    tree = parse_expression(code)
    if isinstance(tree, ast.Call) and isinstance(tree.func, (ast.Name, ast.Attribute)) and not any(
            isinstance(n, ast.Call) for a in (*tree.args, *(k.value for k in tree.keywords)) for n in walk(a)):
        name = tree.func.id if isinstance(tree.func, ast.Name) else tree.func.attr
        return None if name in _BUILTINS or name == "raises" else f"the check `{name}` returns true"
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and not isinstance(tree.ops[0], (ast.Is, ast.IsNot))):
        return None
    operands = [_counted(o) for o in (tree.left, tree.comparators[0])]
    if not all(isinstance(o, (ast.Name, ast.Attribute, ast.Constant)) for o in operands) or any(
            isinstance(n, (ast.Call, ast.Subscript)) for o in operands for n in walk(o)):
        return None
    text = plain_words(code)
    for operand in operands:
        if not isinstance(operand, ast.Constant):
            text = text.replace(f"`{fast_unparse(operand)}`", _noun(operand))
    return text


def substantive(code: str) -> bool:
    """Whether a part of a condition tests something of its own that a summary must not pass over: a
    comparison (`min(tp, remote_tp) < num_kv_heads`) or a predicate of the package (`not
    supports_hma(cls)`). Not a precondition (`x is not None`, a bare flag, a type test), an earlier
    check that passed (`not (a and b)`; an `or` of its own is as its parts) nor a builtin's test
    over a collection (`all(...)`)."""
    tree = parse_expression(code)
    return tree is not None and _substantive(tree)


def _substantive(node: ast.expr) -> bool:
    if isinstance(node, ast.BoolOp):
        return any(_substantive(value) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if isinstance(node, ast.Compare):
        return not all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
    return isinstance(node, ast.Call) and last_name(node.func) not in _BUILTINS | _PRECONDITIONS


def _counted(node: ast.expr) -> ast.expr:
    """What `len(x)` counts (x), else the node itself."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return node.args[0]
    return node


def _noun(node: ast.expr) -> str:
    """`payload.compatibility_hash` as "the compatibility hash of the payload", `self.x` as "its own x"."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return fast_unparse(node)
    words = [n.strip("_").replace("_", " ") for n in names]
    if node.id in ("self", "cls"):
        if not words:
            return "this object"
        inner = f"its own {words.pop()}"
    else:
        inner = f"the {node.id.strip('_').replace('_', ' ')}"
    for word in reversed(words):
        inner = f"the {word} of {inner}"
    return inner
