"""Where each file of a site lies, relative to its root: one answer for its writers and readers.
Standard library only: `errscan lookup` reads it on every run."""

from __future__ import annotations

import re

INDEX = "api/index.json"
CALLGRAPH = "api/callgraph.json"
SCHEMA = "api/schema.json"
ERROR_ID = re.compile(r"[0-9a-f]{16}")  # errscan.ids.error_id: an id names files, so nothing else is read
# The matcher, split by key (errscan/lookup/shards.py): an index, key files, rows files, frames.
MATCHER_INDEX = "api/matcher/index.json"
MATCHER_FRAMES = "api/matcher/frames.json"


def matcher_keys_path(bucket: int) -> str:
    return f"api/matcher/keys/{bucket}.json"


def matcher_rows_path(number: int) -> str:
    return f"api/matcher/rows/{number}.json"


def error_document_path(error_id: str) -> str:
    return f"api/errors/{error_id}.json"


def changes_document_path(diff) -> str:
    """Where the JSON of a CatalogDiff (errscan.model, not imported here) lies."""
    return f"api/changes/{slug(diff.old)}..{slug(diff.new)}.json"


def page_path(error_id: str) -> str:
    """Where an error's page lies."""
    return f"errors/{error_id}/index.html"


def slug(label: str) -> str:
    """A release label as one safe path segment."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label)
