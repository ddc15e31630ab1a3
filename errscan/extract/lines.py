"""Source lines numbered as Python numbers them."""

from __future__ import annotations


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
