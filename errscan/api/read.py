"""A built site read back into a Catalog: what `diff` and `lookup` work from without rescanning."""

from __future__ import annotations

from pathlib import Path

import msgspec

from errscan.api.documents import IndexDocument
from errscan.api.layout import INDEX, error_document_path
from errscan.errors import ErrscanError, UsageError
from errscan.model import SCHEMA_VERSION, Catalog, ErrorSite

_ERROR = msgspec.json.Decoder(ErrorSite)  # an ErrorDocument's pin fields are left out


def read_site(root: Path) -> Catalog:
    """The catalog a built site publishes: `api/index.json` with each `api/errors/<id>.json`.
    The call graph and the diffs between releases stay in their own files."""
    index_file = root / INDEX
    if not index_file.is_file():
        raise UsageError(f"not an errscan site: {root} (no {INDEX})")
    try:
        data = msgspec.json.decode(index_file.read_bytes())
        schema = data.get("schema_version") if isinstance(data, dict) else None
        if schema != SCHEMA_VERSION:
            raise UsageError(f"cannot read the site at {root}: its api/ has schema version {schema}, this errscan reads {SCHEMA_VERSION}")
        index = msgspec.convert(data, IndexDocument)

        def errors(entries) -> list[ErrorSite]:
            return [_ERROR.decode((root / error_document_path(e.id)).read_bytes()) for e in entries]

        fields = {name: value for name, value in msgspec.structs.asdict(index).items() if value is not msgspec.UNSET}
        fields["errors"] = errors(index.errors)
        fields["retired"] = errors(fields.pop("no_longer_raised", ()))
        return msgspec.convert(fields, Catalog, from_attributes=True)
    except (OSError, ValueError, RecursionError) as exc:  # msgspec: ValueErrors, and RecursionError for deep nesting
        raise ErrscanError(f"cannot read the site at {root}: {type(exc).__name__}: {exc}") from exc
