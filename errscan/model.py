"""The catalog: frozen records that every stage after extraction reads, with JSON in and out.

The JSON form is the public API (`api/index.json`, `api/errors/<id>.json`), so field names here are
the API's names. `from_dict` accepts what `to_dict` wrote, which lets `diff` and `lookup` work from a
published site without rescanning.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeVar

SCHEMA_VERSION = 1

T = TypeVar("T")


@dataclass(frozen=True)
class Excerpt:
    """Source lines around a site; `start_line` is the number of `lines[0]`."""

    start_line: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Placeholder:
    """One `{...}` of a message template: the expression whose value is printed there."""

    expr: str
    conversion: str = ""  # "r", "s", "a" or ""
    format_spec: str = ""
    source: str = "fstring"  # fstring | concat | percent | format | join | variable | unresolved


@dataclass(frozen=True)
class Contribution:
    """Accumulate-then-raise: one guarded `append` that adds text to the message."""

    condition: str  # when this part is appended (Python expression)
    text: str  # template of what it appends


@dataclass(frozen=True)
class ChainStep:
    """One call on the way from an entry point to the raising function."""

    caller: str  # qualified name of the calling function
    callee: str  # qualified name of the function called
    path: str  # where the call is written
    line: int
    condition: str | None  # the call site's own path condition, if any


@dataclass(frozen=True)
class Chain:
    entry_kind: str  # "connector-init", "connector-interface", "config-validation", "main", ...
    path: tuple[str, ...]  # qualified names, entry first, raising function last
    steps: tuple[ChainStep, ...]  # steps[i] calls path[i + 1] from path[i]
    condition: str | None  # conjunction of the call-site conditions along the chain
    trigger: str | None  # the chain's condition and the site's: when this way in raises


@dataclass(frozen=True)
class Knob:
    """A user-facing setting that decides whether the error fires."""

    kind: str  # "cli_flag" | "config_field" | "extra_config" | "env" | "connector"
    name: str  # e.g. "--decode-context-parallel-size", "use_native", "LMCACHE_USE_UPSTREAM_MP"
    detail: str = ""  # where it is read, its default, or the condition it appears in


@dataclass(frozen=True)
class Related:
    id: str
    reason: str


@dataclass(frozen=True)
class Trigger:
    """When an error fires: the condition at the raise, how the engine gets there, what decides it."""

    condition: str | None  # the site's path condition, locals substituted (Python expression)
    conjuncts: tuple[str, ...]  # its top-level `and` terms
    raw_condition: str | None  # as the code states it, before substitution
    plain: str | None = None  # in plain words, where the forms are common
    partial: bool = False  # some step was not understood: `unknown` says which
    unknown: tuple[str, ...] = ()
    contributions: tuple[Contribution, ...] = ()
    chains: tuple[Chain, ...] = ()
    connectors: tuple[str, ...] = ()
    knobs: tuple[Knob, ...] = ()
    solutions: tuple[str, ...] = ()
    related: tuple[Related, ...] = ()


@dataclass(frozen=True)
class Fix:
    """One way to avoid an error: a setting and a value that rule its trigger out, or what to do."""

    setting: str  # as the user writes it: "--mamba-cache-mode", "kv_connector_extra_config.enable_lookup"; "" when none
    value: str | None  # as written on the command line or in JSON ("align", "1", "false"); None when not a value
    text: str  # the whole advice, one or two sentences
    carrier: str | None = None  # the JSON flag the setting is written in, e.g. "--kv-transfer-config"
    others: tuple[tuple[str, str], ...] = ()  # further (setting, value) pairs the fix needs together with this one
    part: str | None = None  # the part of an assembled message (its template) this fix is for; None: the whole


@dataclass(frozen=True)
class Example:
    """A command that reaches the error, and the same command with the first fix."""

    before: str
    after: str


@dataclass(frozen=True)
class Explanation:
    """The error in a user's terms, derived from its trigger: what it means and what to do."""

    summary: str
    kind: str  # configuration | environment | usage | internal | unreachable
    when: str | None = None  # what the engine is doing, from the entry points that reach it
    where: str | None = None  # which process
    fixes: tuple[Fix, ...] = ()
    example: Example | None = None


@dataclass(frozen=True)
class ReleaseRef:
    """One scanned release or git revision of a history, oldest first."""

    label: str  # how pages name it: the version, else the short commit
    version: str | None
    commit: str | None


