"""Where each file of a site lies, relative to its root: one answer for its writers and readers."""

from __future__ import annotations

import re

from errscan.model import CatalogDiff, ErrorHead

INDEX = "api/index.json"
CALLGRAPH = "api/callgraph.json"
SCHEMA = "api/schema.json"
MATCHER = "api/matcher.json"


def error_document_path(error_id: str) -> str:
    return f"api/errors/{error_id}.json"


def changes_document_path(diff: CatalogDiff) -> str:
    return f"api/changes/{slug(diff.old)}..{slug(diff.new)}.json"


def page_path(error: ErrorHead) -> str:
    """Where an error's page lies."""
    return f"errors/{error.id}/index.html"


def slug(label: str) -> str:
    """A release label as one safe path segment."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label)
