"""The scan pipeline: sources -> per-file extraction (in parallel) -> package index -> catalog."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Iterator

from errscan.analysis import analyze
from errscan.cache import ScanCache, encode, store_payload
from errscan.extract import FileResult, extract_file, extract_file_from_ast
from errscan.extract.facts import BodyMemo, ModuleFacts
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
ANALYSIS_TIME_LIMIT = 1800.0  # seconds for one source's whole-package analysis; vLLM's takes a few


@dataclass(frozen=True)
class ScanOptions:
    repo: str
    scope: Scope
    jobs: int = 0  # 0: one process per core
    profile: Profile = VLLM
    file_time_limit: float = FILE_TIME_LIMIT
    cache: ScanCache | None = field(default=None, compare=False)  # None: parse every file


def scan(source: Source, options: ScanOptions) -> Catalog:
    """One source scanned; see `scan_together`."""
    return scan_together([source], options)[0].catalog


@dataclass(frozen=True)
class Scanned:
    catalog: Catalog
    parsed: int  # files parsed for this source; the others came from the cache or an earlier source


def scan_together(
    sources: list[Source], options: ScanOptions, on_parsed: Callable[[int, int], None] | None = None
) -> list[Scanned]:
    """Several sources (releases of one package, say) scanned as one job, in their order.

    A file they share is parsed once, for the first source that has it, in one pool run over all
    the files to parse, so that no core idles between sources. Then each source's whole-package
    analysis runs in a process of its own, side by side. A source whose very files were scanned
    before with these options takes its catalog from the cache. `on_parsed(done, total)` follows
    the parsing, for progress.
    """
    # The facts of a whole package are a great many small objects that all live until the end:
    # the cyclic collector would only rescan them, again and again.
    with collector_paused():
        started = time.perf_counter()
        read = [tuple(source.files()) for source in sources]
        read_seconds = time.perf_counter() - started
        entries = [_catalog_entry(source, files, options) for source, files in zip(sources, read)]
        stored = [_stored_catalog(entry, len(files), options) for entry, files in zip(entries, read)]
        todo = [i for i, catalog in enumerate(stored) if catalog is None]
        mark = time.perf_counter()
        results, parsed = extract_shared([read[i] for i in todo], options, on_parsed)
        timings = {"read": read_seconds, "extract": time.perf_counter() - mark}
        jobs = [_CatalogJob(sources[i].commit, sources[i].version, entries[i], timings) for i in todo]
        built = _build_catalogs(jobs, results, options)
        scanned = [Scanned(catalog, 0) if catalog is not None else None for catalog in stored]
        for i, catalog, count in zip(todo, built, parsed):
            scanned[i] = Scanned(catalog, count)
        return scanned  # type: ignore[return-value]  # every slot was filled


@dataclass(frozen=True)
class _CatalogJob:
    """What one source's catalog is made with, besides its files' results."""

    commit: str | None
    version: str | None
    entry: Path | None  # the catalog's cache entry, None without a cache
    timings: dict[str, float]  # of the stages before the catalog's own


def _catalog_entry(source: Source, files: tuple[SourceFile, ...], options: ScanOptions) -> Path | None:
    if options.cache is None:
        return None
    return options.cache.catalog_path(
        (options.repo, options.profile.name, source.commit or "", source.version or "",
         *options.scope.include, "--exclude", *options.scope.exclude),
        ((f.path, f.digest) for f in files),
    )


def _stored_catalog(entry: Path | None, files: int, options: ScanOptions) -> Catalog | None:
    if entry is None or options.cache is None:
        return None
    started = time.perf_counter()
    cached = options.cache.get_catalog(entry, files)
    if cached is None:
        return None
    seconds = {"total": round(time.perf_counter() - started, 3)}
    return replace(cached, summary=replace(cached.summary, stage_seconds=seconds))


def _build_catalogs(jobs: list[_CatalogJob], results: list[list[FileResult]], options: ScanOptions) -> list[Catalog]:
    """Each job's catalog from its files' results: side by side in forked processes when there are
    several and cores to spare (a fork shares the results without copying them), else here."""
    processes = min(len(jobs), options.jobs or os.cpu_count() or 1)
    if processes < 2 or multiprocessing.get_start_method() != "fork":
        return [_catalog(job, files, options) for job, files in zip(jobs, results)]
    task = partial(_catalog_task, jobs, results, options)
    outcomes = run_all(task, range(len(jobs)), processes, ANALYSIS_TIME_LIMIT)
    return [
        _catalog(jobs[i], results[i], options) if isinstance(outcome, TaskLost) else pickle.loads(outcome)
        for i, outcome in enumerate(outcomes)
    ]


def _catalog_task(jobs: list[_CatalogJob], results: list[list[FileResult]], options: ScanOptions, i: int) -> bytes:
    """In a forked process: one job's catalog, stored in the cache and sent home as the same bytes."""
    catalog = _catalog(jobs[i], results[i], options, store=False)
    payload = encode(catalog)
    if jobs[i].entry is not None:
        _store_quietly(jobs[i].entry, payload)
    return payload


