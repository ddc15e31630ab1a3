"""The catalog: frozen records that every stage after extraction reads, declared once for the API.

The JSON form is the public API (`api/index.json`, `api/errors/<id>.json`, `api/callgraph.json`),
so field names and types here are the API's: `errscan.api` derives the documents' encoding,
decoding and JSON Schema from these declarations. The records are msgspec Structs: frozen (stages
share them), picklable (the scan sends them between processes and caches them), and fast to build
and to encode. Change one with `msgspec.structs.replace`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from errscan.api import SCHEMA_VERSION  # noqa: F401  (declared beside the api/ it versions; read by lookup without msgspec)
from errscan.labels import label

ErrorId = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{16}$")]  # see docs/ids.md


class Record(msgspec.Struct, frozen=True):
    """Base of the catalog's records."""


class Excerpt(Record):
    """Source lines around a site; `start_line` is the number of `lines[0]`."""

    start_line: int
    lines: tuple[str, ...]


class Placeholder(Record):
    """One `{...}` of a message template: the expression whose value is printed there."""

    expr: str
    conversion: str = ""  # "r", "s", "a" or ""
    format_spec: str = ""
    source: str = "fstring"  # fstring | concat | percent | format | join | variable | unresolved


class Contribution(Record):
    """Accumulate-then-raise: one guarded `append` that adds text to the message."""

    condition: str  # when this part is appended (Python expression)
    text: str  # template of what it appends


class ChainStep(Record):
    """One call on the way from an entry point to the raising function."""

    caller: str  # qualified name of the calling function
    callee: str  # qualified name of the function called
    path: str  # where the call is written
    line: int
    condition: str | None  # the call site's own path condition, if any


class Chain(Record):
    entry_kind: str  # "connector-init", "connector-interface", "config-validation", "main", ...
    path: tuple[str, ...]  # qualified names, entry first, raising function last
    steps: tuple[ChainStep, ...]  # steps[i] calls path[i + 1] from path[i]
    condition: str | None  # conjunction of the call-site conditions along the chain
    trigger: str | None  # the chain's condition and the site's: when this way in raises
    # Whether each step's condition and the site's can hold with the arguments carried along the
    # chain (`analysis/bindings.py`): True, False (proved not: `infeasible` says why) or None (unknown).
    satisfiable: bool | None = None
    infeasible: str | None = None


class Knob(Record):
    """A user-facing setting that decides whether the error fires."""

    kind: str  # "cli_flag" | "config_field" | "extra_config" | "env" | "connector" | "plugin" | "route" | "request_field"
    name: str  # e.g. "--decode-context-parallel-size", "use_native", "LMCACHE_USE_UPSTREAM_MP", "LlamaForCausalLM"
    detail: str = ""  # where it is read, its default, the condition it appears in; a plugin's setting


class Related(Record):
    id: str
    reason: str


class Trigger(Record):
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
    # The HTTP status a web request gets when a route reaches the error (the server's error
    # handlers map it from the exception's class); None when no route reaches it.
    http_status: int | None = None
    satisfiable: bool | None = None  # whether `condition` (with the checks before it) can hold; None: unknown
    # False: proved never to fire at this commit (`unreachable` says why); True: an entry point
    # reaches it by a chain not proved infeasible; None: no entry point is known to reach it.
    reachable: bool | None = None
    unreachable: str | None = None
    infeasible_chains: tuple[Chain, ...] = ()  # chains from entry points that cannot be taken (JSON only)


ExplanationKind = Literal["configuration", "environment", "usage", "internal", "unreachable"]


class Fix(Record):
    """One way to avoid an error: a setting and a value that rule its trigger out, or what to do."""

    setting: str  # as the user writes it: "--mamba-cache-mode", "kv_connector_extra_config.enable_lookup"; "" when none
    value: str | None  # as written on the command line or in JSON ("align", "1", "false"); None when not a value
    text: str  # the whole advice, one or two sentences
    carrier: str | None = None  # the JSON flag the setting is written in, e.g. "--kv-transfer-config"
    others: tuple[tuple[str, str], ...] = ()  # further (setting, value) pairs the fix needs together with this one
    part: str | None = None  # the part of an assembled message (its template) this fix is for; None: the whole


class Example(Record):
    """A command that reaches the error, and the same command with the first fix."""

    before: str
    after: str


class Explanation(Record):
    """The error in a user's terms, derived from its trigger: what it means and what to do."""

    summary: str
    kind: ExplanationKind
    when: str | None = None  # what the engine is doing, from the entry points that reach it
    where: str | None = None  # which process
    fixes: tuple[Fix, ...] = ()
    example: Example | None = None
    reproduce: str | None = None  # without `example`: a command with the configuration that reaches it
    check: str | None = None  # a command whose output checks what failed outside, or that a report needs


class ReleaseRef(Record):
    """One scanned release or git revision of a history, oldest first."""

    label: str  # how pages name it: the version, else the short commit
    version: str | None
    commit: str | None


