"""An error about the items a setting lists: `len({f(x) for x in helper(cfg) if ...}) > 1`, where
`helper` reads the list from a setting, fires when the listed items give different values of `f(x)`.

The condition layer states a collection filled in a loop as its comprehension (`extract/filled.py`);
the knob search finds the setting the loop's iterable is read from (`helpers.py`: "read in
helper()"). Together they say what the user got wrong: not a bug, but a list whose entries disagree.
"""

from __future__ import annotations

import ast
from typing import Iterable

from errscan.analysis.knobs import KnobCatalog, carrier, spelling
from errscan.analysis.phases import with_cause
from errscan.analysis.ways import conjuncts
from errscan.extract.conditions import parse_expression
from errscan.extract.unparse import fast_unparse
from errscan.model import Fix, Knob

_SETTINGS = frozenset({"cli_flag", "extra_config", "plugin_config", "env", "config_field"})


def listed_items(code: str, knobs: Iterable[Knob], catalog: KnobCatalog, subject: str, does: str,
                 timing: str) -> tuple[str, str, Fix] | None:
    """(kind, summary, fix) when a part of `code` (deep) says the items a setting lists give more
    than one value of something; None otherwise."""
    for part in conjuncts(code):
        found = _differing(parse_expression(part))
        if found is None:
            continue
        generator, value = found
        callee = _callee(generator.iter)
        read = {k for k in knobs if k.kind in _SETTINGS and callee and k.detail.endswith(f"read in {callee}()")}
        if len(read) != 1:  # none, or several the list may come from
            continue
        (knob,) = read
        setting, flag = spelling(knob, catalog), carrier(knob, catalog)
        where = f"`{setting}`" + (f" in `{flag}`" if flag else "")
        shown = _shown(value, generator.ifs)
        summary = f"{subject} {does} this{with_cause(timing)} the entries listed in {where} give different values of {shown}: they must all give the same one."
        text = f"List in {where} only entries that give the same {shown}, or a single entry."
        return "configuration", summary, Fix(setting, None, text, flag)
    return None


def _differing(tree: ast.expr | None) -> tuple[ast.comprehension, ast.expr] | None:
    """`len({v for x in xs ...}) > 1` (or `>= 2`): the set's one loop and its value `v`."""
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.comparators[0], ast.Constant)):
        return None
    bound = {ast.Gt: 1, ast.GtE: 2}.get(type(tree.ops[0]))
    left = tree.left
    if bound is None or tree.comparators[0].value != bound or not (
            isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" and len(left.args) == 1
            and isinstance(left.args[0], ast.SetComp) and len(left.args[0].generators) == 1):
        return None
    return left.args[0].generators[0], left.args[0].elt


def _callee(iterable: ast.expr) -> str | None:
    """The function an iterable is the result of (`cls.pairs(cfg)` -> `pairs`)."""
    if not isinstance(iterable, ast.Call):
        return None
    func = iterable.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _shown(value: ast.expr, ifs: list[ast.expr]) -> str:
    """The value in words: its name, what it is computed from (a name bound in a test, `(v := f(x))`)
    and whether a test leaves None out."""
    text = fast_unparse(value)
    named = next((n.value for test in ifs for n in ast.walk(test)
                  if isinstance(n, ast.NamedExpr) and n.target.id == text), None)
    notes = [f"`{fast_unparse(named)}` for each entry"] if named is not None else []
    if any(isinstance(t, ast.Compare) and isinstance(t.ops[0], ast.IsNot) and isinstance(t.comparators[0], ast.Constant)
           and t.comparators[0].value is None and text in (fast_unparse(t.left), fast_unparse(getattr(t.left, "target", t.left)))
           for t in ifs):
        notes.append("entries that give None do not count")
    return f"`{text}`" + (f" ({'; '.join(notes)})" if notes else "")
