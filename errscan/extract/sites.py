"""Sites of one module (raises, asserts, log calls), found by a libcst walk (concrete syntax keeps comments and messages).

libcst parses only what needs concrete syntax: the outermost functions that hold a site,
each on its own (a quarter of vLLM's lines), and the whole module only when a site lies outside every
function, where module-level names may make up its message. Line numbers come from the `ast` facts
of the same text, matched statement for statement in source order, because libcst's
PositionProvider costs more than the parse itself; if the two walks ever disagree, the whole module
is parsed and PositionProvider used.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from dataclasses import dataclass
from typing import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from errscan.extract.astutil import child_blocks, first_line, is_value_name
from errscan.extract.conditions import Condition
from errscan.extract.facts import SITE_KINDS, ModuleFacts, StatementPosition
from errscan.extract.logcalls import DEFAULT_WARNING, GENERIC, LogCalls, is_warnings_call
from errscan.extract.names import ScopeStack, qualify
from errscan.extract.templates import EMPTY, LocalLookup, Template, TemplateBuilder
from errscan.model import Placeholder

MESSAGE_KEYWORDS = ("msg", "message", "detail", "reason")


@dataclass(frozen=True)
class RawSite:
    """A site as one file alone can describe it; the scan adds ids, links and the tree's classes."""

    kind: str
    exception: str
    exception_qualname: str | None
    message: str
    placeholders: tuple[Placeholder, ...]
    line: int
    end_line: int
    function: str
    comments: tuple[str, ...]
    cause: str | None
    assert_test: str | None
    condition: Condition = ()  # path condition within the function (from the ast facts)
    partial: tuple[str, ...] = ()
    level: str | None = None  # a log site's: "warning", "error", "exception" or "critical"


@dataclass(frozen=True)
class SiteText:
    """What a walk of the source (libcst's, or the ast fallback's) reads of a site; where it stands
    and under what condition come from the `ast` facts' statement."""

    kind: str
    exception: str
    exception_qualname: str | None
    template: Template
    function: str
    comments: tuple[str, ...]
    cause: str | None
    assert_test: str | None
    level: str | None = None

    def at(self, position: StatementPosition) -> RawSite:
        """The site, in RawSite's field order."""
        return RawSite(
            self.kind, self.exception, self.exception_qualname, self.template.text, self.template.placeholders,
            position.line, position.end_line, self.function, self.comments, self.cause, self.assert_test,
            position.condition, position.partial, self.level,
        )


