"""A chain step's condition as a page prints it: the terms a user can act on, short.

Conditions on the way are often long code (`config.kv_transfer_config is not None and (not (not
...)) and role != KVConnectorRole.SCHEDULER and ...`); the page keeps the `and` terms that read a
setting the trigger names, else those that read like one, else the first terms, within `LIMIT`
characters (of an `or` too long for it, the first alternative). The JSON keeps all of it.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from errscan.extract.conditions import parse_expression
from errscan.extract.unparse import fast_unparse

# A term that reads like a setting (an environment variable, an extra-config key, a config field),
# and one that only checks that an object is there (`config.kv_transfer_config is not None`).
_SETTING = re.compile(r"\bgetenv\(|\benviron\b|\benvs\.|extra_config|_config\.\w+")
_PRESENCE = re.compile(r"\bis (not )?None$")
LIMIT = 120  # characters of a chain's condition on the page; a longer one is cut at a term


def terse(condition: str, knobs=()) -> tuple[str, bool]:
    """(what the page prints, whether it left something out)."""
    terms = _terms(condition)
    named = _named(frozenset(k.name.rsplit(".", 1)[-1] for k in knobs if k.kind != "connector"))
    chosen = [(t, n) for t, n in terms if named is not None and named.search(t)] \
        or [(t, n) for t, n in terms if _SETTING.search(t) and not _PRESENCE.search(t)] or terms
    kept: list[str] = []
    for term, node in chosen:
        if len(term) > LIMIT and isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            term = f"({_term(node.values[0])} or …)"  # the first way it holds
        if kept and len(" and ".join([*kept, term])) > LIMIT:
            break
        kept.append(term)
    text = " and ".join(kept)
    if len(text) > LIMIT:
        text = text[:LIMIT].rsplit(" ", 1)[0] + " …"
    return text, text != " and ".join(t for t, _ in terms)


@lru_cache(maxsize=1 << 10)
def _named(marks: frozenset[str]) -> re.Pattern[str] | None:
    """One pattern for any of the settings' names as a whole word: the knobs of one error are
    tested against every term of every chain on its page."""
    return re.compile(rf"\b(?:{'|'.join(sorted(map(re.escape, marks)))})\b") if marks else None


@lru_cache(maxsize=1 << 14)
def _terms(condition: str) -> tuple[tuple[str, ast.expr | None], ...]:
    """The `and` terms of a condition but `True`, each printed, with its tree: the steps of one
    chain are on the pages of many errors, and printing them was most of what `terse` cost."""
    tree = parse_expression(condition)
    nodes = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree] if tree else []
    terms = [(_term(n), n) for n in nodes] or [(condition, None)]
    return tuple((t, n) for t, n in terms if t != "True")


def _term(node: ast.expr) -> str:
    """A term as code, in parentheses where `and` would bind it otherwise."""
    return f"({fast_unparse(node)})" if isinstance(node, ast.BoolOp) else fast_unparse(node)