@dataclass(frozen=True)
class ReleaseState:
    """An error as one release has it; `present` is False where that release does not raise it."""

    release: str  # a ReleaseRef label
    present: bool
    commit: str | None = None
    id: str | None = None  # the error's id in that release (an earlier id becomes an alias)
    path: str | None = None
    line: int | None = None
    message: str | None = None


@dataclass(frozen=True)
class History:
    """Which releases raise an error, and how it looked in each; see docs in errscan/history.py."""

    releases: tuple[ReleaseState, ...]  # one per scanned release, oldest first
    first_seen: str
    last_changed: str | None  # None: unchanged since first seen (a move of lines alone is no change)
    removed_since: str | None  # the first release that no longer raises it, if the latest does not
    aliases: tuple[str, ...] = ()  # earlier ids of this error, whose pages lead here


@dataclass(frozen=True)
class ErrorSite:
    """One place in the code that raises an error (a `raise` or an `assert` with a message)."""

    id: str
    kind: str  # "raise" | "assert"
    exception: str  # as written, e.g. "ValueError" or "errors.KVError"
    exception_qualname: str | None  # e.g. "builtins.ValueError", "vllm.x.KVError"
    exception_bases: tuple[str, ...]  # qualified bases defined in the scanned tree, nearest first
    message: str  # the template; see docs/templates.md
    placeholders: tuple[Placeholder, ...]
    path: str  # repo-relative, "/"-separated
    line: int  # line of the `raise` / `assert` keyword
    end_line: int
    function: str  # "Class.method", "function", "outer.<locals>.inner" or "<module>"
    comments: tuple[str, ...]  # comment lines directly above the statement, without "#"
    excerpt: Excerpt
    url: str  # pinned GitHub link to the line
    cause: str | None = None  # source of `from X`, if any
    assert_test: str | None = None  # an assert's test expression (the condition that must hold)
    docstring: str | None = None  # the enclosing function's docstring
    trigger: Trigger | None = None  # filled by the analysis stage
    explanation: Explanation | None = None  # filled by the analysis stage
    history: History | None = None  # filled when several releases are scanned together

    @property
    def title(self) -> str:
        return self.message if self.message else self.exception

    @property
    def removed_since(self) -> str | None:
        """The release since which it is no longer raised (an error of a history site's past)."""
        return self.history.removed_since if self.history is not None else None


@dataclass(frozen=True)
class ParseFailure:
    path: str
    line: int
    reason: str


@dataclass(frozen=True)
class ScanSummary:
    files_read: int
    files_catalogued: int
    raises: int
    asserts: int
    reraises: int
    parse_failures: tuple[ParseFailure, ...]
    graph_files: int = 0  # files whose facts the call graph was built from
    graph_functions: int = 0
    graph_edges: int = 0
    unresolved_calls: int = 0
    entry_points: int = 0
    errors_with_chain: int = 0
    stage_seconds: dict[str, float] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class ErrorRef:
    """One side of a diff entry: enough to find the error and recognise its message."""

    id: str
    path: str
    line: int
    function: str
    exception: str
    message: str


@dataclass(frozen=True)
class WordDiff:
    op: str  # "equal" | "delete" | "insert"
    text: str  # words joined by single spaces


@dataclass(frozen=True)
class FieldChange:
    field: str  # "message" | "exception" | "condition" | "location" | "knobs"
    old: str
    new: str


@dataclass(frozen=True)
class ErrorChange:
    old: ErrorRef
    new: ErrorRef
    matched_by: str  # "id", or the similarity rule that paired them (see errscan/diff.py)
    changes: tuple[FieldChange, ...]
    message_diff: tuple[WordDiff, ...] = ()  # word by word, when the message changed


@dataclass(frozen=True)
class CatalogDiff:
    """What changed between two catalogs; also the JSON of `errscan diff --format json`."""

    old: str  # label of each side
    new: str
    added: tuple[ErrorRef, ...]
    removed: tuple[ErrorRef, ...]
    changed: tuple[ErrorChange, ...]
    unchanged: int


@dataclass(frozen=True)
class Catalog:
    repo: str
    commit: str | None
    version: str | None
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    errors: tuple[ErrorSite, ...]
    summary: ScanSummary
    schema_version: int = SCHEMA_VERSION
    callgraph: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # Set only for a scan of several releases; `errors` are then the latest release's.
    releases: tuple[ReleaseRef, ...] = ()
    retired: tuple[ErrorSite, ...] = ()  # errors an earlier release raised and the latest does not
    aliases: dict[str, str] = field(default_factory=dict, hash=False)  # earlier id -> current id
    changes: tuple[CatalogDiff, ...] = ()  # one per consecutive pair of releases
    files: tuple[str, ...] = ()  # the catalogued files, so a diff can tell a file gone from one without errors

    def by_id(self) -> dict[str, ErrorSite]:
        return {e.id: e for e in self.errors}


