"""Sites from the stdlib `ast` alone: the fallback for a file libcst cannot handle.

libcst fails on some files `ast` reads fine (syntax newer than libcst, very long string
concatenations that exhaust its recursion), and may be stopped for overrunning the time limit. The
file's sites are still catalogued, so the counts still equal what `ast` finds; only the messages
are rougher: string literals and f-strings are rendered, anything else is one placeholder.
"""

from __future__ import annotations

import ast
import re

from errscan.extract.astutil import child_blocks, dotted, rethrows
from errscan.extract.facts import ModuleFacts
from errscan.extract.logcalls import DEFAULT_WARNING, GENERIC, LogCalls, is_warnings_call
from errscan.extract.names import ScopeStack, qualify
from errscan.extract.sites import MESSAGE_KEYWORDS, RawSite, SiteText
from errscan.extract.templates import EMPTY, Template, escape_literal, field_template, one_line, percent_template
from errscan.extract.unparse import fast_unparse

_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_CONVERSIONS = {-1: "", ord("s"): "s", ord("r"): "r", ord("a"): "a"}


class _AstSiteWalker:
    def __init__(self, text: str, lines: list[str], facts: ModuleFacts, logs: LogCalls):
        self.text = text
        self.logs = logs
        self.lines = lines
        self.facts = facts
        self.scopes = ScopeStack()
        self.positions = {(s.line, s.col): s for s in facts.statements}
        self.sites: list[RawSite] = []
        self.reraises = 0

    def walk(self, body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.scopes.push(node.name, not isinstance(node, ast.ClassDef))
                self.walk(node.body)
                self.scopes.pop()
            elif isinstance(node, ast.Raise):
                self._raise(node)
            elif isinstance(node, ast.Assert) and node.msg is not None:
                self._site(node, "assert", "AssertionError", "builtins.AssertionError",
                           self._message(node.msg), None, self._source(node.test))
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and node.value.args:
                self._call(node, node.value)
            else:
                for block in child_blocks(node):
                    self.walk(block)

    def _raise(self, node: ast.Raise) -> None:
        if node.exc is None or rethrows(node.exc):
            self.reraises += 1
            return
        target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        exception = self._source(target)
        dotted = exception if _DOTTED.fullmatch(exception) else None
        qualname = None
        if dotted:
            lookup = self.facts.lookup(self.scopes.current)
            qualname = qualify(dotted, lookup, self.facts.module, self.facts.local_defs)
        message = self._call_message(node.exc) if isinstance(node.exc, ast.Call) else EMPTY
        cause = self._source(node.cause) if node.cause is not None else None
        self._site(node, "raise", exception, qualname, message, cause, None)

    def _call(self, node: ast.Expr, call: ast.Call) -> None:
        callee = dotted(call.func)
        level = self.logs.level(callee)
        if level is None:
            return
        exception, qualname = "", None
        first, rest = call.args[0], call.args[1:]
        if is_warnings_call(callee):
            category = rest[0] if rest else next((k.value for k in call.keywords if k.arg == "category"), None)
            exception = self._source(category) if category is not None else DEFAULT_WARNING
            if _DOTTED.fullmatch(exception):
                qualname = qualify(exception, self.facts.lookup(self.scopes.current), self.facts.module, self.facts.local_defs)
            message = self._message(first)
        elif rest and isinstance(first, ast.Constant) and isinstance(first.value, str):
            sources = [self._source(value) for value in rest]
            message = percent_template(first.value, sources, {}, ", ".join(sources))
        else:
            message = self._message(first)
        self._site(node, "log", exception, qualname, message, None, None, level)

    def _call_message(self, call: ast.Call) -> Template:
        if call.args:
            first = call.args[0]
            return self._placeholder(call) if isinstance(first, ast.Starred) else self._message(first)
        for keyword in call.keywords:
            if keyword.arg in MESSAGE_KEYWORDS:
                return self._message(keyword.value)
        return EMPTY

    def _message(self, node: ast.expr) -> Template:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return Template(escape_literal(node.value), ())
        if not isinstance(node, ast.JoinedStr):
            return self._placeholder(node)
        result = EMPTY
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                # ast.unparse, not the source text: positions inside f-strings are unreliable before 3.12
                spec = _spec(part.format_spec) if part.format_spec is not None else ""
                conversion = _CONVERSIONS.get(part.conversion, "")
                result += field_template(fast_unparse(part.value), "fstring", conversion, spec)
            elif isinstance(part, ast.Constant):
                result += Template(escape_literal(str(part.value)), ())
        return result

    def _placeholder(self, node: ast.expr) -> Template:
        return field_template(self._source(node), "unresolved")

    def _source(self, node: ast.AST) -> str:
        return one_line(ast.get_source_segment(self.text, node) or fast_unparse(node))

    def _site(self, node, kind, exception, qualname, message, cause, test, level=None) -> None:
        position = self.positions[(node.lineno, node.col_offset)]  # the facts' walk saw it too
        function = self.scopes.current or "<module>"
        text = SiteText(kind, exception, qualname, message, function, self._comments_above(node), cause, test, level)
        self.sites.append(text.at(position))

    def _comments_above(self, node: ast.stmt) -> tuple[str, ...]:
        """The comment lines right above a statement that starts its line."""
        if self.lines[node.lineno - 1][: node.col_offset].strip():
            return ()
        block: list[str] = []
        for line in reversed(self.lines[: node.lineno - 1]):
            stripped = line.strip()
            if not stripped.startswith("#"):
                break
            block.append(stripped.lstrip("#").strip())
        return tuple(reversed(block))


def _spec(spec: ast.JoinedStr) -> str:
    return "".join(
        str(v.value) if isinstance(v, ast.Constant) else "{" + fast_unparse(v.value) + "}"
        for v in spec.values
        if isinstance(v, (ast.Constant, ast.FormattedValue))
    )


def extract_ast_sites(
    tree: ast.Module, text: str, lines: list[str], facts: ModuleFacts, logs: LogCalls = GENERIC
) -> tuple[tuple[RawSite, ...], int]:
    """Every raise, assert-with-message and log call of the module, and the count of bare re-raises."""
    walker = _AstSiteWalker(text, lines, facts, logs)
    walker.walk(tree.body)
    return tuple(walker.sites), walker.reraises
