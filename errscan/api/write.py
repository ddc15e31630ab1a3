"""The api/ folder's files as text: sorted JSON, identical from one run to the next; indented, but
for the ones a site holds thousands of or that are large (error documents, call graph, matcher)."""

from __future__ import annotations

from typing import Any

import msgspec

from errscan.api.documents import alias_document, index_document, matcher_documents
from errscan.api.layout import CALLGRAPH, INDEX, SCHEMA, changes_document_path, error_document_path
from errscan.api.schema import api_schema
from errscan.model import Catalog

_ENCODER = msgspec.json.Encoder(order="sorted")


def dump_json(document: Any, compact: bool = False) -> str:
    """A document (a record, or plain data) as JSON with sorted keys, indented by 2, non-ASCII
    characters as they are; `compact`: on one line, for large data files."""
    text = _ENCODER.encode(document)
    if not compact:
        text = msgspec.json.format(text, indent=2)
    return text.decode("utf-8") + "\n"


def api_files(catalog: Catalog) -> dict[str, str]:
    """Path -> text of every api/ file but the error documents, which are written with the pages."""
    files = {INDEX: dump_json(index_document(catalog)), SCHEMA: dump_json(api_schema())}
    files.update((path, dump_json(document, compact=True)) for path, document in matcher_documents(catalog).items())
    if catalog.callgraph is not None:
        files[CALLGRAPH] = dump_json(catalog.callgraph, compact=True)
    for alias in catalog.aliases:
        files[error_document_path(alias)] = dump_json(alias_document(catalog, alias))
    for diff in catalog.changes:
        files[changes_document_path(diff)] = dump_json(diff)
    return files
