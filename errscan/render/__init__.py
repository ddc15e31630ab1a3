"""Render: the catalog as a static site (HTML pages, browse lists, search index, JSON API), written atomically.

Layout: index.html (browse), errors/<id>/index.html, browse/<group>.html, search/index.html,
data/*.js (search and filter index), assets/ (one stylesheet, one script), api/ (JSON and schema).
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import jinja2
import markupsafe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from errscan import __version__
from errscan.errors import ErrscanError, UsageError
from errscan.runtime.fsutil import new_folder, swap_in_folder
from errscan.model import SCHEMA_VERSION, Catalog, ErrorSite, catalog_from_dict, to_dict
from errscan.analysis.plain import condition_words, plain_words
from errscan.compare.changes import knob_changes
from errscan.match import split_template
from errscan.render import browse, explain
from errscan.compare.pages import history_index_fields, slug, write_history_files
from errscan.render.schema import api_schema
from errscan.render.search import connectors_of, index_scripts
from errscan.stages import github_url
from errscan.runtime.pool import TaskLost, run_all

INDEX_PAGE_ROWS = 100  # errors listed on index.html before the filters' own paging takes over

INDEX_FIELDS = ("id", "kind", "exception", "exception_qualname", "message", "path", "line", "function", "url")


def templates_dir() -> Path:
    """`templates/` ships inside the wheel as errscan/templates; in a checkout it sits beside it."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "templates"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["slug"] = slug
    env.filters["inline_code"] = inline_code
    env.filters["knob_changes"] = knob_changes
    env.filters["template_pieces"] = split_template  # literal braces shown single, placeholders marked
    return env


def inline_code(text: str) -> markupsafe.Markup:
    """Escape `text`, then show its `backquoted` parts as <code>: the form explain.py writes words in."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backquote: show it as it is
        return markupsafe.escape(text)
    return markupsafe.Markup("").join(
        markupsafe.Markup("<code>{}</code>").format(part) if i % 2 else markupsafe.escape(part)
        for i, part in enumerate(parts)
    )


def highlighted_excerpt(error: ErrorSite) -> markupsafe.Markup:
    """The excerpt as Pygments HTML with line numbers; the lines of the statement marked."""
    excerpt = error.excerpt
    marked = [n - excerpt.start_line + 1 for n in range(error.line, error.end_line + 1)]
    formatter = HtmlFormatter(
        linenos="inline", linenostart=excerpt.start_line, hl_lines=marked, cssclass="source", wrapcode=True
    )
    return markupsafe.Markup(highlight("\n".join(excerpt.lines) + "\n", PythonLexer(stripnl=False), formatter))


def dump_json(data: Any, compact: bool = False) -> str:
    """Sorted, deterministic JSON; `compact` (one line) for large data files, which the C encoder
    writes many times faster than the indented form."""
    if compact:
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def index_document(catalog: Catalog) -> dict[str, Any]:
    return {
        "schema_version": catalog.schema_version,
        "repo": catalog.repo,
        "commit": catalog.commit,
        "version": catalog.version,
        "include": list(catalog.include),
        "exclude": list(catalog.exclude),
        "files": list(catalog.files),
        "summary": _stable_summary(catalog),
        "errors": [{**{k: getattr(e, k) for k in INDEX_FIELDS}, "connectors": connectors_of(e)} for e in catalog.errors],
        **history_index_fields(catalog),
    }


@dataclasses.dataclass(frozen=True)
class Pin:
    """The commit (and release) an error's record, lines and links refer to."""

    commit: str | None
    version: str | None


def pin_of(catalog: Catalog, error: ErrorSite) -> Pin:
    """The site's commit, or, for an error no longer raised, that of the last release raising it:
    its lines are that release's lines."""
    if error.history is not None and error.removed_since is not None:  # history: for the type checker
        last = [state for state in error.history.releases if state.present][-1]
        return Pin(last.commit, last.release)
    return Pin(catalog.commit, catalog.version)


def error_document(catalog: Catalog, error: ErrorSite) -> dict[str, Any]:
    pin = pin_of(catalog, error)
    return {
        "schema_version": catalog.schema_version,
        "repo": catalog.repo,
        "commit": pin.commit,
        "version": pin.version,
        **to_dict(error),
    }


