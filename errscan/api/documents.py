"""The JSON documents of a site's api/ folder, declared once on the catalog's records.

Each document is a msgspec Struct made of errscan.model's records, so this one declaration gives
the encoding (errscan.api.write), the decoding (errscan.api.read) and the JSON Schema
(errscan.api.schema):

- api/index.json: IndexDocument;
- api/errors/<id>.json: ErrorDocument, or AliasDocument at an earlier id of an error;
- api/callgraph.json: CallGraphDocument (errscan.model);
- api/matcher/: what `errscan lookup` ranks a message against, split by key (MatcherIndexDocument,
  MatcherKeysDocument, MatcherRowsDocument, MatcherFramesDocument; errscan/lookup/shards.py);
- api/changes/<old>..<new>.json: CatalogDiff (errscan.model), also `errscan diff --format json`.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
from msgspec import UNSET, UnsetType

from errscan.api.layout import MATCHER_FRAMES, MATCHER_INDEX, changes_document_path, matcher_keys_path, matcher_rows_path
from errscan.lookup.shards import ROWS_PER_FILE, bucket, bucket_count, key_file, keys_of
from errscan.match import compile_template
from errscan.model import Catalog, ErrorHead, ErrorSite, Record, ReleaseRef, ScanCounts


class ErrorDocument(ErrorSite, kw_only=True):
    """An error's record, with the commit (and release) its lines and links are pinned to."""

    schema_version: int
    repo: str
    commit: str | None
    version: str | None


class IndexEntry(ErrorHead):
    """An error as the index lists it."""

    connectors: tuple[str, ...]


class RetiredEntry(Record):
    """An error that an earlier release of a history site raises and its latest does not."""

    id: str
    exception: str
    message: str
    path: str
    line: int
    removed_since: str | None


class ChangePage(Record):
    """The diff of one pair of consecutive releases: their labels and where its JSON is."""

    old: str
    new: str
    json: str


class IndexDocument(Record, kw_only=True):
    """The site's catalog at a glance: what was scanned, what was found, each error's head."""

    schema_version: int
    repo: str
    commit: str | None
    version: str | None
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    files: tuple[str, ...] = ()  # sites written before `files` was have none
    summary: ScanCounts
    errors: tuple[IndexEntry, ...]
    # Only a site over several releases has these. Retired errors and the diffs are listed under
    # names of their own: they are summaries, not the Catalog fields of the same meaning.
    releases: tuple[ReleaseRef, ...] | UnsetType = UNSET
    aliases: dict[str, str] | UnsetType = UNSET
    no_longer_raised: tuple[RetiredEntry, ...] | UnsetType = UNSET
    change_pages: tuple[ChangePage, ...] | UnsetType = UNSET


# A MatcherEntry (errscan/lookup/shards.py) as a JSON row.
MatcherRow = tuple[int, str, str, "str | None", str, str, int, int, str, "str | None", str, int, int]


class MatcherIndexDocument(Record, kw_only=True):
    """api/matcher/index.json: what `errscan lookup` reads first (errscan/lookup/shards.py says how
    the matcher is split). Positions number the errors: the current ones, those no longer raised,
    then the origins as wrappers show them."""

    schema_version: int
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    buckets: int  # key files: api/matcher/keys/<0..buckets-1>.json
    rows: int  # rows per file of api/matcher/rows/<n>.json
    size: int  # positions
    count: int  # errors still raised
    catch_alls: tuple[MatcherRow, ...]  # templates without literal text, whose message is not blank
    unkeyed: tuple[tuple[int, str, str], ...]  # [position, anchor, lead] of templates without key words


class MatcherKeysDocument(Record, kw_only=True):
    """api/matcher/keys/<b>.json: the templates keyed by a word of bucket b, [position, anchor,
    lead]; and each word of bucket b with the position and word count of each template having it,
    flat: position, count, position, count, ..."""

    keyed: tuple[tuple[int, str, str], ...]
    words: dict[str, tuple[int, ...]]


class MatcherRowsDocument(Record, kw_only=True):
    """api/matcher/rows/<n>.json: the rows of positions n * rows ... (n + 1) * rows - 1."""

    rows: tuple[MatcherRow, ...]


class MatcherFramesDocument(Record, kw_only=True):
    """api/matcher/frames.json: each position's file (`file_of` into `files`), function, lines,
    kind and exception, to find the sites a traceback's frame or a log record's source names."""

    files: tuple[str, ...]
    file_of: tuple[int, ...]
    functions: tuple[str, ...]
    lines: tuple[int, ...]
    end_lines: tuple[int, ...]
    kinds: tuple[str, ...]
    exceptions: tuple[str, ...]