def _catalog(job: _CatalogJob, results: list[FileResult], options: ScanOptions, store: bool = True) -> Catalog:
    timings = dict(job.timings)
    started = time.perf_counter()
    index = PackageIndex([r.facts for r in results if r.facts is not None])
    sites = list(_catalogue(results, index, options.repo, job.commit))
    timings["catalog"] = time.perf_counter() - started

    mark = time.perf_counter()
    graph = CallGraph(index, {r.facts.module: r.path for r in results if r.facts is not None})
    timings["graph"] = time.perf_counter() - mark

    mark = time.perf_counter()
    errors, stats = analyze(sites, graph, options.profile)
    timings["analysis"] = time.perf_counter() - mark
    timings["total"] = sum(timings.values())

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
    catalog = Catalog(
        repo=options.repo,
        commit=job.commit,
        version=job.version,
        include=options.scope.include,
        exclude=options.scope.exclude,
        errors=tuple(errors),
        summary=summary,
        callgraph=graph.callgraph_document(),
        files=tuple(r.path for r in catalogued),
    )
    if store and job.entry is not None and options.cache is not None:
        options.cache.put_catalog(job.entry, catalog)
    return catalog


def extract_all(
    files: list[SourceFile], scope: Scope, jobs: int, time_limit: float = FILE_TIME_LIMIT,
    cache: ScanCache | None = None, on_parsed: Callable[[int], None] | None = None,
) -> list[FileResult]:
    """Extract every file over `jobs` processes (0: one per core); results in path order whatever `jobs`.

    The versions of one path (from several releases) go to one worker, oldest first as given, with
    one `BodyMemo`: what they share is walked once. Each worker stores its results in `cache`
    itself, so that writing entries runs in parallel too. A file whose extraction overran
    `time_limit` seconds (per version) or killed its worker is extracted again from `ast` alone; one
    that fails even so is reported and left out. `on_parsed` is told how many files each finished
    task held.
    """
    versions: dict[str, list[SourceFile]] = {}
    for f in files:
        versions.setdefault(f.path, []).append(f)
    # Largest first, so no core is left with one big file at the end while the others idle.
    families = sorted(versions.values(), key=lambda same: -sum(len(f.data) for f in same))
    work = [_task(family, scope.catalogues(family[0].path), cache) for family in families]
    jobs = jobs or os.cpu_count() or 1
    most = max((len(family) for family in families), default=1)
    done = (lambda task: on_parsed(len(work[task].sources))) if on_parsed is not None else None
    outcomes = run_all(_extract_task, work, jobs, time_limit * most, done)
    results: list[FileResult | bytes] = []
    for task, outcome in zip(work, outcomes):
        if not isinstance(outcome, TaskLost):
            results += outcome
            continue
        alone = [_task((source,), task.catalogued, cache, outcome.reason) for source in task.sources]
        for retry, retried in zip(alone, run_all(_extract_task, alone, jobs, time_limit)):
            results += [_unreadable(retry.sources[0], retried.reason)] if isinstance(retried, TaskLost) else retried
    decoded = [pickle.loads(r) if isinstance(r, bytes) else r for r in results]
    return sorted(decoded, key=lambda r: r.path)


