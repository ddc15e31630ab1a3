"""Templates as matchers: from a concrete message back to the template that printed it.

A template compiles to regular expressions that both Python's `re` and JavaScript's `RegExp`
accept (the site's search loads the same pattern strings from its index), so the rules live here
only: literal parts must match, runs of whitespace match any whitespace, placeholders match any
text (also none, also across lines). `score_message` ranks a message against one template with
three rules, exact, truncated and fuzzy; docs/matching.md states them for the JavaScript port.

Python does not run those patterns as they are: with k placeholders a backtracking engine may try
every way of cutting the message into k + 1 pieces (a message of 2,000 characters and a template of
three placeholders took hours). A placeholder is followed by literal text or by the end, and what
follows a literal part can always begin later (a placeholder takes up the difference), so the
earliest place each literal part fits is the one the pattern's lazy placeholders bind: the parts
are searched one after another, each from where the one before ended, the same match in time
linear in the message for each part.
"""

from __future__ import annotations

import re
from collections import namedtuple
from functools import lru_cache

_ANY = r"([\s\S]*?)"
_SPECIAL = re.compile(r"[\\^$.|?*+()\[\]{}/]")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a word of `words` (also how the matcher is keyed)

PIN_MIN_CHARS = 10  # literal characters a message must show for its template to pin the error
FUZZY_MIN = 0.5  # word similarity below which a template is no candidate at all
TRUNCATED_PIN_SCORE = 0.1  # below it, a cut message's placeholders hold most of it: a guess


# Records here and in errscan.lookup are named tuples, not dataclasses: `errscan lookup` makes them
# on every run, and dataclasses (with inspect, which they import) would be most of its start.

Piece = namedtuple("Piece", "text is_field")  # is_field: `text` is a placeholder's expression (with `!r`/`:spec`)


class CompiledTemplate(namedtuple(
    "CompiledTemplate", "pattern prefix_pattern fields literal words parts prefix_parts anchor head lead",
    defaults=(("",), ("",), "", "", ""),
)):
    """`pattern`: anchored regex source, valid in Python and JavaScript; `prefix_pattern`: the same,
    but matching any beginning of an instance (a cut message); `fields`: the placeholder expression
    each group binds; `literal`: the literal text alone, whitespace folded (what a match must show);
    `words`: sorted distinct words of the literal text, for the fuzzy rule; `parts`: the literal
    parts' patterns around the placeholders, one more than `fields` ("" where two placeholders meet
    the ends), `pattern` being "^\\s*" + the parts joined by placeholders + "\\s*$";
    `prefix_parts`: the same for `prefix_pattern`; `anchor`: the longest literal run, folded (an
    exact match shows it); `head`: the leading literal run, folded ("" when a placeholder leads);
    `lead`: the first literal run's beginning, folded (a cut match shows it: may_be_cut)."""

    __slots__ = ()

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


@lru_cache(maxsize=1 << 14)
def compile_template(template: str) -> CompiledTemplate:
    """A message template as the patterns that match its messages (cached: the API documents and
    the search index each compile every error's)."""
    parts: list[str] = []
    fields: list[str] = []
    literal: list[str] = []
    between: list[str] = [""]  # literal patterns between placeholders
    prefix_between: list[str] = [""]
    pieces = split_template(template)
    for piece in pieces:
        if piece.is_field:
            if not parts or parts[-1] != _ANY:  # two adjacent fields bind as one
                parts.append(_ANY)
                fields.append(piece.text)
                between.append("")
                prefix_between.append("")
            else:
                fields[-1] += "}{" + piece.text
            literal.append(" ")
            continue
        # A placeholder between two spaces (`device {name} (`) that printed nothing leaves one space.
        loose = bool(parts) and parts[-1] == _ANY and (len(parts) == 1 or literal[-2][-1:].isspace())
        parts.append(_literal_pattern(piece.text, loose_start=loose))
        between[-1] += parts[-1]
        prefix_between[-1] += _literal_pattern(piece.text, cut=True, loose_start=loose)
        literal.append(piece.text)
    folded = fold("".join(literal))
    runs = [fold(p.text) for p in pieces if not p.is_field and fold(p.text)]
    pattern = "^\\s*" + "".join(parts) + "\\s*$"
    return CompiledTemplate(
        pattern=pattern,
        prefix_pattern=cut_pattern(pattern),
        fields=tuple(fields),
        literal=folded,
        words=words(folded),
        parts=tuple(between),
        prefix_parts=tuple(prefix_between),
        anchor=max(runs, key=len, default=""),
        head=_head(pieces),
        lead=_beginning(runs[0], PIN_MIN_CHARS) if runs else "",  # a cut match shows this many, the first run's first
    )


