"""Runs the scan's stages (`errscan.stages`) fast: over processes, from the cache, several sources at once.

What this adds to the stages, and nothing else: which process runs what (a pool for extraction
and for the chunks of one source's analysis, a forked process per source for the rest when several
are scanned; all here with one job), per-file time limits and the
retry from `ast` of a file that was lost, the encoded bytes shared by the cache and the pipes, the
paused garbage collector, each stage's time, and scanning releases a few at a time.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from msgspec.structs import replace

from errscan.analysis import analyze
from errscan.analysis.chunks import ChunkMap, in_order
from errscan.extract import FileResult
from errscan.extract.logcalls import GENERIC, LogCalls
from errscan.model import Catalog, ErrorSite, ParseFailure, ReleaseRef
from errscan.profiles import Profile
from errscan.profiles.vllm import VLLM
from errscan.request import Revision, ScanRequest
from errscan.runtime.cache import ScanCache, decode_catalog, decode_errors, decode_result, encode, open_cache, store_payload
from errscan.runtime.pool import TaskLost, run_all
from errscan.runtime.progress import Progress
from errscan.scope import Scope
from errscan.sources import Source, SourceFile
from errscan.stages import assemble_catalog, call_graph, error_sites, extract_versions, package_index

FILE_TIME_LIMIT = 120.0  # seconds for one file; vLLM's largest takes a few
ANALYSIS_TIME_LIMIT = 1800.0  # seconds for one source's whole-package analysis (or a chunk of it); vLLM's takes a few minutes
RELEASES_AT_ONCE = 4  # sources scanned together: their files and graphs share memory at once


@dataclass(frozen=True)
class ScanOptions:
    repo: str
    scope: Scope
    jobs: int = 0  # 0: one process per core; 1: everything in this process
    profile: Profile = VLLM
    file_time_limit: float = FILE_TIME_LIMIT
    cache: ScanCache | None = field(default=None, compare=False)  # None: parse every file

    @classmethod
    def for_request(cls, request: ScanRequest) -> ScanOptions:
        """The request's options, its cache opened (and made) unless it asks for none."""
        scope = request.scope()
        cache = None if request.no_cache else open_cache(request.cache_root)
        return cls(repo=request.repo, scope=scope, jobs=request.jobs, profile=request.profile, cache=cache)


def scan(source: Source, options: ScanOptions) -> Catalog:
    """One source scanned; see `scan_together`."""
    return scan_together([source], options)[0].catalog


def scan_each(revisions: list[Revision], options: ScanOptions, progress: Progress) -> list[tuple[ReleaseRef, Catalog]]:
    """Each revision's catalog, named by its version when it has one, else as the user gave it.

    Revisions are opened and scanned a few at a time with `scan_together`, so that a file they
    share is parsed once and their analyses run side by side, in bounded memory."""
    snapshots = []
    for first in range(0, len(revisions), RELEASES_AT_ONCE):
        batch = revisions[first : first + RELEASES_AT_ONCE]
        sources = []
        for position, revision in enumerate(batch, first + 1):
            progress.start(revision.name, position, len(revisions))
            if revision.fetches:
                progress.stage("opening the release (pip fetches it on first use)")
            sources.append(revision.open())
            for note in sources[-1].notes:
                progress.note(note)
        if len(batch) > 1:
            progress.start(", ".join(r.name for r in batch), first + 1, len(revisions), first + len(batch))
        scanned_batch = scan_together(sources, options, progress)
        for position, (revision, scanned) in enumerate(zip(batch, scanned_batch), first + 1):
            catalog, files = scanned.catalog, scanned.catalog.summary.files_read
            progress.finish(revision.name, position, len(revisions), files, files - scanned.parsed)
            snapshots.append((ReleaseRef(catalog.version or revision.name, catalog.version, catalog.commit), catalog))
    return snapshots


@dataclass(frozen=True)
class Scanned:
    catalog: Catalog
    parsed: int  # files parsed for this source; the others came from the cache or an earlier source


