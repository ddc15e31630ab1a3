"""What errscan prints to a terminal: scanned text made inert.

Messages and file names come from the code scanned or the log looked up, which anyone may have
written: an escape sequence in them (a terminal title, a hyperlink, a cursor move, a colour that
hides the rest of the line) or a carriage return must never act on the user's terminal, and a
newline in a file name must not split a line a script reads. Every such character is shown as a
Python escape (`\\x1b`, `\\n`, `\\u202e`) instead.
"""

from __future__ import annotations

import functools
import re

# C0 controls (tab aside), DEL, C1 controls (8-bit CSI and OSC among them), the bidirectional
# overrides that reorder what is shown, and lone surrogates (bytes of a name that is not UTF-8).
_UNSAFE = r"\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"


def printable(text: str, lines: bool = False) -> str:
    """`text` with every control character escaped; with `lines`, newlines are kept (a block of
    lines whose own text is escaped, such as a lookup's answer or a diff)."""
    # Every unsafe character is unprintable (str.isprintable): most texts need no pattern at all,
    # and compiling it is a good part of a lookup's start.
    if (text.replace("\n", "") if lines else text).replace("\t", "").isprintable():
        return text
    return _unsafe(lines).sub(lambda found: ascii(found.group())[1:-1], text)


@functools.lru_cache(maxsize=None)
def _unsafe(lines: bool) -> re.Pattern[str]:
    return re.compile(f"[{_UNSAFE}]" if lines else f"[\\n{_UNSAFE}]")