def write_site(catalog: Catalog, out: Path, jobs: int = 0) -> None:
    """Build the whole site beside `out`, then swap it in: a failed build leaves `out` as it was.

    Error pages are written by `jobs` processes (0: one per core); each page depends only on the
    catalog, so the files are the same whatever `jobs` is.
    """
    check_site_target(out)
    fingerprint = build_fingerprint(catalog)
    stamp = out / ".errscan-build"
    if stamp.is_file() and stamp.read_text("utf-8") == fingerprint:
        return  # the site there was built from this very catalog, by these templates
    build = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        build = new_folder(out.parent, f".{out.name}.build-")
        _write_files(catalog, build, jobs or os.cpu_count() or 1)
        _write(build / ".errscan-build", fingerprint)  # last: a partial build never has it
        swap_in_folder(build, out)
    except OSError as exc:
        raise ErrscanError(f"cannot write the site to {out}: {exc.strerror or exc}") from exc
    finally:
        if build is not None:
            shutil.rmtree(build, ignore_errors=True)  # gone already when it was swapped in


def check_site_target(out: Path) -> None:
    """Raise UsageError unless a site can be written to `out`: checked before a long scan too."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"cannot write the site to {out}: it is a file")
    if out.is_dir() and any(out.iterdir()) and not (out / "api" / "index.json").is_file():
        raise UsageError(f"refusing to replace {out}: it is not empty and not an errscan site")
    if os.path.ismount(out):
        # The site is swapped in by renaming folders, and a mount point cannot be renamed.
        raise UsageError(f"cannot replace {out}: it is a mount point; give --out a folder inside it")
    # The site is built beside `out`: try making a folder where the first missing one would go
    # (making nothing that a failed scan would leave behind).
    existing = next(folder for folder in out.absolute().parents if folder.exists())
    try:
        if not existing.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        new_folder(existing, f".{out.name}.probe-").rmdir()
    except OSError as exc:
        raise UsageError(f"cannot write the site to {out}: {exc.strerror or exc}") from exc


def build_fingerprint(catalog: Catalog) -> str:
    """What a site is made from: the catalog (timings aside), errscan's version and its templates.

    The catalog is hashed as a pickle without memo (`fast`): the bytes then depend on its values
    alone, not on which objects happen to be shared, and it takes a fifth of printing it as JSON.
    """
    digest = hashlib.sha256(__version__.encode())
    unstamped = dataclasses.replace(catalog, summary=dataclasses.replace(catalog.summary, stage_seconds={}))
    pickler = pickle.Pickler(_Digesting(digest), protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # the catalog is a tree: no memo needed, and none wanted
    pickler.dump(unstamped)
    for path in sorted(templates_dir().rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(templates_dir()).as_posix().encode() + b"\0" + path.read_bytes())
    return dump_json({"build": digest.hexdigest()})


class _Digesting:
    """A file-like sink that feeds what is written to a hash."""

    def __init__(self, digest: "hashlib._Hash"):
        self.write = digest.update


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
        schema = index.get("schema_version") if isinstance(index, dict) else None
        if schema != SCHEMA_VERSION:
            raise UsageError(f"cannot read the site at {root}: its api/ has schema version {schema}, this errscan reads {SCHEMA_VERSION}")

        def records(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [json.loads((root / "api" / "errors" / f"{e['id']}.json").read_text(encoding="utf-8")) for e in entries]

        retired = records(index.get("no_longer_raised", []))
        return catalog_from_dict({**index, "errors": records(index["errors"]), "retired": retired})
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ErrscanError(f"cannot read the site at {root}: {type(exc).__name__}: {exc}") from exc


def _write_files(catalog: Catalog, root: Path, jobs: int) -> None:
    env = environment()
    short = (catalog.commit or "")[:10]
    common = {"catalog": catalog, "short_commit": short}
    (root / "api" / "errors").mkdir(parents=True)
    _write(root / "api" / "index.json", dump_json(index_document(catalog)))
    if catalog.callgraph:
        _write(root / "api" / "callgraph.json", dump_json(catalog.callgraph, compact=True))
    _write(root / "api" / "schema.json", dump_json(api_schema()))
    for name in ("style.css", "site.js"):
        _write(root / "assets" / name, (templates_dir() / "assets" / name).read_text("utf-8"))
    for name, text in index_scripts(catalog).items():
        _write(root / "data" / name, text)

    _write_error_pages(catalog, root, jobs)

    by_axis = {axis: browse.groups(catalog, axis) for axis in ("connector", "file")}
    group_page = env.get_template("group.html")
    for group in by_axis["connector"] + by_axis["file"]:
        for number in range(1, group.pages + 1):
            page = group_page.render(root="../", group=group, number=number, **common)
            _write(root / "browse" / group.page_name(number), page)
    first = sorted(catalog.errors, key=lambda e: (e.path, e.line, e.id))[:INDEX_PAGE_ROWS]
    index = env.get_template("index.html").render(
        root="", groups=by_axis, facets=browse.facet_counts(catalog), first_rows=first, **common
    )
    _write(root / "index.html", index)
    write_history_files(catalog, root, env, common, _write, dump_json)
    _write(root / "search" / "index.html", env.get_template("search.html").render(root="../", **common))


# What forked page writers read: set just before they start, so that it reaches them by fork
# instead of being pickled to each.
_PAGES: tuple[Catalog, Path] | None = None
_PAGES_PER_TASK = 200
PAGE_TIME_LIMIT = 600.0  # seconds for one task of pages: only a stuck writer comes near it


def _write_error_pages(catalog: Catalog, root: Path, jobs: int) -> None:
    global _PAGES
    count = len(catalog.errors) + len(catalog.retired)
    chunks = [range(i, min(i + _PAGES_PER_TASK, count)) for i in range(0, count, _PAGES_PER_TASK)]
    _PAGES = (catalog, root)
    try:
        if jobs == 1 or len(chunks) < 2:
            results = [_write_error_chunk(chunk) for chunk in chunks]
        else:
            results = run_all(_write_error_chunk, chunks, jobs, PAGE_TIME_LIMIT)
    finally:
        _PAGES = None
    lost = [r for r in results if isinstance(r, TaskLost)]
    if lost:
        raise ErrscanError(f"writing error pages failed: {lost[0].reason}")


def _write_error_chunk(chunk: range) -> int:
    """The JSON record and page of each error in `chunk` (positions in errors + retired)."""
    catalog, root = _PAGES
    errors = catalog.errors + catalog.retired
    by_id = catalog.by_id()
    common = {"catalog": catalog, "short_commit": (catalog.commit or "")[:10]}
    error_page = environment().get_template("error.html")
    for position in chunk:
        error = errors[position]
        _write(root / "api" / "errors" / f"{error.id}.json", dump_json(error_document(catalog, error)))
        related = [(by_id[r.id], r.reason) for r in (error.trigger.related if error.trigger else ()) if r.id in by_id]
        page = error_page.render(root="../../", **common, **error_context(catalog, error, related))
        _write(root / page_path(error), page)
    return len(chunk)


def error_context(catalog: Catalog, error: ErrorSite, related: list) -> dict[str, Any]:
    """What error.html shows beyond the record itself: words, highlighted source, checks, links."""
    firing = explain.firing_condition(error)
    trigger = error.trigger
    pin = pin_of(catalog, error)
    return {
        "error": error,
        "pin": pin,
        "firing": firing,
        "excerpt_html": highlighted_excerpt(error),
        "check": explain.defensive_check(error, firing) if firing else None,
        "solutions": list(trigger.solutions) if trigger else [],
        "trigger_words": condition_words(trigger.condition, trigger.plain) if trigger and trigger.condition else None,
        "contributions": [(c, plain_words(c.condition)) for c in trigger.contributions] if trigger else [],
        "chains": [
            (chain, [(step, github_url(catalog.repo, pin.commit, step.path, step.line)) for step in chain.steps])
            for chain in (trigger.chains if trigger else ())
        ],
        "related": related,
        "plain_words": plain_words,
    }


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _stable_summary(catalog: Catalog) -> dict[str, Any]:
    """The summary without timings, so that two scans of one input write identical files."""
    summary = to_dict(catalog.summary)
    summary.pop("stage_seconds", None)
    return summary
