"""The scan pipeline: source -> per-file extraction (in parallel) -> package index -> catalog."""

from __future__ import annotations

import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Iterable

from errscan.analysis import analyze
from errscan.cache import ScanCache
from errscan.extract import FileResult, extract_file
from errscan.extract.facts import ModuleFacts
from errscan.extract.sites import RawSite
from errscan.extract.templates import normalize
from errscan.graph.calls import CallGraph
from errscan.graph.index import PackageIndex
from errscan.ids import error_id
from errscan.model import Catalog, ErrorSite, Excerpt, ScanSummary
from errscan.profiles import Profile
from errscan.profiles.vllm import VLLM
from errscan.scope import Scope
from errscan.sources import Source, SourceFile

EXCERPT_CONTEXT = 10  # lines shown above and below a site


@dataclass(frozen=True)
class ScanOptions:
    repo: str
    scope: Scope
    jobs: int = 0  # 0: one process per core
    profile: Profile = VLLM
    cache: ScanCache | None = field(default=None, compare=False)  # None: parse every file


def scan(source: Source, options: ScanOptions) -> Catalog:
    timings: dict[str, float] = {}
    started = time.perf_counter()
    files = list(source.files())
    timings["read"] = time.perf_counter() - started

    mark = time.perf_counter()
    results = extract_cached(files, options.scope, options.jobs, options.cache)
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


def extract_all(files: list[SourceFile], scope: Scope, jobs: int) -> list[FileResult]:
    """Extract every file, spread over processes; results come back in path order whatever `jobs`."""
    work = [(f, scope.catalogues(f.path)) for f in files]
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(work) < 32:
        results = [extract_file(f, c) for f, c in work]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            chunk = max(1, len(work) // (jobs * 8))
            results = list(pool.map(_extract_pair, work, chunksize=chunk))
    return sorted(results, key=lambda r: r.path)


def extract_cached(
    files: list[SourceFile], scope: Scope, jobs: int, cache: ScanCache | None
) -> list[FileResult]:
    """`extract_all`, taking what the cache holds from it and storing what had to be parsed."""
    if cache is None:
        return extract_all(files, scope, jobs)
    keys = [(f.path, f.digest, scope.catalogues(f.path)) for f in files]
    stored = cache.stored(keys)
    # Parse what is missing before loading the rest: workers fork from a smaller heap.
    parsed = extract_all([f for f, found in zip(files, stored) if not found], scope, jobs)
    kept = [(f, key) for f, key, found in zip(files, keys, stored) if found]
    hits = cache.get_many([key for _, key in kept])
    parsed += extract_all([f for (f, _), hit in zip(kept, hits) if hit is None], scope, jobs)  # damaged
    for result in parsed:
        cache.put(result, scope.catalogues(result.path))
    return sorted([hit for hit in hits if hit is not None] + parsed, key=lambda r: r.path)


def _extract_pair(pair: tuple[SourceFile, bool]) -> FileResult:
    return extract_file(*pair)


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
