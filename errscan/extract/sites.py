"""Raise sites of one module, found by a libcst walk (concrete syntax keeps comments and messages).

Line numbers come from the `ast` facts of the same text, matched statement for statement in source
order, because libcst's PositionProvider costs more than the parse itself; if the two walks ever
disagree, PositionProvider is used for that file.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from errscan.extract.conditions import Condition
from errscan.extract.facts import ModuleFacts, StatementPosition
from errscan.extract.names import ScopeStack, qualify
from errscan.extract.templates import EMPTY, Template, TemplateBuilder
from errscan.model import Placeholder

_MESSAGE_KEYWORDS = ("msg", "message", "detail", "reason")


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
    docstring: str | None  # of the enclosing function, if it has one
    condition: Condition = ()  # path condition within the function (from the ast facts)
    partial: tuple[str, ...] = ()


@dataclass
class _Pending:
    node: cst.Raise | cst.Assert
    kind: str
    exception: str
    exception_qualname: str | None
    template: Template
    function: str
    comments: tuple[str, ...]
    cause: str | None
    assert_test: str | None
    docstring: str | None


class _SiteVisitor(cst.CSTVisitor):
    def __init__(self, module: cst.Module, facts: ModuleFacts):
        self.facts = facts
        self.scopes = ScopeStack()
        self.templates = TemplateBuilder(module, self._lookup_assignment)
        self.assignments: list[dict[str, list[cst.BaseExpression | None]]] = [{}]
        self.caught: list[dict[str, cst.BaseExpression]] = [{}]
        self.docstrings: list[str | None] = [None]  # of each enclosing function; None at module level
        self.comments: tuple[str, ...] = ()
        self.events: list[str] = []  # kind of every raise/assert, to match the ast positions
        self.pending: list[_Pending] = []

    # scopes: a function gets its own assignments; a class body shares nothing with its methods
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.push(node.name.value, True)
        self.assignments.append({})
        self.caught.append({})
        self.docstrings.append(node.get_docstring(clean=True))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.assignments.pop()
        self.caught.pop()
        self.docstrings.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.push(node.name.value, False)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.pop()

    # local facts the message and exception may refer to
    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self._assigned(node.targets[0].target.value, node.value)
        else:
            for target in node.targets:
                for name in _names(target.target):
                    self._assigned(name, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self._assigned(node.target.value, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self._assigned(node.target.value, None)

    def _assigned(self, name: str, value: cst.BaseExpression | None) -> None:
        self.assignments[-1].setdefault(name, []).append(value)

    def _lookup_assignment(self, name: str) -> cst.BaseExpression | None:
        values = self.assignments[-1].get(name, [])
        return values[0] if len(values) == 1 else None

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None and node.type is not None and isinstance(node.name.name, cst.Name):
            self.caught[-1][node.name.name.value] = node.type

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        block: list[str] = []
        for line in reversed(node.leading_lines):
            if line.comment is None:
                break
            block.append(line.comment.value.lstrip("#").strip())
        self.comments = tuple(reversed(block))

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.comments = ()

    # sites
    def visit_Raise(self, node: cst.Raise) -> None:
        if node.exc is None:
            self.events.append("reraise")
            return
        self.events.append("raise")
        exception, qualname, template = self._describe_raised(node.exc)
        cause = self.templates.source(node.cause.item) if node.cause is not None else None
        self._site(node, "raise", exception, qualname, template, cause, None)

    def visit_Assert(self, node: cst.Assert) -> None:
        if node.msg is None:
            self.events.append("assert-nomsg")
            return
        self.events.append("assert")
        template = self.templates.render(node.msg)
        test = self.templates.source(node.test)
        self._site(node, "assert", "AssertionError", "builtins.AssertionError", template, None, test)

    def _site(self, node, kind, exception, qualname, template, cause, test) -> None:
        self.pending.append(
            _Pending(node, kind, exception, qualname, template, self.scopes.current or "<module>",
                     self.comments, cause, test, self.docstrings[-1])
        )

    def _describe_raised(self, exc: cst.BaseExpression) -> tuple[str, str | None, Template]:
        target = exc.func if isinstance(exc, cst.Call) else exc
        dotted = _dotted(target)
        if isinstance(target, cst.Name) and target.value in self.caught[-1]:
            # `except KVError as e: ... raise e` raises the caught KVError again.
            caught_type = self.caught[-1][target.value]
            written = self.templates.source(caught_type)
            caught_dotted = _dotted(caught_type)
            qualname = self._qualify(caught_dotted) if caught_dotted else None
            return written, qualname, self.templates.render(target)
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
            if arg.keyword is not None and arg.keyword.value in _MESSAGE_KEYWORDS:
                return self.templates.render(arg.value)
        return EMPTY

    def _qualify(self, dotted: str) -> str | None:
        lookup = self.facts.lookup(self.scopes.current)
        return qualify(dotted, lookup, self.facts.module, self.facts.local_defs)


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


def extract_sites(module: cst.Module, facts: ModuleFacts) -> tuple[tuple[RawSite, ...], int]:
    """Every raise and assert-with-message of the module, and the count of bare re-raises."""
    visitor = _SiteVisitor(module, facts)
    module.visit(visitor)
    positions = _positions(module, facts, visitor)
    sites = tuple(
        RawSite(
            kind=p.kind,
            exception=p.exception,
            exception_qualname=p.exception_qualname,
            message=p.template.text,
            placeholders=p.template.placeholders,
            line=position.line,
            end_line=position.end_line,
            function=p.function,
            comments=p.comments,
            cause=p.cause,
            assert_test=p.assert_test,
            docstring=p.docstring,
            condition=position.condition,
            partial=position.partial,
        )
        for p, position in zip(visitor.pending, positions)
    )
    return sites, visitor.events.count("reraise")


def _positions(module: cst.Module, facts: ModuleFacts, visitor: _SiteVisitor) -> list[StatementPosition]:
    """The ast statement of each site; if the walks disagree, PositionProvider lines, partial."""
    if [s.kind for s in facts.statements] == visitor.events:
        return [s for s in facts.statements if s.kind in ("raise", "assert")]
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    by_line = {s.line: s for s in facts.statements}
    found = []
    for p in visitor.pending:
        line, end = ranges[p.node].start.line, ranges[p.node].end.line
        known = by_line.get(line)
        found.append(known if known else StatementPosition(line, 0, end, p.kind, (), ("condition not read",)))
    return found
