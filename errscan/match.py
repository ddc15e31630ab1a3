"""Templates as matchers: from a concrete message back to the template that printed it.

A template compiles to one regular expression that both Python's `re` and JavaScript's `RegExp`
accept (the site's search loads the same pattern strings from its index), so the rules live here
only: literal parts must match, runs of whitespace match any whitespace, placeholders match any
text (also none, also across lines).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANY = r"([\s\S]*?)"
_SPECIAL = re.compile(r"[\\^$.|?*+()\[\]{}/]")


@dataclass(frozen=True)
class Piece:
    text: str
    is_field: bool  # True: `text` is a placeholder's expression (with `!r`/`:spec` if written)


@dataclass(frozen=True)
class CompiledTemplate:
    pattern: str  # anchored regex source, valid in Python and JavaScript
    fields: tuple[str, ...]  # the placeholder expression each group binds
    literal: str  # the literal text alone, whitespace folded: what a match must show

    @property
    def literal_chars(self) -> int:
        return len(self.literal.replace(" ", ""))


def split_template(template: str) -> tuple[Piece, ...]:
    """Literal text and placeholders, in order; `{{`/`}}` are literal braces."""
    pieces: list[Piece] = []
    literal: list[str] = []
    i, n = 0, len(template)
    while i < n:
        char = template[i]
        if char in "{}" and template[i : i + 2] in ("{{", "}}"):
            literal.append(char)
            i += 2
            continue
        if char == "{":
            end = _field_end(template, i)
            if literal:
                pieces.append(Piece("".join(literal), False))
                literal = []
            pieces.append(Piece(template[i + 1 : end], True))
            i = end + 1
            continue
        literal.append(char)
        i += 1
    if literal:
        pieces.append(Piece("".join(literal), False))
    return tuple(pieces)


def _field_end(template: str, start: int) -> int:
    """Index of the `}` closing the field opened at `start` (fields may nest braces and quotes)."""
    depth, quote, i = 0, "", start
    while i < len(template):
        char = template[i]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(template) - 1


def compile_template(template: str) -> CompiledTemplate:
    parts: list[str] = []
    fields: list[str] = []
    literal: list[str] = []
    for piece in split_template(template):
        if piece.is_field:
            if not parts or parts[-1] != _ANY:  # two adjacent fields bind as one
                parts.append(_ANY)
                fields.append(piece.text)
            else:
                fields[-1] += "}{" + piece.text
            literal.append(" ")
            continue
        parts.append(_literal_pattern(piece.text))
        literal.append(piece.text)
    pattern = "^\\s*" + "".join(parts) + "\\s*$"
    return CompiledTemplate(pattern, tuple(fields), " ".join("".join(literal).split()))


def _literal_pattern(text: str) -> str:
    out: list[str] = []
    for chunk in re.split(r"(\s+)", text):
        if not chunk:
            continue
        out.append(r"\s+" if chunk.isspace() else _SPECIAL.sub(lambda m: "\\" + m.group(), chunk))
    return "".join(out)


def bind(compiled: CompiledTemplate, message: str) -> dict[str, str] | None:
    """The placeholder values of `message` if it is an instance of the template, else None."""
    found = re.match(compiled.pattern, message)
    if found is None:
        return None
    return {field: value.strip() for field, value in zip(compiled.fields, found.groups())}
