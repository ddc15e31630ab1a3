"""Templates as matchers: from a concrete message back to the template that printed it.

A template compiles to regular expressions that both Python's `re` and JavaScript's `RegExp`
accept (the site's search loads the same pattern strings from its index), so the rules live here
only: literal parts must match, runs of whitespace match any whitespace, placeholders match any
text (also none, also across lines). `score_message` ranks a message against one template with
three rules, exact, truncated and fuzzy; docs/matching.md states them for the JavaScript port.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_ANY = r"([\s\S]*?)"
_SPECIAL = re.compile(r"[\\^$.|?*+()\[\]{}/]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

PIN_MIN_CHARS = 10  # literal characters a message must show for its template to pin the error
FUZZY_MIN = 0.5  # word similarity below which a template is no candidate at all
TRUNCATED_PIN_SCORE = 0.1  # below it, a cut message's placeholders hold most of it: a guess


@dataclass(frozen=True)
class Piece:
    text: str
    is_field: bool  # True: `text` is a placeholder's expression (with `!r`/`:spec` if written)


@dataclass(frozen=True)
class CompiledTemplate:
    pattern: str  # anchored regex source, valid in Python and JavaScript
    prefix_pattern: str  # the same, but matching any beginning of an instance (a cut message)
    fields: tuple[str, ...]  # the placeholder expression each group binds
    literal: str  # the literal text alone, whitespace folded: what a match must show
    words: tuple[str, ...]  # sorted distinct words of the literal text, for the fuzzy rule

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
    prefix_parts: list[str] = []
    fields: list[str] = []
    literal: list[str] = []
    for piece in split_template(template):
        if piece.is_field:
            if not parts or parts[-1] != _ANY:  # two adjacent fields bind as one
                parts.append(_ANY)
                prefix_parts.append(_ANY)
                fields.append(piece.text)
            else:
                fields[-1] += "}{" + piece.text
            literal.append(" ")
            continue
        # A placeholder between two spaces (`device {name} (`) that printed nothing leaves one space.
        loose = bool(parts) and parts[-1] == _ANY and (len(parts) == 1 or literal[-2][-1:].isspace())
        parts.append(_literal_pattern(piece.text, loose_start=loose))
        prefix_parts.append(_literal_pattern(piece.text, cut=True, loose_start=loose))
        literal.append(piece.text)
    folded = " ".join("".join(literal).split())
    return CompiledTemplate(
        pattern="^\\s*" + "".join(parts) + "\\s*$",
        prefix_pattern="^\\s*" + "".join(prefix_parts) + "$",
        fields=tuple(fields),
        literal=folded,
        words=words(folded),
    )


def _literal_pattern(text: str, cut: bool = False, loose_start: bool = False) -> str:
    """Literal text as regex; with `cut`, every character may instead be the end of the message;
    with `loose_start`, whitespace it opens with may be missing."""
    out: list[str] = []
    for chunk in re.split(r"(\s+)", text):
        if not chunk:
            continue
        if chunk.isspace():
            out.append(r"\s*" if loose_start and not out else r"(?:\s+|$)" if cut else r"\s+")
            continue
        for char in chunk if cut else (chunk,):
            escaped = _SPECIAL.sub(lambda m: "\\" + m.group(), char)
            out.append(f"(?:{escaped}|$)" if cut else escaped)
    return "".join(out)


@functools.lru_cache(maxsize=None)
def _regex(pattern: str) -> re.Pattern[str]:
    """Each pattern compiled once per process: `re` keeps only 512, a whole package has thousands."""
    return re.compile(pattern)


def bind(compiled: CompiledTemplate, message: str) -> dict[str, str] | None:
    """The placeholder values of `message` if it is an instance of the template, else None."""
    found = _regex(compiled.pattern).match(message)
    if found is None:
        return None
    return {field: value.strip() for field, value in zip(compiled.fields, found.groups())}


def words(text: str) -> tuple[str, ...]:
    """Distinct lower-cased words (a letter or `_`, then letters, digits, `_`), sorted.

    Bare numbers are no words: in a concrete message they are nearly always placeholder values.
    """
    return tuple(sorted({w.lower() for w in _WORD.findall(text)}))


@dataclass(frozen=True)
class MessageMatch:
    rule: str  # "exact" | "truncated" | "fuzzy"
    score: float  # 0..1, comparable within one rule; rules rank exact > truncated > fuzzy
    bindings: dict[str, str]  # placeholder expression -> the text it printed (exact, truncated)
    pinned: bool  # the literal text alone identifies the template
    shown: int = 0  # literal characters of the template the message shows (exact: L, truncated: S)


RULE_RANK = {"exact": 3, "truncated": 2, "fuzzy": 1}


EXACT_WEIGHT = 1.5  # a whole message is likelier than one cut where a shorter template ends


def evidence(match: MessageMatch) -> tuple[int, float, int, float]:
    """How strongly a match names its template, for ranking (greater is stronger).

    A pinned literal match (exact or truncated) beats any other, and among them the one showing
    more of its template's literal text wins, an exact match's counting EXACT_WEIGHT times: a long
    template that a cut message shows most of says more than a short one it merely contains
    (`Failed to load {x}`), but a message that ends exactly where a template with one more
    literal word would go on is that shorter template's, whole. Unpinned matches (little literal
    text, a reworded message) come after, by score alone (the caller ranks by the exception class
    first): a template that explains a sliver of the message (`{msg}: {e}`) ranks below words the
    message shares. The last item is the score, which the caller ranks after the exception class.
    """
    if match.pinned and match.rule != "fuzzy":
        weight = EXACT_WEIGHT if match.rule == "exact" else 1.0
        return (2, match.shown * weight, RULE_RANK[match.rule], match.score)
    return (1, 0, 0, match.score)


def score_message(compiled: CompiledTemplate, message: str) -> MessageMatch | None:
    """How well `message` fits the template, by the first rule that applies (all on stripped text):

    - exact: `pattern` matches. With L the template's literal characters and B those of the bound
      values (whitespace never counts), score = L / (L + B): the share of the message the template
      explains, 1.0 for a template without placeholders. Pinned when L >= PIN_MIN_CHARS.
    - truncated: `prefix_pattern` matches, so the message is the beginning of an instance (cut by a
      UI or a log shipper). With S = message characters - B the literal characters shown,
      score = S / (S + B) * S / L: explained share times the share of the template seen; no
      match when S < PIN_MIN_CHARS (a template that opens with a placeholder would otherwise take
      any text holding its first few literal characters). Pinned when score >= TRUNCATED_PIN_SCORE
      (not when the last placeholder swallowed most of the message). Placeholders never reached
      are not bound.
    - fuzzy: for a reworded message (another release). With T the template's `words` and M the
      message's, score = 2 |T & M| / (|T| + |M|) (Dice); a candidate when score >= FUZZY_MIN.
      Never pinned, no bindings.

    None when no rule applies. Deterministic: the same strings always give the same result.
    """
    message = message.strip()
    bindings = bind(compiled, message)
    literal = compiled.literal_chars
    if bindings is not None:
        bound = sum(_chars(v) for v in bindings.values())
        score = literal / (literal + bound) if literal + bound else 0.0
        return MessageMatch("exact", round(score, 4), bindings, literal >= PIN_MIN_CHARS, literal)
    cut = _regex(compiled.prefix_pattern).match(message) if message else None
    values = {f: v.strip() for f, v in zip(compiled.fields, cut.groups()) if v.strip()} if cut else {}
    seen = _chars(message) - sum(_chars(v) for v in values.values())
    if cut is not None and seen >= PIN_MIN_CHARS and literal:
        score = round(seen / _chars(message) * min(1.0, seen / literal), 4)
        return MessageMatch("truncated", score, values, score >= TRUNCATED_PIN_SCORE, seen)
    message_words = words(message)
    if not compiled.words or not message_words:
        return None
    shared = len(set(compiled.words) & set(message_words))
    score = 2 * shared / (len(compiled.words) + len(message_words))
    if score < FUZZY_MIN:
        return None
    return MessageMatch("fuzzy", round(score, 4), {}, False)


def _chars(text: str) -> int:
    return sum(1 for c in text if not c.isspace())
