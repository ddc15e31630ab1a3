"""The scan pipeline: source -> per-file extraction (in parallel) -> package index -> catalog."""

from __future__ import annotations

import gc
import os
import pickle
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator

from errscan.analysis import analyze
from errscan.cache import ScanCache, encode, store_payload
from errscan.extract import FileResult, extract_file, extract_file_from_ast
from errscan.extract.facts import ModuleFacts
from errscan.extract.sites import RawSite
from errscan.extract.templates import normalize
from errscan.graph.calls import CallGraph
from errscan.graph.index import PackageIndex
from errscan.ids import error_id
from errscan.model import Catalog, ErrorSite, Excerpt, ParseFailure, ScanSummary
from errscan.profiles import Profile
from errscan.profiles.vllm import VLLM
from errscan.scope import Scope
from errscan.sources import Source, SourceFile
from errscan.workers import TaskLost, run_all

EXCERPT_CONTEXT = 10  # lines shown above and below a site
FILE_TIME_LIMIT = 120.0  # seconds for one file; vLLM's largest takes a few


@dataclass(frozen=True)
class ScanOptions:
    repo: str
    scope: Scope
    jobs: int = 0  # 0: one process per core
    profile: Profile = VLLM
    file_time_limit: float = FILE_TIME_LIMIT
    cache: ScanCache | None = field(default=None, compare=False)  # None: parse every file


def scan(source: Source, options: ScanOptions) -> Catalog:
    # The facts of a whole package are a great many small objects that all live until the end:
    # the cyclic collector would only rescan them, again and again.
    with collector_paused():
        return _scan(source, options)


