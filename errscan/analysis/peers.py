"""A setting compared with the same value received from the other side (`remote_engine_id ==
self.engine_id`, the peer's id against this instance's): what decides it is whether the two
instances were given the same value, so the fix is to give them different ones (or the same, for
`!=`); a setting the program fills itself when unset can also be left out."""

from __future__ import annotations

import ast
import re

from errscan.analysis.knobs import KnobCatalog
from errscan.analysis.named import decided
from errscan.analysis.ways import Way, for_part
from errscan.extract.conditions import parse_expression
from errscan.extract.unparse import fast_unparse
from errscan.model import Fix

PEER = re.compile(r"(?:[\w.]*\.)?(remote|peer)_\w+")  # a value named as the other side's: `remote_engine_id`


def peer_named(code: str) -> str | None:
    """The words for a value the other side sent, when its name says so."""
    return f"what the other side sent as `{code.rsplit('.', 1)[-1]}`" if PEER.fullmatch(code) else None


def peer_fix(way: Way, catalog: KnobCatalog) -> Fix | None:
    """For a way that is one comparison of a setting with the peer's value: give the instances
    different values (`==`) or the same (`!=`)."""
    tree = parse_expression(way.condition)
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], (ast.Eq, ast.NotEq))):
        return None
    sides = [fast_unparse(tree.left), fast_unparse(tree.comparators[0])]
    setting = next((s for s in way.settings if s.code in sides and not s.side), None)
    if setting is None or not any(PEER.fullmatch(side) for side in sides if side != setting.code):
        return None
    where = f" in `{setting.carrier}`" if setting.carrier else ""
    if isinstance(tree.ops[0], ast.NotEq):
        return Fix(setting.name, None, f"{for_part(way)}Give both instances the same `{setting.name}`{where}.", setting.carrier)
    unset = " or leave it out on both, so that each picks one of its own" if decided(setting.knob, catalog) else ""
    return Fix(setting.name, None, f"{for_part(way)}Give each instance its own `{setting.name}`{where},{unset}: "
                                   "this error means the other side announced the same value as this instance.", setting.carrier)