def scan_together(sources: list[Source], options: ScanOptions, progress: Progress | None = None) -> list[Scanned]:
    """Several sources (releases of one package, say) scanned as one job, in their order.

    A file they share is parsed once, for the first source that has it, in one pool run over all
    the files to parse, so that no core idles between sources. Then each source's whole-package
    analysis runs in a process of its own, side by side. A source whose very files were scanned
    before with these options takes its catalog from the cache. `progress` is told each stage, and
    the parsing's count.
    """
    progress = progress or Progress(quiet=True)
    # The facts of a whole package are a great many small objects that all live until the end:
    # the cyclic collector would only rescan them, again and again.
    with collector_paused():
        started = time.perf_counter()
        progress.stage("reading files")
        read = [tuple(source.files()) for source in sources]
        read_seconds = time.perf_counter() - started
        entries = [_catalog_entry(source, files, options) for source, files in zip(sources, read)]
        stored = [_stored_catalog(entry, len(files), options) for entry, files in zip(entries, read)]
        todo = [i for i, catalog in enumerate(stored) if catalog is None]
        mark = time.perf_counter()
        if todo:
            progress.stage("parsing")
        results, parsed = extract_shared([read[i] for i in todo], options, progress.parsing)
        seconds = {"read": read_seconds, "extract": time.perf_counter() - mark}
        jobs = [_CatalogJob(sources[i].commit, sources[i].version, entries[i], seconds) for i in todo]
        built = _build_catalogs(jobs, results, options, progress)
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
    seconds: dict[str, float]  # of the stages before the catalog's own


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


def _build_catalogs(
    jobs: list[_CatalogJob], results: list[list[FileResult]], options: ScanOptions, progress: Progress
) -> list[Catalog]:
    """Each job's catalog from its files' results: side by side in forked processes when there are
    several and cores to spare (a fork shares the results without copying them), else here."""
    processes = min(len(jobs), options.jobs or os.cpu_count() or 1)
    if processes < 2 or multiprocessing.get_start_method() != "fork":
        analysis_jobs = options.jobs or os.cpu_count() or 1
        return [build_catalog(job, files, options, progress=progress, analysis_jobs=analysis_jobs)
                for job, files in zip(jobs, results)]
    progress.stage(f"call graphs and analyses, {processes} side by side")
    task = partial(_catalog_task, jobs, results, options)
    outcomes = run_all(task, range(len(jobs)), processes, ANALYSIS_TIME_LIMIT)
    catalogs = []
    for i, outcome in enumerate(outcomes):
        if isinstance(outcome, TaskLost):
            catalogs.append(build_catalog(jobs[i], results[i], options))
            continue
        payload, store_error = outcome
        _note_store_error(options.cache, store_error)
        catalogs.append(decode_catalog(payload))
    return catalogs


def _catalog_task(
    jobs: list[_CatalogJob], results: list[list[FileResult]], options: ScanOptions, i: int
) -> tuple[bytes, str | None]:
    """In a forked process: one job's catalog, stored in the cache and sent home as the same bytes,
    with why it could not be stored."""
    catalog = build_catalog(jobs[i], results[i], options, store=False)
    payload = encode(catalog)
    entry = jobs[i].entry if options.cache is not None and options.cache.writable else None
    return payload, store_payload(entry, payload) if entry is not None else None