def _head(pieces: tuple[Piece, ...]) -> str:
    return fold(pieces[0].text) if pieces and not pieces[0].is_field else ""


def fold(text: str) -> str:
    """Whitespace runs as one space, none at the ends: how the keys of a template are compared."""
    return " ".join(text.split())


def _beginning(text: str, count: int) -> str:
    """`text` up to its `count`-th non-whitespace character."""
    seen = 0
    for i, char in enumerate(text):
        seen += not char.isspace()
        if seen == count:
            return text[: i + 1]
    return text


def may_be_exact(anchor: str, folded: str) -> bool:
    """Whether the rule `exact` can apply to a message (`folded`): it shows the longest literal run."""
    return anchor in folded


def may_be_cut(head: str, lead: str, folded: str) -> bool:
    """Whether the rule `truncated` can apply: the message begins like the template's leading
    literal run (as far as either goes) and shows the beginning of its first one."""
    shown = min(len(folded), len(head))
    return folded[:shown] == head[:shown] and lead in folded


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


def cut_pattern(pattern: str) -> str:
    """The prefix pattern of an exact one: every literal character `c` becomes `(?:c|$)` and every
    whitespace run `(?:\\s+|$)`, so that it matches any beginning of an instance. The site's search
    makes it the same way (cutPattern in assets/lookup.js) rather than load it: it is most of the index.

    Read token by token: a placeholder's group, `\\s+` or `\\s*` (a literal `+`/`*` is always
    escaped), an escaped character, or a character.
    """
    body, out, i = pattern[4:-4], ["^\\s*"], 0  # without the leading `^\\s*` and the closing `\\s*$`
    while i < len(body):
        if body.startswith(_ANY, i):
            out.append(_ANY)
            i += len(_ANY)
        elif body.startswith(r"\s*", i):  # a loose start (compile_template) may be missing anyway
            out.append(r"\s*")
            i += 3
        elif body.startswith(r"\s+", i):
            out.append(r"(?:\s+|$)")
            i += 3
        else:
            size = 2 if body[i] == "\\" else 1
            out.append(f"(?:{body[i : i + size]}|$)")
            i += size
    return "".join(out) + "$"


def bind(compiled: CompiledTemplate, message: str) -> dict[str, str] | None:
    """The placeholder values of `message` if it is an instance of the template, else None."""
    found = _values(compiled.parts, message, "\\s*$")
    if found is None:
        return None
    return {field: value.strip() for field, value in zip(compiled.fields, found)}


def _values(parts: tuple[str, ...], message: str, end: str) -> list[str] | None:
    """What each placeholder between `parts` takes when "^\\s*" + the parts joined by placeholders
    + `end` matches `message`; None when it does not match.

    First each part takes all the whitespace it may, as `re` tries first (so the values are those
    `re` binds); if that fails, each part ends as early as it can, which leaves the next one all
    the room it may need (the values may then differ from `re`'s in how a run of whitespace is
    shared between two placeholders, never in whether the message matches)."""
    if len(parts) == 1:
        return None if _regex("\\s*" + parts[0] + end).match(message) is None else []
    for lazy in (False, True):
        values: list[str] | None = []
        position = 0
        for index, part in enumerate(parts):
            if index == 0:
                found = _regex("\\s*?" + _lazy_end(part) if lazy else "\\s*" + part).match(message)
            else:
                pattern = part + end if index == len(parts) - 1 else _lazy_end(part) if lazy else part
                found = _regex(pattern).search(message, position)
            if found is None:
                values = None
                break
            if index:
                values.append(message[position : found.start()])  # type: ignore[union-attr]
            position = found.end()
        if values is not None:
            return values
    return None


