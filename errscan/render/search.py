"""The search index: one entry per error, in chunks of JavaScript files the pages load with <script>.

Chunks are scripts, not JSON fetched at run time, because `fetch` is refused on `file://` pages.
Each entry carries what `errscan.match.compile_template` makes of its template (the exact pattern,
the literal character count, the words, the keys), so the browser scores with the rules of
`errscan.match.score_message` (docs/matching.md) without compiling templates a second time; it
makes the cut-message pattern from the exact one as `errscan.match.cut_pattern` does, since that
pattern would be most of the index.
"""

from __future__ import annotations

import json
from typing import Any

from errscan.lookup.wrapped import SeenAs, seen_as
from errscan.match import compile_template
from errscan.model import Catalog, ErrorSite

CHUNK_SIZE = 500  # entries per file: small enough to parse quickly, few enough files at 13,000 errors

_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data: Any) -> str:
    """JSON that stays inert inside a <script> element: no `</script>`, `<!--` or line separators."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "".join(_SCRIPT_UNSAFE.get(char, char) for char in text)


def search_entry(error: ErrorSite) -> dict[str, Any]:
    compiled = compile_template(error.message)
    return {
        "id": error.id,
        "exception": error.exception,
        "kind": error.kind,
        "level": error.level,
        "message": error.message,
        "path": error.path,
        "line": error.line,
        "end_line": error.end_line,
        "function": error.function,
        "connectors": error.connectors,
        "removed_since": error.removed_since,
        "pattern": compiled.pattern,  # the cut-message pattern is made from it (errscan.match.cut_pattern)
        "literal_chars": compiled.literal_chars,
        "words": list(compiled.words),
        # errscan.match.may_be_exact and may_be_cut: most regexes need never run
        "anchor": compiled.anchor,
        "head": compiled.head,
        "lead": compiled.lead,
    }


def seen_entry(seen: SeenAs) -> dict[str, Any]:
    """An origin as its wrapper shows it (lookup/wrapped.py): scored like an error, it leads to the
    origin's page and names the wrapper; browse lists and keyword search leave it out."""
    entry = search_entry(seen.view)
    origin, surface = seen.origin, seen.surface
    shown = surface.exception.rsplit(".", 1)[-1] if surface.exception else f"{(surface.level or '').upper()} log record"
    place = f"{(surface.path or '').rsplit('/', 1)[-1]}:{surface.log_line or surface.line}"
    entry["via"] = {
        "text": f"seen as {shown} written at {place} ({surface.how})",
        "label": origin.label,
        "message": origin.message,
        "path": origin.path,
        "line": origin.line,
        "function": origin.function,
    }
    return entry


def manifest(catalog: Catalog, chunks: int) -> dict[str, Any]:
    return {
        "repo": catalog.repo,
        "commit": catalog.commit,
        "version": catalog.version,
        "total": len(catalog.errors) + len(catalog.retired),
        "chunks": chunks,
    }


def index_scripts(catalog: Catalog) -> dict[str, str]:
    """File name under `data/` -> script text: `manifest.js` and `errors-NNN.js` chunks. Errors no
    longer raised come last, so that a search finds them (logs come from old releases too)."""
    errors = catalog.errors + catalog.retired
    entries = [search_entry(e) for e in errors] + [seen_entry(s) for s in seen_as(errors)]
    chunks = [entries[i : i + CHUNK_SIZE] for i in range(0, len(entries), CHUNK_SIZE)]
    files = {"manifest.js": f"errscanManifest({script_json(manifest(catalog, len(chunks)))});\n"}
    for number, chunk in enumerate(chunks):
        files[chunk_name(number)] = f"errscanChunk({number},{script_json(chunk)});\n"
    return files


def chunk_name(number: int) -> str:
    return f"errors-{number:03d}.js"