def _scan(source: Source, options: ScanOptions) -> Catalog:
    timings: dict[str, float] = {}
    started = time.perf_counter()
    files = list(source.files())
    timings["read"] = time.perf_counter() - started

    mark = time.perf_counter()
    results = extract_cached(files, options)
    timings["extract"] = time.perf_counter() - mark

    mark = time.perf_counter()
    index = PackageIndex([r.facts for r in results if r.facts is not None])
    sites = list(_catalogue(results, index, options.repo, source.commit))
    timings["catalog"] = time.perf_counter() - mark

    mark = time.perf_counter()
    graph = CallGraph(index, {r.facts.module: r.path for r in results if r.facts is not None})
    timings["graph"] = time.perf_counter() - mark

    mark = time.perf_counter()
    errors, stats = analyze(sites, graph, options.profile)
    timings["analysis"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - started

    catalogued = [r for r in results if options.scope.catalogues(r.path)]
    kinds = Counter(e.kind for e in errors)
    summary = ScanSummary(
        files_read=len(results),
        files_catalogued=len(catalogued),
        raises=kinds["raise"],
        asserts=kinds["assert"],
        reraises=sum(r.reraises for r in results),
        parse_failures=tuple(r.failure for r in results if r.failure is not None),
        graph_files=len(index.modules),
        graph_functions=graph.graph.number_of_nodes(),
        graph_edges=graph.graph.number_of_edges(),
        unresolved_calls=sum(graph.unresolved.values()),
        entry_points=stats.entries,
        errors_with_chain=stats.with_chain,
        stage_seconds={k: round(v, 3) for k, v in timings.items()},
    )
    return Catalog(
        repo=options.repo,
        commit=source.commit,
        version=source.version,
        include=options.scope.include,
        exclude=options.scope.exclude,
        errors=tuple(errors),
        summary=summary,
        callgraph=graph.callgraph_document(),
    )


def extract_all(
    files: list[SourceFile], scope: Scope, jobs: int, time_limit: float = FILE_TIME_LIMIT,
    cache: ScanCache | None = None,
) -> list[FileResult]:
    """Extract every file over `jobs` processes (0: one per core); results in path order whatever `jobs`.

    Each worker stores its results in `cache` itself, so that writing entries runs in parallel too.
    A file whose extraction overran `time_limit` seconds or killed its worker is extracted again
    from `ast` alone; one that fails even so is reported and left out.
    """
    # Largest first, so no core is left with one big file at the end while the others idle.
    work = [_task(f, scope.catalogues(f.path), cache) for f in sorted(files, key=lambda f: -len(f.data))]
    jobs = jobs or os.cpu_count() or 1
    results = run_all(_extract_task, work, jobs, time_limit)
    lost = [i for i, r in enumerate(results) if isinstance(r, TaskLost)]
    retries = [replace(work[i], libcst_failure=results[i].reason) for i in lost]
    for i, retried in zip(lost, run_all(_extract_task, retries, jobs, time_limit)):
        results[i] = _unreadable(work[i].source, retried.reason) if isinstance(retried, TaskLost) else retried
    decoded = [pickle.loads(r) if isinstance(r, bytes) else r for r in results]
    return sorted(decoded, key=lambda r: r.path)


def extract_cached(files: list[SourceFile], options: ScanOptions) -> list[FileResult]:
    """`extract_all`, taking what the cache holds from it and storing what had to be parsed."""
    scope, cache = options.scope, options.cache
    if cache is None:
        return extract_all(files, scope, options.jobs, options.file_time_limit)
    keys = [(f.path, f.digest, scope.catalogues(f.path)) for f in files]
    stored = cache.stored(keys)
    # Parse what is missing before loading the rest: workers fork from a smaller heap.
    missing = [f for f, found in zip(files, stored) if not found]
    parsed = extract_all(missing, scope, options.jobs, options.file_time_limit, cache)
    kept = [(f, key) for f, key, found in zip(files, keys, stored) if found]
    hits = [cache.get(*key) for _, key in kept]
    damaged = [f for (f, _), hit in zip(kept, hits) if hit is None]
    parsed += extract_all(damaged, scope, options.jobs, options.file_time_limit, cache)
    return sorted([hit for hit in hits if hit is not None] + parsed, key=lambda r: r.path)


@contextmanager
def collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class _Task:
    source: SourceFile
    catalogued: bool
    entry: Path | None  # the cache entry to write, None without a cache
    libcst_failure: str | None = None  # set on the retry, from `ast` alone, of a file that was lost


def _task(source: SourceFile, catalogued: bool, cache: ScanCache | None) -> _Task:
    entry = cache.entry_path(source.path, source.digest, catalogued) if cache else None
    return _Task(source, catalogued, entry)


def _extract_task(task: _Task) -> bytes:
    if task.libcst_failure is None:
        result = extract_file(task.source, task.catalogued)
    else:
        result = extract_file_from_ast(task.source, task.catalogued, task.libcst_failure)
    payload = encode(result)
    if task.entry is not None:
        try:
            store_payload(task.entry, payload)
        except OSError:
            pass  # the cache only saves time: a full disk must not cost the scan this file
    return payload


def _unreadable(source: SourceFile, reason: str) -> FileResult:
    return FileResult(source.path, source.digest, (), None, (), 0, ParseFailure(source.path, 1, f"{reason}; skipped"))


def _catalogue(
    results: Iterable[FileResult], index: PackageIndex, repo: str, commit: str | None
) -> Iterable[tuple[ErrorSite, RawSite, ModuleFacts]]:
    for result in results:
        twins: Counter[tuple[str, str, str]] = Counter()
        for raw in result.sites:
            key = (raw.function, raw.exception.rsplit(".", 1)[-1], normalize(raw.message))
            ordinal = twins[key]
            twins[key] += 1
            yield _error_site(raw, result, index, repo, commit, ordinal), raw, result.facts


def _error_site(
    raw: RawSite, result: FileResult, index: PackageIndex, repo: str, commit: str | None, ordinal: int
) -> ErrorSite:
    qualname = index.canonical(raw.exception_qualname) if raw.exception_qualname else None
    start = max(1, raw.line - EXCERPT_CONTEXT)
    end = min(len(result.lines), raw.end_line + EXCERPT_CONTEXT)
    return ErrorSite(
        id=error_id(repo, result.path, raw.function, raw.exception, raw.message, ordinal),
        kind=raw.kind,
        exception=raw.exception,
        exception_qualname=qualname,
        exception_bases=index.bases(qualname) if qualname else (),
        message=raw.message,
        placeholders=raw.placeholders,
        path=result.path,
        line=raw.line,
        end_line=raw.end_line,
        function=raw.function,
        comments=raw.comments,
        excerpt=Excerpt(start, result.lines[start - 1 : end]),
        url=github_url(repo, commit, result.path, raw.line),
        cause=raw.cause,
        assert_test=raw.assert_test,
        docstring=_docstring(result.facts, raw.function),
    )


def _docstring(facts: ModuleFacts | None, function: str) -> str | None:
    if facts is None or function == "<module>":
        return None
    return next((f.docstring for f in facts.functions if f.scope == function), None)


def github_url(repo: str, commit: str | None, path: str, line: int) -> str:
    """Pinned to the commit when known; `HEAD` (the default branch) when not."""
    return f"https://github.com/{repo}/blob/{commit or 'HEAD'}/{path}#L{line}"