def _lazy_end(part: str) -> str:
    """The part's pattern taking as little of the whitespace it ends with as it may."""
    return part + "?" if part.endswith("\\s+") else part


@lru_cache(maxsize=None)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def find_instance(compiled: CompiledTemplate, text: str) -> str | None:
    """The first part of `text` that is an instance of the template (its placeholders as short as
    can be), as `re.search` of the pattern without its anchors would find it; None when none is."""
    parts = compiled.parts
    start = position = None
    for index, part in enumerate(parts):  # each part ends early, leaving the next all the room
        found = _regex(part if index == len(parts) - 1 else _lazy_end(part)).search(text, position or 0)
        if found is None:
            return None
        start = found.start() if start is None else start
        position = found.end()
    return text[start:position]


@lru_cache(maxsize=1024)  # a message is compared with every template in turn
def words(text: str) -> tuple[str, ...]:
    """Distinct lower-cased words (a letter or `_`, then letters, digits, `_`), sorted.

    Bare numbers are no words: in a concrete message they are nearly always placeholder values.
    """
    return tuple(sorted({w.lower() for w in WORD.findall(text)}))


# `rule`: "exact" | "truncated" | "fuzzy"; `score`: 0..1, comparable within one rule (rules rank
# exact > truncated > fuzzy); `bindings`: placeholder expression -> the text it printed (exact,
# truncated); `pinned`: the literal text alone identifies the template; `shown`: literal characters
# of the template the message shows (exact: L, truncated: S)
MessageMatch = namedtuple("MessageMatch", "rule score bindings pinned shown", defaults=(0,))


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
    folded = fold(message)
    literal = compiled.literal_chars
    found = _values(compiled.parts, message, "\\s*$") if may_be_exact(compiled.anchor, folded) else None
    if found is not None:
        bound = sum(_chars(v) for v in found)  # every placeholder printed, a repeated one too
        score = literal / (literal + bound) if literal + bound else 0.0
        bindings = {f: v.strip() for f, v in zip(compiled.fields, found)}
        return MessageMatch("exact", round(score, 4), bindings, literal >= PIN_MIN_CHARS, literal)
    cut = None
    if message and literal and may_be_cut(compiled.head, compiled.lead, folded):
        cut = _values(compiled.prefix_parts, message, "$")
    if cut is not None:
        seen = _chars(message) - sum(_chars(v) for v in cut if v)
        if seen >= PIN_MIN_CHARS:
            score = round(seen / _chars(message) * min(1.0, seen / literal), 4)
            values = {f: v.strip() for f, v in zip(compiled.fields, cut) if v and v.strip()}
            return MessageMatch("truncated", score, values, score >= TRUNCATED_PIN_SCORE, seen)
    found_words = words(message)
    return fuzzy_match(len(set(compiled.words).intersection(found_words)), len(compiled.words), len(found_words))


def fuzzy_match(shared: int, template_words: int, message_words: int) -> MessageMatch | None:
    """The rule `fuzzy` alone (score_message), from the count of words the template (with
    `template_words` words) and the message (`message_words`) share: None below FUZZY_MIN."""
    if not template_words or not message_words:
        return None
    score = 2 * shared / (template_words + message_words)
    if score < FUZZY_MIN:
        return None
    return MessageMatch("fuzzy", round(score, 4), {}, False)


def _chars(text: str) -> int:
    return len("".join(text.split()))
