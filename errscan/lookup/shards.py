"""The site's matcher split by key (api/matcher/, errscan.api.documents declares its files): what
`errscan lookup` reads to rank a message, a few small files per message instead of the whole
catalog's keys. Plain JSON read with the standard library alone, so that lookup starts fast.

- index.json: the scope, how many key files (`buckets`) and rows per rows file there are, the
  errors still raised (`count`), the catch-alls (templates without literal text) as full rows,
  and the templates with literal text but no key word (`unkeyed`), checked against every message;
- keys/<b>.json: for the words whose first three letters fall in bucket b, `keyed`, [position,
  anchor, lead] of each template keyed by one of them, and `words`, the position and word count of
  every template having one, in a flat list per word (position, count, position, count, ...);
- rows/<r>.json: the rows of errors r*rows ... (r+1)*rows - 1 (MatcherEntry), read for the best ones;
- frames.json: every error's file, function, lines, kind and exception in columns, read only for
  a traceback or a log record's source.

A template's anchor and lead (errscan.match.compile_template) are found in a message by substring,
so their key is one that any text showing them has (key_word): a whole word, or the beginning of
a word the run cuts at its end. A message reads the key file of each of its words' first three
letters (word_file).
"""

from __future__ import annotations

import json
import os
from collections import namedtuple

from errscan.api.layout import ERROR_ID, INDEX, MATCHER_FRAMES, MATCHER_INDEX, error_document_path, matcher_keys_path, matcher_rows_path
from errscan.errors import ErrscanError, UsageError
from errscan.match import WORD

ROWS_PER_FILE = 16
MAX_BUCKETS = 256
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

# One error as ranking and printing read it: a row of rows/<r>.json (or of the index's catch-alls).
# `surface` is -1, or the origin's `surfaces_as` position whose wrapper shows this message (the
# entry is then that origin as the wrapper shows it, under the origin's id: errscan/lookup/wrapped.py).
MatcherEntry = namedtuple(
    "MatcherEntry", "position id kind level exception path line end_line function removed_since message literal_chars surface"
)
# The types a row's values may have, every combination spelled out: checking a row is one lookup.
ROW_TYPES = {
    (int, str, str, level, str, str, int, int, str, removed_since, str, int, int)
    for level in (str, type(None)) for removed_since in (str, type(None))
}


def bucket(text: str, buckets: int) -> int:
    """A fixed hash of `text` into `buckets`, the same in every run (key_file)."""
    h = 0
    for byte in text.encode("utf-8"):
        h = (h * 31 + byte) & 0xFFFFFFFF
    return h % buckets


