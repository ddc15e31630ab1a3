"""A CatalogDiff as text (for a terminal or a log), markdown (release notes, PR comments), JSON,
or CI annotations (errscan.compare.annotations)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Collection, Mapping

from errscan.api.write import dump_json
from errscan.compare.annotations import github_commands, sarif_log
from errscan.compare.changes import headline, knob_changes, split_changes
from errscan.model import Catalog, CatalogDiff, ErrorChange, ErrorRef, FieldChange, WordDiff
from errscan.terminal import printable

_MESSAGE_WIDTH = 100
_ANSI = {"added": "32", "removed": "31", "changed": "33", "insert": "32", "delete": "31", "dim": "2"}


@dataclass(frozen=True)
class SourceLinks:
    """Each side's pinned source URL by error id, which markdown links to (a diff's records hold
    none: a side's repository and commit are its catalog's)."""

    old: Mapping[str, str] = field(default_factory=dict)
    new: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, old: Catalog, new: Catalog) -> SourceLinks:
        return cls(*({e.id: e.url for e in (*c.retired, *c.errors)} for c in (old, new)))


def format_diff(
    diff: CatalogDiff,
    fmt: str,
    color: bool = False,
    links: SourceLinks = SourceLinks(),
    max_chars: int | None = None,
    gates: Collection[str] = (),
) -> str:
    """`fmt`: text, markdown, json, github or sarif (`errscan diff --format`). text is in color if
    asked; markdown links where `links` know and stops before `max_chars` with a note of what it
    left out; github and sarif make the kinds in `gates` (what `--fail-on` names) errors, the rest
    notes.

    Text, markdown and github have the scanned text's control characters escaped
    (`errscan.terminal`); colors are put in after, as marks that escaping leaves alone."""
    if fmt == "json":
        return dump_json(diff)
    if fmt == "markdown":
        return printable(_markdown(diff, links, max_chars), lines=True)
    if fmt == "github":
        return printable(github_commands(diff, gates), lines=True)
    if fmt == "sarif":
        return sarif_log(diff, gates)
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


@dataclass(frozen=True)
class _Section:
    kind: str  # added, removed, changed or moved: what the note counts
    opening: list[str]
    entries: list[str]  # each one or more lines
    closing: list[str] = field(default_factory=list)


def _markdown(diff: CatalogDiff, links: SourceLinks, max_chars: int | None) -> str:
    head = [f"### Errors: {diff.old} → {diff.new}", "", f"**{headline(diff)}**"]
    sections = []
    for kind, refs, urls in (("added", diff.added, links.new), ("removed", diff.removed, links.old)):
        if refs:
            opening = ["", f"#### {kind.capitalize()}", "", "| Exception | Message | Where |", "|---|---|---|"]
            rows = [f"| {code_span(e.label)} | {markdown_text(e.message)} | {_linked_where(e, urls)} |" for e in refs]
            sections.append(_Section(kind, opening, rows))
    changed, moved = split_changes(diff)
    if changed:
        entries = [
            "\n".join([
                f"- {code_span(c.new.label)} at {_linked_where(c.new, links.new)}",
                *(f"  - {line}" for line in _details(c, _markdown_words, code_span, "→")),
            ])
            for c in changed
        ]
        sections.append(_Section("changed", ["", "#### Changed", ""], entries))
    if moved:
        opening = ["", f"<details><summary>{len(moved)} only moved lines</summary>", ""]
        entries = [f"- {_linked(f'{c.new.path}:{c.new.line}', c.new, links.new)}, from line {c.old.line}: {markdown_text(_clip(c.new.message))}" for c in moved]
        sections.append(_Section("moved", opening, entries, ["", "</details>"]))
    return _fit(head, sections, max_chars)


def _fit(head: list[str], sections: list[_Section], max_chars: int | None) -> str:
    """The head, then as many entries in order as fit in `max_chars` with the closing note that
    counts the rest, each section's closing lines kept (a PR comment longer than GitHub's limit is
    refused whole)."""
    note_room = 200
    lines = list(head)
    size = sum(len(line) + 1 for line in lines)
    left_out: dict[str, int] = {}
    for section in sections:
        frame = sum(len(line) + 1 for line in section.opening + section.closing)
        kept = []
        for entry in section.entries:
            if left_out or (max_chars and size + frame + len(entry) + 1 + note_room > max_chars):
                left_out[section.kind] = left_out.get(section.kind, 0) + 1
                continue
            kept.append(entry)
            size += len(entry) + 1
        if kept:
            lines += section.opening + kept + section.closing
            size += frame
    if left_out:
        counts = ", ".join(f"{count} {kind}" for kind, count in left_out.items())
        lines += ["", f"> Left out to stay under {max_chars:,} characters: {counts}. `--format json` lists every one."]
    return "\n".join(lines) + "\n"


def _linked_where(e: ErrorRef, urls: Mapping[str, str]) -> str:
    return f"{_linked(f'{e.path}:{e.line}', e, urls)} in {code_span(e.function)}"


def _linked(text: str, e: ErrorRef, urls: Mapping[str, str]) -> str:
    """`text` as code, linked to the error's pinned line where its side's URL is known."""
    url = urls.get(e.id)
    return f"[{code_span(text)}]({url})" if url else code_span(text)


def _markdown_words(words: tuple[WordDiff, ...]) -> str:
    styles = {"equal": "{}", "delete": "~~{}~~", "insert": "**{}**"}
    return " ".join(styles[w.op].format(markdown_text(w.text)) for w in words)


def markdown_text(text: str) -> str:
    """Text safe inside a table cell and beside markdown markup (`errscan show` uses it too)."""
    folded = " ".join(text.split()) or "(no message)"
    for char in "\\|*_~`<>[]":
        folded = folded.replace(char, "\\" + char)
    return folded


def code_span(text: str) -> str:
    """Inline code, safe inside a table cell."""
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    escaped = text.replace("|", "\\|")  # a pipe would end the table cell even inside code
    return f"{fence}{pad}{escaped}{pad}{fence}"