def to_dict(obj: Any) -> Any:
    """Plain-JSON form of a record: tuples become lists, nested records dicts."""
    if dataclasses.is_dataclass(obj):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {k: to_dict(v) for k, v in obj.items()}
    return obj


def error_from_dict(data: dict[str, Any]) -> ErrorSite:
    return ErrorSite(
        **{
            **_known_fields(ErrorSite, data),
            "exception_bases": tuple(data.get("exception_bases", ())),
            "placeholders": tuple(Placeholder(**p) for p in data.get("placeholders", ())),
            "comments": tuple(data.get("comments", ())),
            "excerpt": Excerpt(data["excerpt"]["start_line"], tuple(data["excerpt"]["lines"])),
            "trigger": _trigger_from_dict(data["trigger"]) if data.get("trigger") else None,
            "history": _history_from_dict(data["history"]) if data.get("history") else None,
            "explanation": _explanation_from_dict(data["explanation"]) if data.get("explanation") else None,
        }
    )


def _explanation_from_dict(data: dict[str, Any]) -> Explanation:
    example = data.get("example")
    return Explanation(
        **{
            **_known_fields(Explanation, data),
            "fixes": tuple(Fix(**f) for f in data.get("fixes", ())),
            "example": Example(**example) if example else None,
        }
    )


def diff_from_dict(data: dict[str, Any]) -> CatalogDiff:
    return CatalogDiff(
        old=data["old"],
        new=data["new"],
        added=tuple(ErrorRef(**e) for e in data["added"]),
        removed=tuple(ErrorRef(**e) for e in data["removed"]),
        changed=tuple(
            ErrorChange(
                old=ErrorRef(**c["old"]),
                new=ErrorRef(**c["new"]),
                matched_by=c["matched_by"],
                changes=tuple(FieldChange(**f) for f in c["changes"]),
                message_diff=tuple(WordDiff(**w) for w in c.get("message_diff", ())),
            )
            for c in data["changed"]
        ),
        unchanged=data["unchanged"],
    )


def catalog_from_dict(data: dict[str, Any]) -> Catalog:
    summary = data.get("summary") or {}
    return Catalog(
        repo=data["repo"],
        commit=data.get("commit"),
        version=data.get("version"),
        include=tuple(data.get("include", ())),
        exclude=tuple(data.get("exclude", ())),
        errors=tuple(error_from_dict(e) for e in data["errors"]),
        summary=ScanSummary(
            **{
                **_known_fields(ScanSummary, summary),
                "parse_failures": tuple(
                    ParseFailure(**p) for p in summary.get("parse_failures", ())
                ),
            }
        ),
        schema_version=data.get("schema_version", SCHEMA_VERSION),
        releases=tuple(ReleaseRef(**r) for r in data.get("releases", ())),
        retired=tuple(error_from_dict(e) for e in data.get("retired", ())),
        aliases=dict(data.get("aliases", {})),
        changes=tuple(diff_from_dict(d) for d in data.get("changes", ())),
        files=tuple(data.get("files", ())),
    )


def _history_from_dict(data: dict[str, Any]) -> History:
    return History(
        **{
            **_known_fields(History, data),
            "releases": tuple(ReleaseState(**r) for r in data["releases"]),
            "aliases": tuple(data.get("aliases", ())),
        }
    )


def _trigger_from_dict(data: dict[str, Any]) -> Trigger:
    return Trigger(
        **{
            **_known_fields(Trigger, data),
            "conjuncts": tuple(data.get("conjuncts", ())),
            "unknown": tuple(data.get("unknown", ())),
            "contributions": tuple(Contribution(**c) for c in data.get("contributions", ())),
            "chains": tuple(
                Chain(
                    **{
                        **_known_fields(Chain, c),
                        "path": tuple(c["path"]),
                        "steps": tuple(ChainStep(**s) for s in c["steps"]),
                    }
                )
                for c in data.get("chains", ())
            ),
            "connectors": tuple(data.get("connectors", ())),
            "knobs": tuple(Knob(**k) for k in data.get("knobs", ())),
            "solutions": tuple(data.get("solutions", ())),
            "related": tuple(Related(**r) for r in data.get("related", ())),
        }
    )


def _known_fields(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}