def build_catalog(
    job: _CatalogJob, results: list[FileResult], options: ScanOptions, store: bool = True,
    progress: Progress | None = None, analysis_jobs: int = 1,
) -> Catalog:
    """One source's catalog from its files' results: the stages after extraction, each timed (and
    shown on `progress`), the analysis over `analysis_jobs` processes (1 in a worker of the pool,
    which may start none)."""
    seconds = dict(job.seconds)
    progress = progress or Progress(quiet=True)
    with _timed(seconds, "catalog", progress, "listing the errors"):
        index = package_index(results)
        sites = error_sites(results, index, options.repo, job.commit)
    with _timed(seconds, "graph", progress, "building the call graph"):
        graph = call_graph(index, results, options.profile)
    with _timed(seconds, "analysis", progress, "analysing conditions and call chains"):
        analyzed = analyze(sites, graph, options.profile, _analysis_map(analysis_jobs))
    seconds["total"] = sum(seconds.values())
    catalog = assemble_catalog(
        results, graph, analyzed, repo=options.repo, commit=job.commit, version=job.version,
        scope=options.scope, stage_seconds=seconds,
    )
    if store and job.entry is not None and options.cache is not None:
        options.cache.put_catalog(job.entry, catalog)
    return catalog


def _analysis_map(jobs: int) -> ChunkMap:
    """How the analysis runs its chunks: here with one job (or where processes are not forked, as
    they must be to share the analysis' structures), else over the pool."""
    if jobs <= 1 or multiprocessing.get_start_method() != "fork":
        return in_order
    return partial(_forked_chunks, jobs)


def _forked_chunks(jobs: int, function: Callable[[Sequence[int]], list[ErrorSite]], chunks: Sequence[Sequence[int]]) -> list[list[ErrorSite]]:
    """`function` over the chunks in `jobs` forked processes, each chunk's errors sent home encoded;
    a lost chunk is analysed again here."""
    outcomes = run_all(partial(_encoded_chunk, function), chunks, jobs, ANALYSIS_TIME_LIMIT)
    return [function(chunk) if isinstance(outcome, TaskLost) else decode_errors(outcome) for chunk, outcome in zip(chunks, outcomes)]


def _encoded_chunk(function: Callable[[Sequence[int]], list[ErrorSite]], chunk: Sequence[int]) -> bytes:
    return encode(function(chunk))


@contextmanager
def _timed(seconds: dict[str, float], stage: str, progress: Progress, doing: str) -> Iterator[None]:
    progress.stage(doing)
    started = time.perf_counter()
    yield
    seconds[stage] = time.perf_counter() - started


def extract_all(
    files: list[SourceFile], scope: Scope, jobs: int, time_limit: float = FILE_TIME_LIMIT,
    cache: ScanCache | None = None, on_parsed: Callable[[int], None] | None = None, logs: LogCalls = GENERIC,
) -> list[FileResult]:
    """Extract every file over `jobs` processes (0: one per core); results in path order whatever `jobs`.

    The versions of one path (from several releases) go to one task, oldest first as given (see
    `extract_versions`). Each task stores its results in `cache` itself, so that writing entries
    runs in parallel too. A file whose extraction overran `time_limit` seconds (per version) or
    killed its worker is extracted again from `ast` alone; one that fails even so is reported and
    left out. `on_parsed` is told how many files each finished task held. `logs` says which calls
    are log sites.
    """
    versions: dict[str, list[SourceFile]] = {}
    for f in files:
        versions.setdefault(f.path, []).append(f)
    # Largest first, so no core is left with one big file at the end while the others idle.
    families = sorted(versions.values(), key=lambda same: -sum(len(f.data) for f in same))
    work = [_task(family, scope.catalogues(family[0].path), cache, logs) for family in families]
    jobs = jobs or os.cpu_count() or 1
    most = max((len(family) for family in families), default=1)
    done = (lambda task: on_parsed(len(work[task].sources))) if on_parsed is not None else None
    outcomes = run_all(_extract_task, work, jobs, time_limit * most, done)
    results: list[FileResult] = []
    for task, outcome in zip(work, outcomes):
        if not isinstance(outcome, TaskLost):
            results += _extracted(outcome, cache)
            continue
        alone = [_task((source,), task.catalogued, cache, logs, outcome.reason) for source in task.sources]
        for retry, retried in zip(alone, run_all(_extract_task, alone, jobs, time_limit)):
            results += [_unreadable(retry.sources[0], f"{retried.reason}; skipped")] if isinstance(retried, TaskLost) else _extracted(retried, cache)
    return sorted(results, key=lambda r: r.path)


