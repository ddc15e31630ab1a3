"""api/schema.json: the JSON Schema of the API, derived from the documents' declarations.

tests/api/schema_snapshot.json holds the schema this errscan writes, so that a change of the
schema is a deliberate one: refresh the snapshot, and bump SCHEMA_VERSION when the documents change.
"""

from __future__ import annotations

from typing import Any

import msgspec

from errscan.api.documents import (
    AliasDocument, ErrorDocument, IndexDocument, MatcherFramesDocument, MatcherIndexDocument, MatcherKeysDocument,
    MatcherRowsDocument,
)
from errscan.model import SCHEMA_VERSION, CallGraphDocument, CatalogDiff

DOCUMENTS = (
    IndexDocument, ErrorDocument, CallGraphDocument, MatcherIndexDocument, MatcherKeysDocument, MatcherRowsDocument,
    MatcherFramesDocument, AliasDocument, CatalogDiff,
)


def api_schema() -> dict[str, Any]:
    refs, definitions = msgspec.json.schema_components(DOCUMENTS, ref_template="#/$defs/{name}")
    for definition in definitions.values():
        properties = definition.get("properties")
        if properties is None:
            continue
        # Documents are written from these declarations only: a field of any other name is an error.
        definition["additionalProperties"] = False
        if "schema_version" in properties:
            properties["schema_version"] = {"const": SCHEMA_VERSION}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "schema.json",
        "title": "errscan error catalog API",
        "description": (
            "api/index.json is an IndexDocument, api/errors/<id>.json an ErrorDocument, "
            "api/callgraph.json a CallGraphDocument; api/matcher/ holds index.json (MatcherIndexDocument), keys/<n>.json "
            "(MatcherKeysDocument), rows/<n>.json (MatcherRowsDocument) and frames.json (MatcherFramesDocument); a site over several releases adds "
            "api/errors/<old id>.json as AliasDocument and api/changes/<old>..<new>.json as "
            "CatalogDiff (also the output of `errscan diff --format json`)."
        ),
        "schema_version": SCHEMA_VERSION,
        "oneOf": list(refs),
        "$defs": definitions,
    }
