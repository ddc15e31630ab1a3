"""api/schema.json is derived from the documents' declarations; the snapshot makes its changes deliberate."""

from __future__ import annotations

from pathlib import Path

import jsonschema

from errscan.api.schema import api_schema
from errscan.api.write import dump_json
from errscan.model import SCHEMA_VERSION

SNAPSHOT = Path(__file__).parent / "schema_snapshot.json"
REFRESH = (
    "python -c 'import sys; from errscan.api.schema import api_schema; from errscan.api.write import dump_json; "
    "sys.stdout.write(dump_json(api_schema()))' > tests/api/schema_snapshot.json"
)


def test_schema_is_the_snapshot():
    assert dump_json(api_schema()) == SNAPSHOT.read_text(encoding="utf-8"), (
        "the API's schema changed: if that is meant, bump SCHEMA_VERSION when the documents change "
        f"and refresh the snapshot: {REFRESH}"
    )


def test_schema_is_valid_and_names_its_version():
    schema = api_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["schema_version"] == SCHEMA_VERSION
    assert schema["$defs"]["IndexDocument"]["properties"]["schema_version"] == {"const": SCHEMA_VERSION}


def test_every_record_is_closed():
    """A field the model does not write is refused, in nested records too."""
    for name, definition in api_schema()["$defs"].items():
        if definition.get("type") == "object":
            assert definition["additionalProperties"] is False, name