class _SiteWalker:
    """Walks statements only, never expressions: raise and assert are statements, and so is every
    assignment, handler and scope it needs, while libcst's visitor over every node would cost
    several times the parse."""

    def __init__(
        self, module: cst.Module, facts: ModuleFacts, scopes: Sequence[tuple[str, bool]] = (), logs: LogCalls = GENERIC
    ):
        self.facts = facts
        self.logs = logs
        self.scopes = ScopeStack()
        for name, is_function in scopes:
            self.scopes.push(name, is_function)
        self.assignments: list[dict[str, list[cst.BaseExpression | None]]] = [{}]
        # Not a bound method: walker -> builder -> walker would be a reference cycle, and every
        # file's tree would then wait for the cyclic garbage collector instead of being freed.
        self.templates = TemplateBuilder(module, _single_assignment_lookup(self.assignments))
        self.comments: tuple[str, ...] = ()
        self.events: list[str] = []  # kind of every raise/assert/log, to match the ast positions
        self.pending: list[tuple[cst.Raise | cst.Assert, SiteText]] = []

    def walk(self, statements: Sequence[cst.BaseStatement]) -> None:
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                self.comments = _comment_block(statement.leading_lines)
                self._small_statements(statement.body)
            elif isinstance(statement, cst.FunctionDef):
                # a function gets its own assignments and handlers
                self.scopes.push(statement.name.value, True)
                self.assignments.append({})
                self._suite(statement.body)
                self.scopes.pop()
                self.assignments.pop()
            elif isinstance(statement, cst.ClassDef):
                # a class body shares nothing with its methods, and has no frame of its own
                self.scopes.push(statement.name.value, False)
                self._suite(statement.body)
                self.scopes.pop()
            else:
                self._compound(statement)

    def _compound(self, statement: cst.BaseCompoundStatement) -> None:
        """if/elif/else, for, while, with, try, match: their blocks in source order."""
        for block in child_blocks(statement):
            if isinstance(block, cst.If):  # an `elif`
                self._compound(block)
            else:
                self._suite(block.body if isinstance(block, (cst.Else, cst.Finally)) else block)

    def _suite(self, suite: cst.BaseSuite) -> None:
        if isinstance(suite, cst.SimpleStatementSuite):
            self.comments = ()
            self._small_statements(suite.body)
        else:
            self.walk(suite.body)

    def _small_statements(self, statements: Sequence[cst.BaseSmallStatement]) -> None:
        for small in statements:
            if isinstance(small, cst.Raise):
                self._raise(small)
            elif isinstance(small, cst.Assert):
                self._assert(small)
            elif isinstance(small, cst.Assign):
                self._assign(small)
            elif isinstance(small, cst.AnnAssign):
                if isinstance(small.target, cst.Name) and small.value is not None:
                    self._assigned(small.target.value, small.value)
            elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
                self._assigned(small.target.value, None)
            elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                self._call(small, small.value)

    # local facts the message and exception may refer to
    def _assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self._assigned(node.targets[0].target.value, node.value)
        else:
            for target in node.targets:
                for name in _names(target.target):
                    self._assigned(name, None)

    def _assigned(self, name: str, value: cst.BaseExpression | None) -> None:
        self.assignments[-1].setdefault(name, []).append(value)

    # sites
    def _raise(self, node: cst.Raise) -> None:
        if node.exc is None or _rethrows(node.exc):
            self.events.append("reraise")
            return
        self.events.append("raise")
        exception, qualname, template = self._describe_raised(node.exc)
        cause = self.templates.source(node.cause.item) if node.cause is not None else None
        self._site(node, "raise", exception, qualname, template, cause, None)

    def _assert(self, node: cst.Assert) -> None:
        if node.msg is None:
            self.events.append("assert-nomsg")
            return
        self.events.append("assert")
        template = self.templates.render(node.msg)
        test = self.templates.source(node.test)
        self._site(node, "assert", "AssertionError", "builtins.AssertionError", template, None, test)

    def _call(self, node: cst.Expr, call: cst.Call) -> None:
        """A call statement: a log site when `logs` says so (as the ast walk does, `logs.level`)."""
        positional = [a for a in call.args if a.keyword is None and a.star != "**"]
        callee = _dotted(call.func)
        level = self.logs.level(callee) if positional else None
        if level is None:
            return
        self.events.append("log")
        exception, qualname = "", None
        if is_warnings_call(callee):
            category = positional[1].value if len(positional) > 1 else _keyword(call, "category")
            dotted = _dotted(category) if category is not None else DEFAULT_WARNING
            exception = dotted or self.templates.source(category)
            qualname = self._qualify(dotted) if dotted else None
            template = self.templates.render(positional[0].value)
        elif positional[0].star:
            template = self.templates.render(call)
        else:
            template = self.templates.log_message(positional[0].value, [a.value for a in positional[1:]])
        self._site(node, "log", exception, qualname, template, None, None, level)

    def _site(self, node, kind, exception, qualname, template, cause, test, level=None) -> None:
        function = self.scopes.current or "<module>"
        text = SiteText(kind, exception, qualname, template, function, self.comments, cause, test, level)
        self.pending.append((node, text))

    def _describe_raised(self, exc: cst.BaseExpression) -> tuple[str, str | None, Template]:
        target = exc.func if isinstance(exc, cst.Call) else exc
        dotted = _dotted(target)
        exception = dotted or self.templates.source(target)
        qualname = self._qualify(dotted) if dotted else None
        if not isinstance(exc, cst.Call):
            return exception, qualname, EMPTY
        return exception, qualname, self._message_argument(exc)

    def _message_argument(self, call: cst.Call) -> Template:
        positional = [a for a in call.args if a.keyword is None]
        if positional:
            first = positional[0]
            if first.star:
                return self.templates.render(call)  # `*args`: only the call says what is printed
            return self.templates.render(first.value)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in MESSAGE_KEYWORDS:
                return self.templates.render(arg.value)
        return EMPTY

    def _qualify(self, dotted: str) -> str | None:
        lookup = self.facts.lookup(self.scopes.current)
        return qualify(dotted, lookup, self.facts.module, self.facts.local_defs)


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _rethrows(exc: cst.BaseExpression) -> bool:
    """`raise err`, `raise self.error`: an exception object made elsewhere, raised again (as
    `astutil.rethrows` tells for ast)."""
    dotted = _dotted(exc)
    return dotted is not None and is_value_name(dotted)


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    return None


def _names(node: cst.BaseExpression) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for element in node.elements for n in _names(element.value)]
    return []


