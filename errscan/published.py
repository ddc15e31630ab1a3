"""A published site read back into a Catalog, so `diff` can compare sites without rescanning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from errscan.errors import ErrscanError, UsageError
from errscan.model import Catalog, catalog_from_dict


def is_site(path: Path) -> bool:
    return (path.is_dir() and (path / "api" / "index.json").is_file()) or (
        path.is_file() and path.name == "index.json"
    )


def load_site(path: Path) -> Catalog:
    """The catalog of a site folder or of its `api/index.json`: the listed errors, in full."""
    index_file = path if path.is_file() else path / "api" / "index.json"
    if not index_file.is_file():
        raise UsageError(f"not an errscan site: {path} has no api/index.json")
    index = _read_json(index_file)
    try:
        ids = [entry["id"] for entry in index["errors"]]
    except (KeyError, TypeError) as exc:
        raise ErrscanError(f"{index_file} is not an errscan index: missing {exc}") from exc
    errors_dir = index_file.parent / "errors"
    errors = [_read_json(errors_dir / f"{error_id}.json") for error_id in ids]
    try:
        # A history site lists retired errors briefly; diff compares what each side raises.
        return catalog_from_dict({**index, "errors": errors, "retired": []})
    except (KeyError, TypeError) as exc:
        raise ErrscanError(f"{errors_dir} holds an error that is not errscan's: {exc}") from exc


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ErrscanError(f"incomplete site: {path} is missing") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ErrscanError(f"cannot read {path}: {exc}") from exc
