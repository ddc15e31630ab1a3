"""A CatalogDiff as text (for a terminal or a log), markdown (release notes, PR comments) or JSON."""

from __future__ import annotations

import re
from typing import Callable

from errscan.api.write import dump_json
from errscan.compare.changes import headline, knob_changes, split_changes
from errscan.model import CatalogDiff, ErrorChange, ErrorRef, FieldChange, WordDiff
from errscan.terminal import printable

_MESSAGE_WIDTH = 100
_ANSI = {"added": "32", "removed": "31", "changed": "33", "insert": "32", "delete": "31", "dim": "2"}


def format_diff(diff: CatalogDiff, fmt: str, color: bool = False) -> str:
    """`fmt`: "text" (in color if asked), "markdown" or "json"; `errscan diff --format` offers them.

    Text and markdown have the scanned text's control characters escaped (`errscan.terminal`);
    colors are put in after, as marks that escaping leaves alone."""
    if fmt == "json":
        return dump_json(diff)
    if fmt == "markdown":
        return printable(_markdown(diff), lines=True)
    text = printable(_text(diff, _painter(color)), lines=True)
    return _COLOR_MARK.sub(lambda mark: f"\033[{_ANSI.get(mark[1], '0')}m", text) if color else text


# text

Paint = Callable[[str, str], str]


def _painter(color: bool) -> Paint:
    if not color:
        return lambda _, text: text
    return lambda style, text: f"\ue000{style}\ue001{text}\ue000end\ue001"


_COLOR_MARK = re.compile("\ue000([a-z]+)\ue001")  # a style's start, or its `end`: see `_painter`


def _text(diff: CatalogDiff, paint: Paint) -> str:
    lines = [f"errscan diff {diff.old} -> {diff.new}: {headline(diff)}"]
    if diff.added:
        lines += ["", paint("added", "Added")]
        lines += [paint("added", f"  + {_where(e)}  {e.label}: {_clip(e.message)}") for e in diff.added]
    if diff.removed:
        lines += ["", paint("removed", "Removed")]
        lines += [paint("removed", f"  - {_where(e)}  {e.label}: {_clip(e.message)}") for e in diff.removed]
    changed, moved = split_changes(diff)
    if changed:
        lines += ["", paint("changed", "Changed")]
        for c in changed:
            fields = ", ".join(f.field for f in c.changes)
            lines.append(paint("changed", f"  ~ {_where(c.new)}  {c.new.label}  [{fields}]"))
            lines += [f"      {line}" for line in _details(c, _text_words(paint), str, "->")]
    if moved:
        lines += ["", paint("dim", "Moved lines only")]
        lines += [f"  {c.new.path}:{c.old.line} -> {c.new.line}  {c.new.label}: {_clip(c.new.message)}" for c in moved]
    return "\n".join(lines) + "\n"


def _text_words(paint: Paint) -> Callable[[tuple[WordDiff, ...]], str]:
    """git's --word-diff marks, colored too on a terminal."""
    styles = {
        "equal": str,
        "delete": lambda text: paint("delete", f"[-{text}-]"),
        "insert": lambda text: paint("insert", f"{{+{text}+}}"),
    }
    return lambda words: " ".join(styles[w.op](w.text) for w in words)


def _details(
    change: ErrorChange, words: Callable[[tuple[WordDiff, ...]], str], value: Callable[[str], str], arrow: str
) -> list[str]:
    """One line per changed field: the message as a word diff, the knobs as the ones that came and
    went, any other field as old -> new."""
    return [
        f"message: {words(change.message_diff)}" if f.field == "message"
        else f"knobs: {_knob_changes(f, value)}" if f.field == "knobs"
        else f"{f.field}: {value(f.old or '(none)')} {arrow} {value(f.new or '(none)')}"
        for f in change.changes
    ]


def _knob_changes(field: FieldChange, value: Callable[[str], str]) -> str:
    return ", ".join(f"{sign} {value(knob)}" for sign, knob in knob_changes(field))


def _where(e: ErrorRef) -> str:
    return f"{e.path}:{e.line} in {e.function}"


def _clip(message: str) -> str:
    folded = " ".join(message.split()) or "(no message)"
    return folded if len(folded) <= _MESSAGE_WIDTH else folded[: _MESSAGE_WIDTH - 1] + "…"


# markdown


def _markdown(diff: CatalogDiff) -> str:
    lines = [f"### Errors: {diff.old} → {diff.new}", "", f"**{headline(diff)}**"]
    for title, refs in (("Added", diff.added), ("Removed", diff.removed)):
        if refs:
            lines += ["", f"#### {title}", "", "| Exception | Message | Where |", "|---|---|---|"]
            lines += [f"| {_code(e.label)} | {_cell(e.message)} | {_code(_where(e))} |" for e in refs]
    changed, moved = split_changes(diff)
    if changed:
        lines += ["", "#### Changed", ""]
        for c in changed:
            lines.append(f"- {_code(c.new.label)} at {_code(_where(c.new))}")
            lines += [f"  - {line}" for line in _details(c, _markdown_words, _code, "→")]
    if moved:
        lines += ["", f"<details><summary>{len(moved)} only moved lines</summary>", ""]
        lines += [f"- {_code(c.new.path)}: line {c.old.line} → {c.new.line}, {_cell(_clip(c.new.message))}" for c in moved]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def _markdown_words(words: tuple[WordDiff, ...]) -> str:
    styles = {"equal": "{}", "delete": "~~{}~~", "insert": "**{}**"}
    return " ".join(styles[w.op].format(_cell(w.text)) for w in words)


def _cell(text: str) -> str:
    """Text safe inside a table cell and beside markdown markup."""
    folded = " ".join(text.split()) or "(no message)"
    for char in "\\|*_~`<>[]":
        folded = folded.replace(char, "\\" + char)
    return folded


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    escaped = text.replace("|", "\\|")  # a pipe would end the table cell even inside code
    return f"{fence}{pad}{escaped}{pad}{fence}"