def _single_assignment_lookup(frames: list[dict[str, list[cst.BaseExpression | None]]]) -> LocalLookup:
    """A name's value when the innermost function assigned it exactly once so far, else None."""

    def lookup(name: str) -> cst.BaseExpression | None:
        values = frames[-1].get(name, [])
        return values[0] if len(values) == 1 else None

    return lookup


def _comment_block(leading_lines: Sequence[cst.EmptyLine]) -> tuple[str, ...]:
    """The comment lines right above a statement, without blank lines between them and it."""
    block: list[str] = []
    for line in reversed(leading_lines):
        if line.comment is None:
            break
        block.append(line.comment.value.lstrip("#").strip())
    return tuple(reversed(block))


@dataclass(frozen=True)
class _Region:
    """An outermost function holding sites: its lines (decorators included) and enclosing classes."""

    start: int
    end: int
    classes: tuple[str, ...]


class _RegionsDisagree(Exception):
    """A region's walk saw other statements than ast did there: parse the whole module instead."""


def extract_sites(
    text: str, lines: list[str], tree: ast.Module, facts: ModuleFacts, logs: LogCalls = GENERIC
) -> tuple[tuple[RawSite, ...], int]:
    """Every raise, assert-with-message and log call of the module, and the count of re-raises.

    Raises libcst's ParserSyntaxError (or RecursionError) when libcst cannot parse the module.
    """
    regions = _regions(tree, [s.line for s in facts.statements])
    if regions is not None:
        try:
            return _sites_of_regions(lines, regions, facts, logs), sum(s.kind == "reraise" for s in facts.statements)
        except (_RegionsDisagree, cst.ParserSyntaxError):
            pass
    module = cst.parse_module(text)
    visitor = _SiteWalker(module, facts, (), logs)
    visitor.walk(module.body)
    return _raw_sites(visitor, _positions(module, facts, visitor)), visitor.events.count("reraise")


def _regions(tree: ast.Module, lines: list[int]) -> list[_Region] | None:
    """The outermost functions holding the statements at `lines` (sorted), or None if one of them
    lies outside every function."""
    regions: list[_Region] = []

    def holds(start: int, end: int) -> bool:
        at = bisect_left(lines, start)
        return at < len(lines) and lines[at] <= end

    def visit(body: list[ast.stmt], classes: tuple[str, ...]) -> bool:
        for node in body:
            if not holds(node.lineno, node.end_lineno or node.lineno):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                regions.append(_Region(first_line(node), node.end_lineno or node.lineno, classes))
            elif isinstance(node, ast.ClassDef):
                if not visit(node.body, classes + (node.name,)):
                    return False
            else:
                inner = [child for block in child_blocks(node) for child in block]
                if not inner or not visit(inner, classes):
                    return False  # the site is this statement, or in it outside any function
        return True

    return regions if visit(tree.body, ()) else None


def _sites_of_regions(lines: list[str], regions: list[_Region], facts: ModuleFacts, logs: LogCalls) -> tuple[RawSite, ...]:
    sites: list[RawSite] = []
    for region in regions:
        chunk = "\n".join(lines[region.start - 1 : region.end]) + "\n"
        indented = chunk[:1] in (" ", "\t")
        # a method keeps its indentation as the block of an `if True:`
        module = cst.parse_module("if True:\n" + chunk if indented else chunk)
        visitor = _SiteWalker(module, facts, [(name, False) for name in region.classes], logs)
        visitor.walk(module.body[0].body.body if indented else module.body)
        statements = [s for s in facts.statements if region.start <= s.line <= region.end]
        if [s.kind for s in statements] != visitor.events:
            raise _RegionsDisagree(region.start)
        sites += _raw_sites(visitor, [s for s in statements if s.kind in SITE_KINDS])
    return tuple(sites)


def _raw_sites(visitor: _SiteWalker, positions: list[StatementPosition]) -> tuple[RawSite, ...]:
    return tuple(text.at(position) for (_, text), position in zip(visitor.pending, positions))


def _positions(module: cst.Module, facts: ModuleFacts, visitor: _SiteWalker) -> list[StatementPosition]:
    """The ast statement of each site; if the walks disagree, PositionProvider lines, partial."""
    if [s.kind for s in facts.statements] == visitor.events:
        return [s for s in facts.statements if s.kind in SITE_KINDS]
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    by_line = {s.line: s for s in facts.statements}
    found = []
    for node, text in visitor.pending:
        line, end = ranges[node].start.line, ranges[node].end.line
        known = by_line.get(line)
        found.append(known if known else StatementPosition(line, 0, end, text.kind, (), ("condition not read",)))
    return found