class ReleaseState(Record):
    """An error as one release has it; `present` is False where that release does not raise it."""

    release: str  # a ReleaseRef label
    present: bool
    commit: str | None = None
    id: str | None = None  # the error's id in that release (an earlier id becomes an alias)
    path: str | None = None
    line: int | None = None
    message: str | None = None


class History(Record):
    """Which releases raise an error, and how it looked in each; see docs in errscan/history.py."""

    releases: tuple[ReleaseState, ...]  # one per scanned release, oldest first
    first_seen: str
    last_changed: str | None  # None: unchanged since first seen (a move of lines alone is no change)
    removed_since: str | None  # the first release that no longer raises it, if the latest does not
    aliases: tuple[str, ...] = ()  # earlier ids of this error, whose pages lead here


Level = Literal["warning", "error", "exception", "critical"]  # see errscan/extract/logcalls.py



SurfaceHow = Literal["raised", "reraised", "logged", "response", "http", "swallowed"]


class Surface(Record):
    """What reaches the user of an error along some of its chains: itself, another exception
    raised in its place, a log record, an error response or HTTP status, or nothing (swallowed).
    See docs/surfaces.md."""

    how: SurfaceHow
    exception: str  # the exception the user sees named: the error's own, the wrapper's; "" for a log or response
    message: str  # the template the user sees: the wrapper's or the log record's message; "" when it is the error's own
    final: bool = True  # False: a step on the way (a wrapper caught further out, a log before a re-raise)
    path: str | None = None  # where it happens: the wrapping `raise`, the log call, the response; None for "raised"
    line: int | None = None
    function: str | None = None
    caught: str | None = None  # the `except` clause that catches it, as written
    caught_line: int | None = None
    level: Level | None = None  # logged (also a response or wrapper logged on the way): the level
    log_message: str | None = None  # that log record's template
    log_line: int | None = None  # and the line of its log call
    status: int | None = None  # http: the status code
    response: str | None = None  # response: what is built and sent, as the profile names it
    id: str | None = None  # the catalogued site the user sees there (the wrapper's raise, the log call)
    chains: tuple[int, ...] = ()  # indices into `trigger.chains`; () when it holds whatever the way in


class ErrorHead(Record):
    """What the index lists of an error: enough to find it and to recognise its message."""

    id: ErrorId
    kind: Literal["raise", "assert", "log"]
    level: Level | None  # a log site's level; None for a raise or assert
    exception: str  # as written, e.g. "ValueError" or "errors.KVError"; a warning's category; "" for a logger's record
    exception_qualname: str | None  # e.g. "builtins.ValueError", "vllm.x.KVError"
    message: str  # the template; see docs/templates.md
    path: str  # repo-relative, "/"-separated
    line: int  # first line of the `raise` / `assert` statement or of the log call
    function: str  # "Class.method", "function", "outer.<locals>.inner" or "<module>"
    url: str  # pinned GitHub link to the line


class ErrorSite(ErrorHead):
    """One place in the code that raises an error (a `raise` or an `assert` with a message) or
    logs one (a log call at level warning or above, or `warnings.warn`)."""

    exception_bases: tuple[str, ...]  # qualified bases defined in the scanned tree, nearest first
    placeholders: tuple[Placeholder, ...]
    end_line: int
    comments: tuple[str, ...]  # comment lines directly above the statement, without "#"
    excerpt: Excerpt
    cause: str | None = None  # source of `from X`, if any
    assert_test: str | None = None  # an assert's test expression (the condition that must hold)
    docstring: str | None = None  # the enclosing function's docstring
    trigger: Trigger | None = None  # filled by the analysis stage
    explanation: Explanation | None = None  # filled by the analysis stage; see docs/explanations.md
    history: History | None = None  # filled when several releases are scanned together
    surfaces_as: tuple[Surface, ...] = ()  # filled by the analysis stage: what the user sees of it, per chain

    @property
    def title(self) -> str:
        return self.message if self.message else self.label

    @property
    def label(self) -> str:
        return label(self.exception, self.level)

    @property
    def connectors(self) -> tuple[str, ...]:
        """The connectors whose use reaches it (found by the analysis stage)."""
        return self.trigger.connectors if self.trigger is not None else ()

    @property
    def removed_since(self) -> str | None:
        """The release since which it is no longer raised (an error of a history site's past)."""
        return self.history.removed_since if self.history is not None else None


class ParseFailure(Record):
    path: str
    line: int
    reason: str


class ScanCounts(Record):
    """What a scan found, as the index publishes it."""

    files_read: int
    files_catalogued: int
    raises: int
    asserts: int
    logs: int  # log sites
    reraises: int
    parse_failures: tuple[ParseFailure, ...]
    graph_files: int = 0  # files whose facts the call graph was built from
    graph_functions: int = 0
    graph_edges: int = 0
    unresolved_calls: int = 0
    entry_points: int = 0
    errors_with_chain: int = 0


