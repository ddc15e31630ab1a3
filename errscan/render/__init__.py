"""Render: the catalog as a static site (HTML pages and JSON API), written atomically."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import jinja2

from errscan.errors import ErrscanError, UsageError
from errscan.fsutil import swap_in_folder
from errscan.model import Catalog, ErrorSite, catalog_from_dict, to_dict

INDEX_FIELDS = ("id", "kind", "exception", "exception_qualname", "message", "path", "line", "function", "url")


def templates_dir() -> Path:
    """`templates/` ships inside the wheel as errscan/templates; in a checkout it sits beside it."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "templates"


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def dump_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def index_document(catalog: Catalog) -> dict[str, Any]:
    return {
        "schema_version": catalog.schema_version,
        "repo": catalog.repo,
        "commit": catalog.commit,
        "version": catalog.version,
        "include": list(catalog.include),
        "exclude": list(catalog.exclude),
        "summary": _stable_summary(catalog),
        "errors": [{k: getattr(e, k) for k in INDEX_FIELDS} for e in catalog.errors],
    }


def error_document(catalog: Catalog, error: ErrorSite) -> dict[str, Any]:
    return {
        "schema_version": catalog.schema_version,
        "repo": catalog.repo,
        "commit": catalog.commit,
        "version": catalog.version,
        **to_dict(error),
    }


def write_site(catalog: Catalog, out: Path) -> None:
    """Build the whole site beside `out`, then swap it in: a failed build leaves `out` as it was."""
    if out.exists() and any(out.iterdir()) and not (out / "api" / "index.json").is_file():
        raise UsageError(f"refusing to replace {out}: it is not empty and not an errscan site")
    out.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.build-"))
    try:
        _write_files(catalog, build)
        swap_in_folder(build, out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise


def page_path(error: ErrorSite) -> str:
    """Where an error's page lies, relative to the site's root."""
    return f"errors/{error.id}/index.html"


def read_site(root: Path) -> Catalog:
    """The catalog a built site publishes: `api/index.json` with each `api/errors/<id>.json`."""
    index_file = root / "api" / "index.json"
    if not index_file.is_file():
        raise UsageError(f"not an errscan site: {root} (no api/index.json)")
    try:
        index = json.loads(index_file.read_text(encoding="utf-8"))
        errors = [
            json.loads((root / "api" / "errors" / f"{entry['id']}.json").read_text(encoding="utf-8"))
            for entry in index["errors"]
        ]
        return catalog_from_dict({**index, "errors": errors})
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ErrscanError(f"cannot read the site at {root}: {type(exc).__name__}: {exc}") from exc


def _write_files(catalog: Catalog, root: Path) -> None:
    env = environment()
    short = (catalog.commit or "")[:10]
    common = {"catalog": catalog, "short_commit": short}
    (root / "api" / "errors").mkdir(parents=True)
    _write(root / "api" / "index.json", dump_json(index_document(catalog)))
    if catalog.callgraph:
        _write(root / "api" / "callgraph.json", dump_json(catalog.callgraph))
    error_page = env.get_template("error.html")
    for error in catalog.errors:
        _write(root / "api" / "errors" / f"{error.id}.json", dump_json(error_document(catalog, error)))
        page = error_page.render(error=error, root="../../", **common)
        _write(root / page_path(error), page)
    _write(root / "index.html", env.get_template("index.html").render(root="", **common))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _stable_summary(catalog: Catalog) -> dict[str, Any]:
    """The summary without timings, so that two scans of one input write identical files."""
    summary = to_dict(catalog.summary)
    summary.pop("stage_seconds", None)
    return summary
