"""What `errscan show ID` prints: one catalogued error as a terminal reads it, as markdown for an
issue or a PR comment, or as its JSON document (the site's `api/errors/<id>.json`)."""

from __future__ import annotations

from typing import Callable

import msgspec

from errscan.api.documents import ErrorDocument
from errscan.api.layout import page_path
from errscan.compare.formats import code_span, markdown_text

def format_error(document: ErrorDocument, fmt: str, site_prefix: str) -> str:
    """`fmt`: "text", "json" or "markdown" (`errscan show --format`); `site_prefix` leads to the
    error's page (`site/`)."""
    if fmt == "json":
        return msgspec.json.format(msgspec.json.encode(document), indent=2).decode() + "\n"
    if fmt == "markdown":
        return _markdown(document, site_prefix)
    return _text(document, site_prefix)


def _when(document: ErrorDocument, code: Callable[[str], str]) -> str | None:
    """The firing condition: in plain words where the analysis had them (already with their
    `code` marks), else as code."""
    trigger = document.trigger
    if trigger is not None and trigger.plain:
        return trigger.plain
    if trigger is not None and trigger.condition:
        return code(trigger.condition)
    if document.kind == "assert" and document.assert_test:
        return code(f"not ({document.assert_test})")
    return None


def _pinned(document: ErrorDocument) -> str:
    release = f"version {document.version}, " if document.version else ""
    commit = f"commit {document.commit[:12]}" if document.commit else "commit not known"
    return release + commit


def _text(document: ErrorDocument, site_prefix: str) -> str:
    fields = [
        ("id", f"{document.id} ({document.kind})"),
        ("where", f"{document.path}:{document.line} in {document.function} ({_pinned(document)})"),
        ("source", document.url),
        ("page", f"{site_prefix}{page_path(document.id)}"),
        ("when", _when(document, str)),
    ]
    trigger = document.trigger
    if trigger is not None:
        fields += [("connectors", ", ".join(trigger.connectors)), ("settings", ", ".join(k.name for k in trigger.knobs))]
        fields += [("solution", solution) for solution in trigger.solutions]
    if document.history is not None:
        fields.append(("gone since", document.history.removed_since))
    lines = [f"{document.exception}: {document.message or '(no message)'}"]
    lines += [f"  {name:<11}{value}" for name, value in fields if value]
    excerpt = document.excerpt
    width = len(str(excerpt.start_line + len(excerpt.lines)))
    lines.append("")
    for number, text in enumerate(excerpt.lines, excerpt.start_line):
        mark = ">" if document.line <= number <= document.end_line else " "
        lines.append(f"{mark} {number:>{width}} | {text}".rstrip())
    return "\n".join(lines) + "\n"


def _markdown(document: ErrorDocument, site_prefix: str) -> str:
    lines = [
        f"### {code_span(document.exception)}: {markdown_text(document.message)}",
        "",
        f"- id: {code_span(document.id)} ({document.kind})",
        f"- raised at [{code_span(f'{document.path}:{document.line}')}]({document.url}) in {code_span(document.function)} ({_pinned(document)})",
        f"- page: {site_prefix}{page_path(document.id)}",
    ]
    when = _when(document, code_span)
    if when:
        lines.append(f"- when: {when}")
    trigger = document.trigger
    if trigger is not None:
        if trigger.connectors:
            lines.append(f"- connectors: {', '.join(f'`{c}`' for c in trigger.connectors)}")
        if trigger.knobs:
            lines.append(f"- settings: {', '.join(code_span(knob.name) for knob in trigger.knobs)}")
        lines += [f"- solution: {solution}" for solution in trigger.solutions]  # written with `code` marks
    fence = "````" if any("```" in line for line in document.excerpt.lines) else "```"
    lines += ["", f"{fence}python", *document.excerpt.lines, fence]
    return "\n".join(lines) + "\n"
