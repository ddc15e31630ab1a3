"""JSON Schema of the API (`api/index.json`, `api/errors/<id>.json`, `api/callgraph.json`): api/schema.json.

Written out by hand, field by field, so that a change to the model that is not also made here fails
the tests that validate every emitted file against it.
"""

from __future__ import annotations

from typing import Any

from errscan.model import SCHEMA_VERSION

_STR = {"type": "string"}
_OPT_STR = {"type": ["string", "null"]}
_INT = {"type": "integer"}
_STRINGS = {"type": "array", "items": _STR}


def _record(properties: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": sorted(k for k in properties if k not in optional),
        "additionalProperties": False,
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


_DEFS: dict[str, Any] = {
    "trigger": _record(
        {
            "condition": _OPT_STR,
            "conjuncts": _STRINGS,
            "raw_condition": _OPT_STR,
            "plain": _OPT_STR,
            "partial": {"type": "boolean"},
            "unknown": _STRINGS,
            "contributions": {"type": "array", "items": _record({"condition": _STR, "text": _STR})},
            "chains": {
                "type": "array",
                "items": _record(
                    {
                        "entry_kind": _STR,
                        "path": _STRINGS,
                        "steps": {
                            "type": "array",
                            "items": _record(
                                {"caller": _STR, "callee": _STR, "path": _STR, "line": _INT, "condition": _OPT_STR}
                            ),
                        },
                        "condition": _OPT_STR,
                        "trigger": _OPT_STR,
                    }
                ),
            },
            "connectors": _STRINGS,
            "knobs": {"type": "array", "items": _record({"kind": _STR, "name": _STR, "detail": _STR})},
            "solutions": _STRINGS,
            "related": {"type": "array", "items": _record({"id": _STR, "reason": _STR})},
        }
    ),
    "placeholder": _record({"expr": _STR, "conversion": _STR, "format_spec": _STR, "source": _STR}),
    "history": _record(
        {
            "releases": {
                "type": "array",
                "items": _record(
                    {"release": _STR, "present": {"type": "boolean"}, "commit": _OPT_STR, "id": _OPT_STR,
                     "path": _OPT_STR, "line": {"type": ["integer", "null"]}, "message": _OPT_STR}
                ),
            },
            "first_seen": _STR,
            "last_changed": _OPT_STR,
            "removed_since": _OPT_STR,
            "aliases": _STRINGS,
        }
    ),
    "error_ref": _record({"id": _STR, "path": _STR, "line": _INT, "function": _STR, "exception": _STR, "message": _STR}),
    "pin": {
        "schema_version": {"const": SCHEMA_VERSION},
        "repo": _STR,
        "commit": _OPT_STR,
        "version": _OPT_STR,
    },
}

_ERROR_FIELDS: dict[str, Any] = {
    "id": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
    "kind": {"enum": ["raise", "assert"]},
    "exception": _STR,
    "exception_qualname": _OPT_STR,
    "exception_bases": _STRINGS,
    "message": _STR,
    "placeholders": {"type": "array", "items": _ref("placeholder")},
    "path": _STR,
    "line": _INT,
    "end_line": _INT,
    "function": _STR,
    "comments": _STRINGS,
    "excerpt": _record({"start_line": _INT, "lines": _STRINGS}),
    "url": _STR,
    "cause": _OPT_STR,
    "assert_test": _OPT_STR,
    "docstring": _OPT_STR,
    "trigger": {"anyOf": [_ref("trigger"), {"type": "null"}]},
    "history": {"anyOf": [_ref("history"), {"type": "null"}]},
}

# What a site over several releases adds to api/index.json (see errscan/render/history.py).
_HISTORY_INDEX_FIELDS: dict[str, Any] = {
    "releases": {"type": "array", "items": _record({"label": _STR, "version": _OPT_STR, "commit": _OPT_STR})},
    "aliases": {"type": "object", "additionalProperties": _STR},
    "no_longer_raised": {
        "type": "array",
        "items": _record({"id": _STR, "exception": _STR, "message": _STR, "path": _STR, "line": _INT, "removed_since": _OPT_STR}),
    },
    "change_pages": {"type": "array", "items": _record({"old": _STR, "new": _STR, "json": _STR})},
}

INDEX_ENTRY_FIELDS: dict[str, Any] = {
    **{k: _ERROR_FIELDS[k] for k in ("id", "kind", "exception", "exception_qualname", "message", "path", "line", "function", "url")},
    "connectors": _STRINGS,
}


def api_schema() -> dict[str, Any]:
    pin = _DEFS["pin"]
    defs = {k: v for k, v in _DEFS.items() if k != "pin"}
    defs["error_document"] = _record({**pin, **_ERROR_FIELDS})
    defs["index_document"] = _record(
        {
            **pin,
            "include": _STRINGS,
            "exclude": _STRINGS,
            "files": _STRINGS,
            "summary": _record(
                {
                    "files_read": _INT,
                    "files_catalogued": _INT,
                    "raises": _INT,
                    "asserts": _INT,
                    "reraises": _INT,
                    "parse_failures": {"type": "array", "items": _record({"path": _STR, "line": _INT, "reason": _STR})},
                    "graph_files": _INT,
                    "graph_functions": _INT,
                    "graph_edges": _INT,
                    "unresolved_calls": _INT,
                    "entry_points": _INT,
                    "errors_with_chain": _INT,
                }
            ),
            "errors": {"type": "array", "items": _record(INDEX_ENTRY_FIELDS)},
            **_HISTORY_INDEX_FIELDS,
        },
        optional=(*_HISTORY_INDEX_FIELDS, "files"),  # sites written before `files` was
    )
    defs["alias_document"] = _record({"schema_version": {"const": SCHEMA_VERSION}, "id": _STR, "alias_of": _STR})
    refs = {"type": "array", "items": _ref("error_ref")}
    defs["changes_document"] = _record(
        {
            "old": _STR,
            "new": _STR,
            "added": refs,
            "removed": refs,
            "changed": {
                "type": "array",
                "items": _record(
                    {
                        "old": _ref("error_ref"),
                        "new": _ref("error_ref"),
                        "matched_by": _STR,
                        "changes": {"type": "array", "items": _record({"field": _STR, "old": _STR, "new": _STR})},
                        "message_diff": {
                            "type": "array",
                            "items": _record({"op": {"enum": ["equal", "delete", "insert"]}, "text": _STR}),
                        },
                    }
                ),
            },
            "unchanged": _INT,
        }
    )
    defs["callgraph_document"] = _record(
        {
            "nodes": _INT,
            "edges": {
                "type": "array",
                "items": _record(
                    {"caller": _STR, "callee": _STR, "path": _STR, "line": _INT, "resolution": _STR, "receiver": _STR}
                ),
            },
            "unresolved_calls": _INT,
            "external_calls": _INT,
        }
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "schema.json",
        "title": "errscan error catalog API",
        "description": (
            "api/index.json is an index_document, api/errors/<id>.json an error_document, "
            "api/callgraph.json a callgraph_document; a site over several releases adds "
            "api/errors/<old id>.json as alias_document and api/changes/<old>..<new>.json as "
            "changes_document (also the output of `errscan diff --format json`)."
        ),
        "schema_version": SCHEMA_VERSION,
        "oneOf": [
            _ref("index_document"), _ref("error_document"), _ref("callgraph_document"),
            _ref("alias_document"), _ref("changes_document"),
        ],
        "$defs": defs,
    }