def extract_shared(
    file_lists: list[tuple[SourceFile, ...]], options: ScanOptions, on_parsed: Callable[[int, int], None] | None = None
) -> tuple[list[list[FileResult]], list[int]]:
    """`extract_all` over several sources' files: each distinct file is taken from the cache or
    parsed once, whichever sources share it. Returns each source's results in path order, and how
    many files were parsed for each (a parsed file counts for the first source that has it).
    `on_parsed(done, total)` follows the parsing."""
    scope, cache = options.scope, options.cache
    wanted: dict[tuple[str, str, bool], SourceFile] = {}
    for files in file_lists:
        for f in files:
            wanted.setdefault((f.path, f.digest, scope.catalogues(f.path)), f)
    keys = list(wanted)
    stored = cache.stored(keys) if cache is not None else [False] * len(keys)
    # Parse what is missing before loading the rest: workers fork from a smaller heap.
    missing = [wanted[key] for key, found in zip(keys, stored) if not found]
    count = [0]

    def parsed_some(files: int) -> None:
        count[0] += files
        if on_parsed is not None:
            on_parsed(count[0], len(missing))

    made = extract_all(missing, scope, options.jobs, options.file_time_limit, cache, parsed_some)
    found: dict[tuple[str, str, bool], FileResult] = {(r.path, r.digest, scope.catalogues(r.path)): r for r in made}
    hits = {key: cache.get(*key) for key, present in zip(keys, stored) if present} if cache is not None else {}
    damaged = [wanted[key] for key, hit in hits.items() if hit is None]
    for result in extract_all(damaged, scope, options.jobs, options.file_time_limit, cache):
        found[(result.path, result.digest, scope.catalogues(result.path))] = result
    to_parse = set(found)  # parsed now, missing or damaged in the cache
    found.update((key, hit) for key, hit in hits.items() if hit is not None)
    results, parsed = [], []
    for files in file_lists:
        own = [(f.path, f.digest, scope.catalogues(f.path)) for f in files]
        parsed.append(sum(1 for key in own if key in to_parse))
        to_parse.difference_update(own)
        results.append(sorted((found[key] for key in own), key=lambda r: r.path))
    return results, parsed


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
    sources: tuple[SourceFile, ...]  # versions of one path, oldest first
    catalogued: bool
    entries: tuple[Path | None, ...]  # the cache entry to write for each, None without a cache
    libcst_failure: str | None = None  # set on the retry, from `ast` alone, of a file that was lost


def _task(
    sources: tuple[SourceFile, ...] | list[SourceFile], catalogued: bool, cache: ScanCache | None,
    libcst_failure: str | None = None,
) -> _Task:
    entries = tuple(cache.entry_path(s.path, s.digest, catalogued) if cache else None for s in sources)
    return _Task(tuple(sources), catalogued, entries, libcst_failure)


def _extract_task(task: _Task) -> list[bytes]:
    # A memo serves only a later version of the file: with one version, keeping it is work lost.
    memo = BodyMemo() if len(task.sources) > 1 else None
    payloads = []
    for source, entry in zip(task.sources, task.entries):
        if task.libcst_failure is None:
            result = extract_file(source, task.catalogued, memo)
        else:
            result = extract_file_from_ast(source, task.catalogued, task.libcst_failure, memo)
        payloads.append(encode(result))
        if entry is not None:
            _store_quietly(entry, payloads[-1])
    return payloads


def _store_quietly(entry: Path, payload: bytes) -> None:
    try:
        store_payload(entry, payload)
    except OSError:
        pass  # the cache only saves time: a full disk must not cost the scan its result


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
