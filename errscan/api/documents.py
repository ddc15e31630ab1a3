"""The JSON documents of a site's api/ folder, declared once on the catalog's records.

Each document is a msgspec Struct made of errscan.model's records, so this one declaration gives
the encoding (errscan.api.write), the decoding (errscan.api.read) and the JSON Schema
(errscan.api.schema):

- api/index.json: IndexDocument;
- api/errors/<id>.json: ErrorDocument, or AliasDocument at an earlier id of an error;
- api/callgraph.json: CallGraphDocument (errscan.model);
- api/matcher.json: MatcherDocument, what `errscan lookup` ranks a message against;
- api/changes/<old>..<new>.json: CatalogDiff (errscan.model), also `errscan diff --format json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import msgspec
from msgspec import UNSET, UnsetType

from errscan.api.layout import changes_document_path
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


class MatcherEntry(NamedTuple):
    """One error of a MatcherDocument, as the ranking reads it."""

    id: str
    kind: str
    level: str | None
    exception: str
    path: str
    line: int
    end_line: int
    function: str
    removed_since: str | None
    message: str
    literal_chars: int
    surface: int  # -1, or the origin's `surfaces_as` position whose wrapper shows this message


class MatcherDocument(Record, kw_only=True):
    """api/matcher.json: all `errscan lookup` reads to rank a logged message (it then reads the
    documents of the best matches only). Column i of each list is the i-th error (the current
    errors, then those no longer raised): thousands of errors decode as a few lists, not objects.

    `anchors` and `leads` are the keys of errscan.match.compile_template that rule most messages
    out before a template is compiled (its `head` is found from the message, for the few a lead
    lets through); `words` maps each word of the templates to the errors whose template has it,
    and `word_counts` says how many words each has: the fuzzy rule needs nothing else. `files`
    lists each path once; `file_of` gives an error's file by its position there.
    """

    schema_version: int
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    ids: tuple[str, ...]
    kinds: tuple[str, ...]
    levels: tuple[str | None, ...]
    exceptions: tuple[str, ...]
    files: tuple[str, ...]
    file_of: tuple[int, ...]
    lines: tuple[int, ...]
    end_lines: tuple[int, ...]
    functions: tuple[str, ...]
    removed_since: tuple[str | None, ...]
    messages: tuple[str, ...]
    literal_chars: tuple[int, ...]
    anchors: tuple[str, ...]
    leads: tuple[str, ...]
    word_counts: tuple[int, ...]
    words: dict[str, tuple[int, ...]]
    # -1 for a catalogued error; else the entry is an origin as a wrapper shows it (its id is the
    # origin's, errscan/lookup/wrapped.py), and this is the position of that wrapper in `surfaces_as`
    surfaces: tuple[int, ...] = ()

    def entry(self, i: int) -> MatcherEntry:
        return MatcherEntry(
            self.ids[i], self.kinds[i], self.levels[i], self.exceptions[i], self.files[self.file_of[i]], self.lines[i],
            self.end_lines[i], self.functions[i], self.removed_since[i], self.messages[i], self.literal_chars[i],
            self.surfaces[i],
        )


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


# The lists of a MatcherDocument with one item per error (the others: its scope, `files`, `words`).
MATCHER_COLUMNS = tuple(
    f.name for f in msgspec.structs.fields(MatcherDocument)
    if f.name not in ("schema_version", "include", "exclude", "files", "words")
)


def matcher_document(catalog: Catalog) -> MatcherDocument:
    from errscan.lookup.wrapped import seen_as

    catalogued = catalog.errors + catalog.retired
    views = seen_as(catalogued)
    errors = catalogued + tuple(v.view for v in views)
    surfaces = (-1,) * len(catalogued) + tuple(v.origin.surfaces_as.index(v.surface) for v in views)
    compiled = {e.message: compile_template(e.message) for e in errors}
    keys = [compiled[e.message] for e in errors]
    files = sorted({e.path for e in errors})
    file_index = {path: i for i, path in enumerate(files)}
    postings: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        for word in key.words:
            postings.setdefault(word, []).append(i)
    return MatcherDocument(
        schema_version=catalog.schema_version,
        include=catalog.include,
        exclude=catalog.exclude,
        ids=tuple(e.id for e in errors),
        kinds=tuple(e.kind for e in errors),
        levels=tuple(e.level for e in errors),
        exceptions=tuple(e.exception for e in errors),
        files=tuple(files),
        file_of=tuple(file_index[e.path] for e in errors),
        lines=tuple(e.line for e in errors),
        end_lines=tuple(e.end_line for e in errors),
        functions=tuple(e.function for e in errors),
        removed_since=tuple(e.removed_since for e in errors),
        messages=tuple(e.message for e in errors),
        literal_chars=tuple(k.literal_chars for k in keys),
        anchors=tuple(k.anchor for k in keys),
        leads=tuple(k.lead for k in keys),
        word_counts=tuple(len(k.words) for k in keys),
        words={word: tuple(found) for word, found in postings.items()},
        surfaces=surfaces,
    )
