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

from errscan.extract.facts import ModuleFacts, collect_facts
from errscan.extract.names import is_package, module_name
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


def extract_file(source: SourceFile, catalogued: bool) -> FileResult:
    """Facts (and, when catalogued, sites) of one file; a file that cannot be read yields a failure."""
    try:
        text = decode_source(source.data)
    except (SyntaxError, UnicodeDecodeError) as exc:
        return _failed(source, _decode_failure(source, exc))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, filename=source.path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 1
        return _failed(source, ParseFailure(source.path, line, f"syntax error: {getattr(exc, 'msg', exc)}"))
    facts = collect_facts(tree, module_name(source.path), is_package(source.path))
    if not catalogued:
        return FileResult(source.path, source.digest, (), facts, (), 0, None)
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        failure = ParseFailure(source.path, exc.raw_line, f"libcst cannot parse: {exc.message}")
        return FileResult(source.path, source.digest, (), facts, (), 0, failure)
    sites, reraises = extract_sites(module, facts)
    return FileResult(source.path, source.digest, tuple(text.splitlines()), facts, sites, reraises, None)


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
