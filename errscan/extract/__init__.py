"""Extraction: everything errscan learns from one file, in one read of it.

Every file read gets `ast` facts (definitions, imports) for the whole-package analysis; a catalogued
file is also parsed by libcst for its raise sites. The result is plain frozen data, so it can be
sent between processes and cached by the file's content hash.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass

import libcst as cst

from errscan.extract.ast_sites import extract_ast_sites
from errscan.extract.astutil import source_lines
from errscan.extract.collect import collect_facts
from errscan.extract.facts import SITE_KINDS, ModuleFacts
from errscan.extract.logcalls import GENERIC, LogCalls
from errscan.extract.names import is_package, module_name
from errscan.extract.reuse import BodyMemo, collect_facts_reusing, collect_facts_with_memo
from errscan.extract.sites import RawSite, extract_sites
from errscan.model import ParseFailure
from errscan.sources import SourceFile


@dataclass(frozen=True)
class FileResult:
    path: str
    digest: str
    lines: tuple[str, ...]  # the decoded text, kept for excerpts of catalogued files only
    facts: ModuleFacts | None
    sites: tuple[RawSite, ...]
    reraises: int
    failure: ParseFailure | None


def extract_file(
    source: SourceFile, catalogued: bool, memo: BodyMemo | None = None, logs: LogCalls = GENERIC
) -> FileResult:
    """Facts (and, when catalogued, sites) of one file; a file that cannot be read yields a failure.

    When libcst cannot parse or walk the file, its sites come from `ast` instead, and the failure
    says so. A `memo` shared by the versions of one file saves walking the functions they share
    (and says which calls are log sites); else `logs` does.
    """
    return _extract(source, catalogued, None, memo, logs)


def extract_file_from_ast(
    source: SourceFile, catalogued: bool, reason: str, memo: BodyMemo | None = None, logs: LogCalls = GENERIC
) -> FileResult:
    """As `extract_file`, without libcst: for a file whose libcst parse overran or crashed."""
    return _extract(source, catalogued, reason, memo, logs)


def _extract(
    source: SourceFile, catalogued: bool, libcst_failure: str | None, memo: BodyMemo | None, logs: LogCalls
) -> FileResult:
    logs = memo.logs if memo is not None else logs
    try:
        text = decode_source(source.data)
    except (SyntaxError, UnicodeDecodeError) as exc:
        return _failed(source, _decode_failure(source, exc))
    lines = source_lines(text) if memo is not None or catalogued else None  # for memo keys, excerpts
    module, package = module_name(source.path), is_package(source.path)
    if memo is not None and memo.statements and not catalogued:
        # (a catalogued file's sites need its whole tree)
        known = collect_facts_reusing(lines, module, package, memo)
        if known is not None:
            return FileResult(source.path, source.digest, (), known, (), 0, None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, filename=source.path)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        line = getattr(exc, "lineno", None) or 1
        return _failed(source, ParseFailure(source.path, line, f"syntax error: {getattr(exc, 'msg', exc)}"))
    if memo is None:
        facts = collect_facts(tree, module, package, logs)
    else:
        facts = collect_facts_with_memo(tree, module, package, lines, memo)
    if not catalogued:
        return FileResult(source.path, source.digest, (), facts, (), 0, None)
    if not any(s.kind in SITE_KINDS for s in facts.statements):
        # ast already saw every raise, assert and log call: with no site among them, libcst has nothing to add.
        reraises = sum(s.kind == "reraise" for s in facts.statements)
        return FileResult(source.path, source.digest, (), facts, (), reraises, None)
    failure_line = 1
    if libcst_failure is None:
        try:
            sites, reraises = extract_sites(text, lines, tree, facts, logs)
            return FileResult(source.path, source.digest, tuple(lines), facts, sites, reraises, None)
        except cst.ParserSyntaxError as exc:
            libcst_failure, failure_line = f"libcst cannot parse: {exc.message}", exc.raw_line
        except RecursionError:
            libcst_failure = "libcst cannot parse: nesting too deep for its recursion"
    sites, reraises = extract_ast_sites(tree, text, lines, facts, logs)
    failure = ParseFailure(source.path, failure_line, f"{libcst_failure}; raise sites taken from ast")
    return FileResult(source.path, source.digest, tuple(lines), facts, sites, reraises, failure)


def decode_source(data: bytes) -> str:
    """Text as Python reads it: PEP 263 coding cookie or BOM, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def _decode_failure(source: SourceFile, exc: Exception) -> ParseFailure:
    if isinstance(exc, UnicodeDecodeError):
        line = source.data[: exc.start].count(b"\n") + 1
        return ParseFailure(source.path, line, f"cannot decode: {exc.reason} at byte {exc.start}")
    return ParseFailure(source.path, 1, f"cannot decode: {exc}")


def _failed(source: SourceFile, failure: ParseFailure) -> FileResult:
    return FileResult(source.path, source.digest, (), None, (), 0, failure)
