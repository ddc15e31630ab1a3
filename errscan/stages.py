"""The scan's stages as plain functions, each run in the calling process.

    files --extract_versions--> FileResult per file
          --package_index, error_sites--> ErrorSite per raise/assert (ids, excerpts, links)
          --call_graph--> CallGraph of the whole package
          --errscan.analysis.analyze--> ErrorSite with its trigger
          --assemble_catalog--> Catalog

`errscan.runtime.runner` calls them in this order and decides where each runs (worker processes
for extraction, a forked process per source for the rest) and what is cached; called one after
another here they give the same catalog.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator, Sequence
from urllib.parse import quote

from errscan.analysis import AnalysisStats
from errscan.extract import FileResult, extract_file, extract_file_from_ast
from errscan.extract.facts import ModuleFacts
from errscan.extract.logcalls import GENERIC, LogCalls
from errscan.extract.reuse import BodyMemo
from errscan.extract.sites import RawSite

from errscan.graph.calls import CallGraph, function_node
from errscan.graph.index import PackageIndex
from errscan.ids import error_id, normalize
from errscan.model import Catalog, ErrorSite, Excerpt, ScanSummary
from errscan.profiles import Profile
from errscan.scope import Scope
from errscan.sources import SourceFile

EXCERPT_CONTEXT = 10  # lines shown above and below a site


def extract_versions(
    versions: Sequence[SourceFile], catalogued: bool, libcst_failure: str | None = None, logs: LogCalls = GENERIC
) -> Iterator[FileResult]:
    """The results of the versions of one path (from several releases), oldest first.

    They share one `BodyMemo`, so what a later version shares with an earlier one is walked once;
    a single version keeps none (it would never be read). With `libcst_failure` (the reason libcst
    failed on this file before), sites come from `ast` alone.
    """
    memo = BodyMemo(logs) if len(versions) > 1 else None
    for source in versions:
        if libcst_failure is None:
            yield extract_file(source, catalogued, memo, logs)
        else:
            yield extract_file_from_ast(source, catalogued, libcst_failure, memo, logs)


def package_index(results: Sequence[FileResult]) -> PackageIndex:
    return PackageIndex([r.facts for r in results if r.facts is not None])


def call_graph(index: PackageIndex, results: Sequence[FileResult], profile: Profile) -> CallGraph:
    keeps = [(kept.function, argument) for kept in profile.keeps for argument in kept.arguments]
    return CallGraph(index, {r.facts.module: r.path for r in results if r.facts is not None}, keeps)


def error_sites(
    results: Sequence[FileResult], index: PackageIndex, repo: str, commit: str | None
) -> list[tuple[ErrorSite, RawSite, ModuleFacts]]:
    """Each raw site as an error with its id, excerpt and link, beside what the analysis needs.

    Identical twins (one function, exception and template) are told apart by their order."""
    sites = []
    for result in results:
        twins: Counter[tuple[str, str, str]] = Counter()
        for raw in result.sites:
            key = (raw.function, raw.exception.rsplit(".", 1)[-1], normalize(raw.message))
            ordinal = twins[key]
            twins[key] += 1
            sites.append((_error_site(raw, result, index, repo, commit, ordinal), raw, result.facts))
    return sites


def assemble_catalog(
    results: Sequence[FileResult], graph: CallGraph, analyzed: tuple[list[ErrorSite], AnalysisStats], *,
    repo: str, commit: str | None, version: str | None, scope: Scope, stage_seconds: dict[str, float],
) -> Catalog:
    """The catalog of one source, with the summary of how its scan went."""
    errors, stats = analyzed
    catalogued = [r for r in results if scope.catalogues(r.path)]
    kinds = Counter(e.kind for e in errors)
    summary = ScanSummary(
        files_read=len(results),
        files_catalogued=len(catalogued),
        raises=kinds["raise"],
        asserts=kinds["assert"],
        logs=kinds["log"],
        reraises=sum(r.reraises for r in results),
        parse_failures=tuple(r.failure for r in results if r.failure is not None),
        graph_files=len(graph.index.modules),
        graph_functions=graph.graph.number_of_nodes(),
        graph_edges=graph.graph.number_of_edges(),
        unresolved_calls=sum(graph.unresolved.values()),
        entry_points=stats.entries,
        errors_with_chain=stats.with_chain,
        stage_seconds={k: round(v, 3) for k, v in stage_seconds.items()},
    )
    return Catalog(
        repo=repo,
        commit=commit,
        version=version,
        include=scope.include,
        exclude=scope.exclude,
        errors=tuple(errors),
        summary=summary,
        callgraph=graph.callgraph_document(_error_functions(errors, results)),
        files=tuple(r.path for r in catalogued),
    )


def _error_functions(errors: Sequence[ErrorSite], results: Sequence[FileResult]) -> set[str]:
    """The call-graph nodes of the functions the errors are raised or logged in."""
    modules = {r.path: r.facts.module for r in results if r.facts is not None}
    return {
        function_node(modules[e.path], "" if e.function == "<module>" else e.function)
        for e in errors if e.path in modules
    }


def _error_site(
    raw: RawSite, result: FileResult, index: PackageIndex, repo: str, commit: str | None, ordinal: int
) -> ErrorSite:
    qualname = index.canonical(raw.exception_qualname) if raw.exception_qualname else None
    start = max(1, raw.line - EXCERPT_CONTEXT)
    end = min(len(result.lines), raw.end_line + EXCERPT_CONTEXT)
    return ErrorSite(
        id=error_id(repo, result.path, raw.function, raw.exception, raw.message, ordinal),
        kind=raw.kind,
        level=raw.level,
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
    """Pinned to the commit when known; `HEAD` (the default branch) when not. Each part is
    percent-encoded: a file named `#frag?q=1.py` is a path, not a fragment and a query."""
    parts = (quote(part, safe="/") for part in (repo, commit or "HEAD", path))
    return "https://github.com/{}/blob/{}/{}#L{}".format(*parts, line)