def bucket_count(errors: int) -> int:
    """Key files for a catalog of `errors`: about 32 errors each, at most MAX_BUCKETS."""
    return max(1, min(MAX_BUCKETS, errors // 32))


def key_word(run: str, opens: bool) -> str | None:
    """A key of a folded literal `run` that any text containing it shows (word_file); with
    `opens`, the text begins with the run. A word bounded inside the run by non-word characters is
    a word of the text ("=word"); one the run ends with begins a word of the text ("<" and its first
    three letters). The most selective one (a whole word, then the longest); None when the run has
    none (a sign, a short fragment, or words the run only ends: those are checked for every text)."""
    found = []
    for match in WORD.finditer(run):
        start, end = match.span()
        word = match.group().lower()
        if (start == 0 and not opens) or (start > 0 and run[start - 1] in _WORD_CHARS):
            continue  # the text's word may begin earlier (after a digit: with letters)
        if end < len(run):
            found.append((2, len(word), "=" + word))
        elif len(word) >= 3:
            found.append((1, len(word), "<" + word[:3]))
    return max(found)[2] if found else None


def key_file(key: str, buckets: int) -> str:
    """The key file of a key ("=word" or "<abc"), by the word's first three letters: a word's
    entries, its postings and the templates keyed by its beginning are in one file."""
    return matcher_keys_path(bucket(key[1:4], buckets))


def word_file(word: str, buckets: int) -> str:
    """The key file a text's word selects (key_file)."""
    return matcher_keys_path(bucket(word[:3], buckets))


def keys_of(anchor: str, head: str, lead: str) -> tuple[str, str] | None:
    """A template's two keys, the anchor's and the lead's (None if either has none)."""
    anchor_key, lead_key = key_word(anchor, False), key_word(lead, bool(head))
    return (anchor_key, lead_key) if anchor_key and lead_key else None


class SiteMatcher:
    """A built site's matcher files and error documents, read as plain JSON when first asked for,
    each checked so that a damaged site is one line (ErrscanError), never a traceback."""

    def __init__(self, root: str):
        self.root = root
        if not os.path.isfile(os.path.join(root, INDEX)):
            raise UsageError(f"not an errscan site: {root} (no {INDEX})")

    def __call__(self, relative: str):
        path = os.path.join(self.root, relative)
        try:
            with open(path, "rb") as file:
                document = json.load(file)
            _check(relative, document)
            return document
        except UsageError as exc:  # another schema version
            raise UsageError(f"cannot read the site at {self.root}: {exc}") from None
        except FileNotFoundError:
            if relative == MATCHER_INDEX:
                raise UsageError(f"cannot read the site at {self.root}: it has no {MATCHER_INDEX}; build it again with errscan scan") from None
            raise ErrscanError(f"cannot read the site at {self.root}: it has no {relative}") from None
        except (OSError, ValueError, RecursionError) as exc:
            raise ErrscanError(f"cannot read the site at {self.root}: {relative}: {type(exc).__name__}: {exc}") from exc

    def error(self, error_id: str) -> dict:
        """One error's document (api/errors/<id>.json), as a dict."""
        if not ERROR_ID.fullmatch(error_id):  # an id names a file: nothing else is read
            raise ErrscanError(f"cannot read the site at {self.root}: not an error id: {error_id!r}")
        path = os.path.join(self.root, error_document_path(error_id))
        try:
            with open(path, "rb") as file:
                document = json.load(file)
            if not isinstance(document, dict) or not ERROR_FIELDS <= document.keys():
                raise ValueError(f"not an error document (it needs {', '.join(sorted(ERROR_FIELDS))})")
            return document
        except (OSError, ValueError, RecursionError) as exc:
            raise ErrscanError(f"cannot read {path}: {type(exc).__name__}: {exc}") from exc


# What lookup reads of an error's document (errscan.model.ErrorSite's fields of these names).
ERROR_FIELDS = frozenset(
    ("id", "kind", "exception", "level", "message", "path", "line", "function", "url", "explanation", "surfaces_as", "history")
)


def _check(relative: str, document) -> None:
    """Raises ValueError when a matcher file is not what errscan.api.documents declares."""
    if not isinstance(document, dict):
        raise ValueError("not a JSON object")
    if relative == MATCHER_INDEX:
        _fields(document, {"schema_version": int, "include": list, "exclude": list, "buckets": int, "rows": int,
                           "count": int, "size": int, "catch_alls": list, "unkeyed": list})
        from errscan.api import SCHEMA_VERSION

        if document["schema_version"] != SCHEMA_VERSION:
            raise UsageError(f"its api/ has schema version {document['schema_version']}, this errscan reads {SCHEMA_VERSION}")
        if document["buckets"] < 1 or document["rows"] < 1:
            raise ValueError("buckets and rows must be positive")
        for row in document["catch_alls"]:
            _row(row, document["size"])
        for keyed in document["unkeyed"]:
            _keyed(keyed)
    elif relative == MATCHER_FRAMES:
        _fields(document, {name: list for name in ("files", "file_of", "kinds", "exceptions", "functions", "lines", "end_lines")})
        count = len(document["file_of"])
        if any(len(document[name]) != count for name in ("kinds", "exceptions", "functions", "lines", "end_lines")):
            raise ValueError("columns not as long as file_of")
        if any(not isinstance(f, int) or not 0 <= f < len(document["files"]) for f in document["file_of"]):
            raise ValueError("a position outside its list")
    elif "/keys/" in relative:
        _fields(document, {"keyed": list, "words": dict})
        for keyed in document["keyed"]:
            _keyed(keyed)
        for postings in document["words"].values():
            if type(postings) is not list or len(postings) % 2 or not set(map(type, postings)) <= {int}:
                raise ValueError("words: not lists of position, word count, position, ...")
    else:
        _fields(document, {"rows": list})
        for row in document["rows"]:
            _row(row, None)


def _fields(document: dict, types: dict) -> None:
    wrong = [name for name, kind in types.items() if not isinstance(document.get(name), kind)]
    if wrong:
        raise ValueError(f"{', '.join(wrong)} missing or not of its type")


def _keyed(keyed) -> None:
    if type(keyed) is not list or tuple(map(type, keyed)) != (int, str, str):
        raise ValueError(f"not a keyed template [position, anchor, lead]: {keyed!r:.80}")


def _row(row, size: int | None) -> None:
    if type(row) is not list or tuple(map(type, row)) not in ROW_TYPES:
        raise ValueError(f"not a row of {len(MatcherEntry._fields)} fields of their types: {row!r:.80}")
    if not ERROR_ID.fullmatch(row[1]):
        raise ValueError(f"not an error id: {row[1]!r}")
    if size is not None and not 0 <= row[0] < size:
        raise ValueError("a position outside its list")


def rows_file(position: int, rows: int) -> str:
    return matcher_rows_path(position // rows)