class AliasDocument(Record):
    """At an earlier id of an error: leads to the current one."""

    schema_version: int
    id: str
    alias_of: str


@dataclass(frozen=True)
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


def error_document(catalog: Catalog, error: ErrorSite) -> ErrorDocument:
    pin = pin_of(catalog, error)
    return ErrorDocument(
        **msgspec.structs.asdict(error),
        schema_version=catalog.schema_version,
        repo=catalog.repo,
        commit=pin.commit,
        version=pin.version,
    )


def index_document(catalog: Catalog) -> IndexDocument:
    """The catalog's fields of the same names (the summary without its timings, so that a rescan
    writes the same); a site over several releases adds its history's."""
    fields = msgspec.structs.asdict(catalog)
    if catalog.releases:
        fields["no_longer_raised"] = catalog.retired
        fields["change_pages"] = [ChangePage(d.old, d.new, changes_document_path(d)) for d in catalog.changes]
    else:
        del fields["releases"], fields["aliases"]
    return msgspec.convert(fields, IndexDocument, from_attributes=True)


def alias_document(catalog: Catalog, alias: str) -> AliasDocument:
    return AliasDocument(catalog.schema_version, alias, catalog.aliases[alias])


def matcher_documents(catalog: Catalog) -> dict[str, Record]:
    """The files of api/matcher/ by path (errscan/lookup/shards.py)."""
    from errscan.lookup.wrapped import seen_as

    catalogued = catalog.errors + catalog.retired
    views = seen_as(catalogued)
    errors = catalogued + tuple(v.view for v in views)
    surfaces = (-1,) * len(catalogued) + tuple(v.origin.surfaces_as.index(v.surface) for v in views)
    compiled = {e.message: compile_template(e.message) for e in errors}
    keys = [compiled[e.message] for e in errors]
    buckets = bucket_count(len(errors))
    rows = [
        (i, e.id, e.kind, e.level, e.exception, e.path, e.line, e.end_line, e.function, e.removed_since, e.message,
         k.literal_chars, surface)
        for i, (e, k, surface) in enumerate(zip(errors, keys, surfaces))
    ]
    keyed: dict[str, list[tuple[int, str, str]]] = {matcher_keys_path(b): [] for b in range(buckets)}
    postings: list[dict[str, list[int]]] = [{} for _ in range(buckets)]
    unkeyed = []
    for i, key in enumerate(keys):
        for word in key.words:
            postings[bucket(word[:3], buckets)].setdefault(word, []).extend((i, len(key.words)))
        if not key.anchor:
            continue
        words = keys_of(key.anchor, key.head, key.lead)
        if words is None:
            unkeyed.append((i, key.anchor, key.lead))
        for path in sorted({key_file(k, buckets) for k in words or ()}):
            keyed[path].append((i, key.anchor, key.lead))
    files = sorted({e.path for e in errors})
    file_index = {path: i for i, path in enumerate(files)}
    documents: dict[str, Record] = {
        MATCHER_INDEX: MatcherIndexDocument(
            schema_version=catalog.schema_version,
            include=catalog.include,
            exclude=catalog.exclude,
            buckets=buckets,
            rows=ROWS_PER_FILE,
            size=len(errors),
            count=sum(e.removed_since is None for e in catalogued),
            catch_alls=tuple(row for row, key in zip(rows, keys) if not key.literal_chars and row[10].strip()),
            unkeyed=tuple(unkeyed),
        ),
        MATCHER_FRAMES: MatcherFramesDocument(
            files=tuple(files),
            file_of=tuple(file_index[e.path] for e in errors),
            functions=tuple(e.function for e in errors),
            lines=tuple(e.line for e in errors),
            end_lines=tuple(e.end_line for e in errors),
            kinds=tuple(e.kind for e in errors),
            exceptions=tuple(e.exception for e in errors),
        ),
    }
    for b in range(buckets):
        documents[matcher_keys_path(b)] = MatcherKeysDocument(
            keyed=tuple(keyed[matcher_keys_path(b)]), words={word: tuple(found) for word, found in postings[b].items()}
        )
    for start in range(0, len(rows), ROWS_PER_FILE):
        documents[matcher_rows_path(start // ROWS_PER_FILE)] = MatcherRowsDocument(rows=tuple(rows[start : start + ROWS_PER_FILE]))
    return documents
