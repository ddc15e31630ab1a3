"""A built site read back into a Catalog: what `diff` and `lookup` work from without rescanning."""

from __future__ import annotations

from pathlib import Path

import msgspec

from errscan.api.documents import ErrorDocument, IndexDocument
from errscan.api.layout import ERROR_ID, INDEX, error_document_path
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


def check_error_id(text: str) -> str:
    """`text` if it is an error id; an id names a file, so nothing else is read."""
    if not ERROR_ID.fullmatch(text):
        raise UsageError(f"not an error id: {text!r} (16 hex digits, as in errors/<id>/ and api/errors/<id>.json)")
    return text


def read_error(root: Path, error_id: str) -> ErrorDocument:
    """One error's document, by its id or an earlier id of it (which leads to the current one);
    the rest of the site is not read."""
    check_error_id(error_id)
    if not (root / INDEX).is_file():
        raise UsageError(f"not an errscan site: {root} (no {INDEX})")
    path = root / error_document_path(error_id)
    try:
        data = msgspec.json.decode(path.read_bytes())
        if isinstance(data, dict) and "alias_of" in data:
            target = data["alias_of"]
            if not isinstance(target, str) or not ERROR_ID.fullmatch(target):  # it names a file too
                raise ValueError(f"alias_of is not an error id: {target!r}")
            path = root / error_document_path(target)
            data = msgspec.json.decode(path.read_bytes())
        schema = data.get("schema_version") if isinstance(data, dict) else None
        if schema != SCHEMA_VERSION:
            raise UsageError(f"cannot read the site at {root}: its api/ has schema version {schema}, this errscan reads {SCHEMA_VERSION}")
        return msgspec.convert(data, ErrorDocument)
    except FileNotFoundError:
        raise ErrscanError(
            f"no error {error_id} in the site at {root}; find one by its message: errscan lookup 'ValueError: ...'"
        ) from None
    except (OSError, ValueError, RecursionError) as exc:
        raise ErrscanError(f"cannot read {path}: {type(exc).__name__}: {exc}") from exc
