"""Attributes never filled: every store in the package gives them an empty collection.

An attribute name that the package only ever assigns `[]`, `{}`, `set()` or the like, that no
code fills or hands on (`extract/fills.py`: no `append` or other changing method, item store,
`+=`, argument, return or alias; no dataclass field, method, keyword argument or
`getattr`/`setattr` of that name), is empty wherever it is read: `len(self.a) > 0` cannot hold.
The name is followed wherever it is used, whatever the object, so nothing of the package can fill
it; read as `self.a` in a method of a class whose bases are all of the package (an outside base
may fill it). A `__dict__`, `vars()` or computed `setattr` in a module that stores the name
leaves it unknown.
"""

from __future__ import annotations

import re
from collections import defaultdict

from errscan.analysis.solver import satisfiable
from errscan.graph.calls import CallGraph

_PLAIN_BASES = ("abc.", "typing.", "builtins.")  # bases that hold no attributes of their own


class EmptyAttributes:
    """The attribute names of the package never filled, and where each is given its empty value."""

    def __init__(self, graph: CallGraph):
        self.graph = graph
        stores: dict[str, list[str]] = defaultdict(list)
        filled: set[str] = set()
        for module in graph.index.modules.values():
            path = graph.paths.get(module.module, module.module).rsplit("/", 1)[-1]
            stored = {use.attribute for use in module.attribute_fills if use.empty}
            for use in module.attribute_fills:
                if use.empty:
                    stores[use.attribute].append(f"`{use.empty}` at {path}:{use.line}")
                elif use.attribute == "*":  # a name computed where these are stored may be one of them
                    filled |= stored
                else:
                    filled.add(use.attribute)
        self.empty = {name: tuple(places) for name, places in stores.items() if name not in filled}

    def ruled_out(self, code: str | None, earlier: tuple[str, ...], function: str) -> str | None:
        """Why `code` (a site's own condition, deep, in the method `function`) cannot hold with its
        never-filled `self` attributes empty; None when it still can."""
        if not code or not self.empty or not self._plain_class(function):
            return None
        read = [name for name in dict.fromkeys(re.findall(r"\bself\.(\w+)\b(?!\s*\()", code)) if name in self.empty]
        facts = [fact for name in read for fact in (f"len(self.{name}) == 0", f"not self.{name}")]
        if not read or satisfiable(code, *earlier, *facts) is not False:
            return None
        needed = [n for n in read if satisfiable(code, *earlier, f"len(self.{n}) == 0", f"not self.{n}") is False] or read
        said = "; ".join(f"`self.{n}` is never filled: every assignment of it in the package is an empty collection "
                         f"({', '.join(self.empty[n])}) and nothing adds to it or hands it on" for n in needed)
        return f"`{code}` cannot hold, as {said}"

    def _plain_class(self, function: str) -> bool:
        """Whether `function` is a method whose class's bases are all of the package (or hold nothing)."""
        entry = self.graph.functions.get(function)
        klass = entry[0].class_qualname if entry else None
        return klass is not None and all(
            base in self.graph.index.classes or base.startswith(_PLAIN_BASES) for base in self.graph.ancestry(klass))
