"""Small rules about Python source and its syntax trees, kept once for every walk in `extract`."""

from __future__ import annotations

import ast


def source_lines(text: str) -> list[str]:
    """The lines of `text` without their ends, split where the tokenizer counts a new line:
    `\\r\\n`, `\\n` or `\\r`. (`str.splitlines` also splits at form feeds and other breaks, and
    then line N of an `ast` node is not `lines[N - 1]`.)"""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the end of the last line, not a line
    return lines


def first_line(stmt: ast.stmt) -> int:
    """A statement's first line: its first decorator's, if it has any."""
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


def child_blocks(stmt) -> list:
    """The blocks a compound statement holds, in source order: body, except handlers, `else`,
    `finally`, match cases. An `ast` block is a list of statements (empty where there is none);
    libcst names the same fields, and gives a suite, an `Else` or `Finally`, or the `If` of an `elif`."""
    blocks = []
    for field in ("body", "handlers", "orelse", "finalbody", "cases"):
        value = getattr(stmt, field, None)
        if field in ("handlers", "cases"):
            blocks.extend(part.body for part in value or ())
        elif value is not None:
            blocks.append(value)
    return blocks