def _extracted(outcome: tuple[list[bytes], str | None], cache: ScanCache | None) -> list[FileResult]:
    payloads, store_error = outcome
    _note_store_error(cache, store_error)
    return [decode_result(payload) for payload in payloads]


def _note_store_error(cache: ScanCache | None, error: str | None) -> None:
    if cache is not None and error is not None:
        cache.write_failed(error)


def extract_shared(
    file_lists: list[tuple[SourceFile, ...]], options: ScanOptions, on_parsed: Callable[[int, int], None] | None = None
) -> tuple[list[list[FileResult]], list[int]]:
    """`extract_all` over several sources' files: each distinct file is taken from the cache or
    parsed once, whichever sources share it. Returns each source's results in path order, and how
    many files were parsed for each (a parsed file counts for the first source that has it).
    `on_parsed(done, total)` follows the parsing."""
    scope, cache = options.scope, options.cache
    wanted: dict[tuple[str, str, bool], SourceFile] = {}
    unread: dict[tuple[str, str, bool], FileResult] = {}  # neither cached nor parsed: reported
    for files in file_lists:
        for f in files:
            key = (f.path, f.digest, scope.catalogues(f.path))
            if f.unreadable is not None:
                unread[key] = _unreadable(f, f.unreadable)
            else:
                wanted.setdefault(key, f)
    keys = list(wanted)
    logs = LogCalls(options.profile.log_helpers)
    stored = cache.stored(keys, logs) if cache is not None else [False] * len(keys)
    # Parse what is missing before loading the rest: workers fork from a smaller heap.
    missing = [wanted[key] for key, found in zip(keys, stored) if not found]
    count = [0]

    def parsed_some(files: int) -> None:
        count[0] += files
        if on_parsed is not None:
            on_parsed(count[0], len(missing))

    made = extract_all(missing, scope, options.jobs, options.file_time_limit, cache, parsed_some, logs)
    found: dict[tuple[str, str, bool], FileResult] = {(r.path, r.digest, scope.catalogues(r.path)): r for r in made}
    hits = {key: cache.get(*key, logs) for key, present in zip(keys, stored) if present} if cache is not None else {}
    damaged = [wanted[key] for key, hit in hits.items() if hit is None]
    for result in extract_all(damaged, scope, options.jobs, options.file_time_limit, cache, logs=logs):
        found[(result.path, result.digest, scope.catalogues(result.path))] = result
    to_parse = set(found)  # parsed now, missing or damaged in the cache
    found.update((key, hit) for key, hit in hits.items() if hit is not None)
    found.update(unread)
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
    logs: LogCalls
    libcst_failure: str | None = None  # set on the retry, from `ast` alone, of a file that was lost


def _task(
    sources: tuple[SourceFile, ...] | list[SourceFile], catalogued: bool, cache: ScanCache | None,
    logs: LogCalls, libcst_failure: str | None = None,
) -> _Task:
    store = cache is not None and cache.writable
    entries = tuple(cache.entry_path(s.path, s.digest, catalogued, logs) if store else None for s in sources)
    return _Task(tuple(sources), catalogued, entries, logs, libcst_failure)


def _extract_task(task: _Task) -> tuple[list[bytes], str | None]:
    """The encoded results, each stored in the cache by this worker, and why storing failed if it did
    (then nothing more is stored: a full disk only costs the cache)."""
    payloads, store_error = [], None
    for result, entry in zip(extract_versions(task.sources, task.catalogued, task.libcst_failure, task.logs), task.entries):
        payloads.append(encode(result))
        if entry is not None and store_error is None:
            store_error = store_payload(entry, payloads[-1])
    return payloads, store_error


def _unreadable(source: SourceFile, reason: str) -> FileResult:
    return FileResult(source.path, source.digest, (), None, (), 0, ParseFailure(source.path, 1, reason))