class ScanSummary(ScanCounts, eq=False):
    """The counts and the time each stage took, which is no part of what was found: two scans of
    one input are equal, and their sites identical, however long each took."""

    stage_seconds: dict[str, float] = {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScanSummary) and all(
            getattr(self, name) == getattr(other, name) for name in ScanCounts.__struct_fields__
        )


class CallEdge(Record):
    """One resolved call, at one of its call sites."""

    caller: str
    callee: str
    path: str
    line: int
    resolution: str  # how the callee was found: "self", "super", "import", "constructor", ...
    receiver: str  # what the call is made on: "self", "cls", "super", "attribute", "parameter", "local", ...


CallRow = tuple[int, int, int, int, int, int]  # caller, callee, path, line, resolution, receiver


class CallGraphDocument(Record, kw_only=True):
    """`api/callgraph.json`: every call site of every edge on a way to a catalogued function (what
    a chain may take, for audit and reuse), integer-indexed so that it stays small at package scale.

    A row of `calls` names its caller and callee by their position in `functions`, its file in
    `paths` and its resolution and receiver in `labels`; `edges` spells the rows out.
    """

    nodes: int  # functions in the whole call graph
    graph_edges: int  # its edges (caller -> callee pairs), of which `calls` holds those toward the catalog
    functions: tuple[str, ...]  # qualified names, sorted
    paths: tuple[str, ...]  # files the calls are written in, sorted
    labels: tuple[str, ...]  # resolutions ("self", "import", ...) and receivers ("attribute", ...), sorted
    calls: tuple[CallRow, ...]
    unresolved_calls: int
    external_calls: int
    # calls of a declared base's method that leave out the base's own, as no object of exactly the
    # base exists (an abstract base, or one nothing builds) and its subclasses override the method
    base_calls_narrowed: int

    @property
    def edges(self) -> tuple[CallEdge, ...]:
        f, p, n = self.functions, self.paths, self.labels
        return tuple(CallEdge(f[a], f[b], p[c], line, n[d], n[e]) for a, b, c, line, d, e in self.calls)

    @classmethod
    def of_edges(cls, edges: "list[CallEdge]", **counts: int) -> "CallGraphDocument":
        """The document holding `edges` (in their order), with the whole graph's `counts`."""
        functions = sorted({e.caller for e in edges} | {e.callee for e in edges})
        paths = sorted({e.path for e in edges})
        labels = sorted({e.resolution for e in edges} | {e.receiver for e in edges})
        fi, pi, li = ({v: i for i, v in enumerate(t)} for t in (functions, paths, labels))
        calls = tuple((fi[e.caller], fi[e.callee], pi[e.path], e.line, li[e.resolution], li[e.receiver]) for e in edges)
        return cls(functions=tuple(functions), paths=tuple(paths), labels=tuple(labels), calls=calls, **counts)


class ErrorRef(Record):
    """One side of a diff entry: enough to find the error and recognise its message."""

    id: str
    path: str
    line: int
    function: str
    exception: str
    message: str
    level: str | None = None  # a log site's level

    @property
    def label(self) -> str:
        return label(self.exception, self.level)


class WordDiff(Record):
    op: Literal["equal", "delete", "insert"]
    text: str  # words joined by single spaces


class FieldChange(Record):
    field: str  # "message" | "exception" | "level" | "condition" | "location" | "knobs"
    old: str
    new: str


class ErrorChange(Record):
    old: ErrorRef
    new: ErrorRef
    matched_by: str  # "id", or the similarity rule that paired them (see errscan/diff.py)
    changes: tuple[FieldChange, ...]
    message_diff: tuple[WordDiff, ...] = ()  # word by word, when the message changed


class CatalogDiff(Record):
    """What changed between two catalogs; also the JSON of `errscan diff --format json`."""

    old: str  # label of each side
    new: str
    added: tuple[ErrorRef, ...]
    removed: tuple[ErrorRef, ...]
    changed: tuple[ErrorChange, ...]
    unchanged: int


class Catalog(Record):
    repo: str
    commit: str | None
    version: str | None
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    errors: tuple[ErrorSite, ...]
    summary: ScanSummary
    schema_version: int = SCHEMA_VERSION
    callgraph: CallGraphDocument | None = None  # None: read from a site, which holds it apart
    # Set only for a scan of several releases; `errors` are then the latest release's.
    releases: tuple[ReleaseRef, ...] = ()
    retired: tuple[ErrorSite, ...] = ()  # errors an earlier release raised and the latest does not
    aliases: dict[str, str] = {}  # earlier id -> current id
    changes: tuple[CatalogDiff, ...] = ()  # one per consecutive pair of releases
    files: tuple[str, ...] = ()  # the catalogued files, so a diff can tell a file gone from one without errors

    def by_id(self) -> dict[str, ErrorSite]:
        return {e.id: e for e in self.errors}
