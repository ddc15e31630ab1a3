"""Facts of a file's versions walked once: function bodies and top-level definitions remembered
by their text, and replayed where another version has them again.

It plugs into the walker (`collect.FactCollector`) through two of its methods, `statement` and
`body`, so that the walk itself knows nothing of it.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, replace
from typing import Callable, Container

from errscan.extract.astutil import bindings, first_line
from errscan.extract.collect import FactCollector
from errscan.extract.conditions import Condition, Env
from errscan.extract.facts import FirstCall, ModuleFacts, StatementPosition, TryFact
from errscan.extract.logcalls import GENERIC, LogCalls

_MOVED_LISTS = ("functions", "classes", "calls", "returns", "appends", "statements", "tries", "attribute_stores", "first_calls",
                "attribute_fills")
_KEPT_LISTS = ("attribute_types", "attribute_reads", "attribute_defaults", "imports", "tables", "imported", "values")  # no line in them: taken as they are
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_DEFINITION_STARTS = ("def ", "async def ", "class ", "@")

_BodyKey = tuple[str, "str | None", str]  # (scope, enclosing class scope, the def's source text)


@dataclass(frozen=True)
class _Body:
    """What walking one function's body added to each list of facts, at the line it was walked."""

    line: int
    facts: dict[str, tuple]  # collector list -> the entries it gained


@dataclass(frozen=True)
class _Statement:
    """A top-level `def` or `class` as walked (its `line` the first, decorators included), and
    what it read of the module around it: whether module-level code binds each name its
    decorators, defaults or bases pass along."""

    walked: _Body
    name: str
    module_reads: tuple[tuple[str, bool], ...]


class BodyMemo:
    """Function bodies and top-level statements walked already, by their source text, for the
    versions of one file.

    Releases of a package share most functions even in the files they change. A function whose
    text, scope and enclosing class are unchanged has the same facts, moved by as many lines as it
    moved, because a body's facts depend on nothing outside it but those (its decorators and
    defaults, which read the enclosing scope, are walked every time). A whole top-level `def` or
    `class` whose text is unchanged is not even parsed again (`collect_facts_reusing`), as long as
    the module binds the names it read as it did."""

    def __init__(self, logs: LogCalls = GENERIC) -> None:
        self.logs = logs  # which calls are log sites, alike for every version walked
        self.bodies: dict[_BodyKey, _Body] = {}
        self.statements: dict[str, _Statement] = {}
        self.bodies_replayed = 0  # function bodies not walked again, for tests and benchmarks
        self.statements_replayed = 0  # top-level definitions neither parsed nor walked again


@dataclass(frozen=True)
class _Known:
    """Stands, in a module's body, for a top-level definition taken from the memo unparsed."""

    line: int  # where it starts in this version
    statement: _Statement

    @property
    def name(self) -> str:
        return self.statement.name


def collect_facts_with_memo(
    tree: ast.Module, module: str, is_pkg: bool, lines: list[str], memo: BodyMemo
) -> ModuleFacts:
    """The module's facts, as `collect.collect_facts` gives them, from its tree and source `lines`;
    function bodies the memo holds are replayed, and what is walked is kept for other versions."""
    return _RememberingCollector(module, is_pkg, lines, memo).collect(tree)


def collect_facts_reusing(lines: list[str], module: str, is_pkg: bool, memo: BodyMemo) -> ModuleFacts | None:
    """The module's facts, parsing only what is not a top-level definition the memo holds from
    another version: those lines are blanked out and their facts replayed. None when nothing is
    known, or when the shortcut cannot be trusted (then parse the whole file): the rest must parse,
    no statement of it may span a blanked definition (it would have been inside a string or
    brackets), and the module must bind the names those definitions read as it did before.
    """
    known = [
        (start, end, found) for start, end in _definition_chunks(lines)
        if (found := memo.statements.get("\n".join(lines[start - 1 : end]))) is not None
    ]
    if not known:
        return None
    blanked = list(lines)
    for start, end, _ in known:
        blanked[start - 1 : end] = [""] * (end - start + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse("\n".join(blanked))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    for stmt in tree.body:
        first, last = first_line(stmt), stmt.end_lineno or stmt.lineno
        if any(first <= end and start <= last for start, end, _ in known):
            return None
    markers = [_Known(start, found) for start, _, found in known]
    once, bound = bindings(tree, [marker.name for marker in markers])
    if any((name in bound) != was for marker in markers for name, was in marker.statement.module_reads):
        return None
    tree.body = sorted([*tree.body, *markers], key=lambda s: s.line if isinstance(s, _Known) else first_line(s))
    return _RememberingCollector(module, is_pkg, lines, memo).collect(tree, (once, bound))


class _RememberingCollector(FactCollector):
    """The walker, keeping what each function body and top-level definition adds to the facts, and
    adding what the memo kept instead of walking the same text again."""

    def __init__(self, module: str, is_pkg: bool, lines: list[str], memo: BodyMemo):
        super().__init__(module, is_pkg, memo.logs)
        self.lines = lines  # the source's lines, for the memo's keys
        self.memo = memo
        self.recording = False  # walking a body the memo will keep: its nested bodies are part of it

    def statement(self, stmt: ast.stmt, terms: Condition, env: Env, partial: tuple[str, ...]) -> None:
        if isinstance(stmt, _Known):
            self.memo.statements_replayed += 1
            self.local_defs.add(stmt.name)
            self.replay(stmt.statement.walked, stmt.line - stmt.statement.walked.line)
        elif isinstance(stmt, _DEFINITIONS) and self.scopes.at_module:
            walk = super().statement
            self.remembered_statement(stmt, lambda: walk(stmt, terms, env, partial))
        else:
            super().statement(stmt, terms, env, partial)

    def body(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: str, params: tuple, bound: tuple) -> None:
        if self.recording:
            super().body(node, scope, params, bound)
            return
        text = "\n".join(self.lines[node.lineno - 1 : node.end_lineno])
        key = (scope, self.class_stack[-1] if self.class_stack else None, text)
        known = self.memo.bodies.get(key)
        if known is not None:
            self.memo.bodies_replayed += 1
            self.replay(known, node.lineno - known.line)
            return
        walk = super().body
        self.recording = True
        self.memo.bodies[key] = self.walked(node.lineno, lambda: walk(node, scope, params, bound))
        self.recording = False

    def remembered_statement(self, stmt: ast.stmt, walk: Callable[[], None]) -> None:
        """Walk a top-level definition and keep what it made, and which module names it looked up,
        for a later version to replay."""
        start = first_line(stmt)
        module_frame = self.frame
        reads = _NotedLookups(module_frame.bound)
        self.frame = replace(module_frame, bound=reads)
        walked = self.walked(start, walk)
        self.frame = module_frame
        text = "\n".join(self.lines[start - 1 : stmt.end_lineno])
        self.memo.statements[text] = _Statement(walked, stmt.name, tuple(reads.answers.items()))

    def walked(self, line: int, walk: Callable[[], None]) -> _Body:
        """What `walk` adds to each list of facts, as made at `line`."""
        marks = {name: len(getattr(self, name)) for name in _MOVED_LISTS + _KEPT_LISTS}
        walk()
        return _Body(line, {name: tuple(getattr(self, name)[mark:]) for name, mark in marks.items()})

    def replay(self, body: _Body, delta: int) -> None:
        for name in _KEPT_LISTS:
            getattr(self, name).extend(body.facts[name])
        for name in _MOVED_LISTS:
            entries = body.facts[name]
            getattr(self, name).extend(entries if not delta else (_moved(e, delta) for e in entries))


class _NotedLookups:
    """The module's bound names, noting each name looked up and the answer: a definition whose
    facts depend on them is replayed only where the module binds them alike."""

    def __init__(self, names: Container[str]):
        self.names = names
        self.answers: dict[str, bool] = {}

    def __contains__(self, name: object) -> bool:
        found = name in self.names
        self.answers.setdefault(name, found)
        return found


def _definition_chunks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line of each run of lines that may be a top-level `def` or `class`: from a
    line starting one (or its decorators) at column 0 up to the last code line before the next
    line of code at column 0. Only a guess from the text: `collect_facts_reusing` checks it."""
    chunks: list[tuple[int, int]] = []
    start = None  # of the chunk being read
    header_seen = False  # its `def`/`class` line, after any decorators
    last_code = 0
    for number, line in enumerate(lines, 1):
        head = line[:1]
        # Indented, blank, a comment, or closing brackets (`) -> None:` of a long signature): never
        # the start of a statement.
        if not head or head in " \t#\x0c)]}":
            if line.strip() and not line.lstrip().startswith("#"):
                last_code = number
            continue
        decorated = start is not None and not header_seen and line.startswith(_DEFINITION_STARTS)
        if start is not None and not decorated:  # code at column 0 ends the chunk being read
            chunks.append((start, last_code))
            start = None
        if start is None and line.startswith(_DEFINITION_STARTS):
            start, header_seen = number, False
        if start is not None and not line.startswith("@"):
            header_seen = True
        last_code = number
    if start is not None:
        chunks.append((start, last_code))
    return chunks


def _moved(fact, delta: int):
    """A fact of a body that moved `delta` lines, as the walk at its new place would make it."""
    if isinstance(fact, (TryFact, FirstCall)):
        return fact.moved(delta)
    if isinstance(fact, StatementPosition):
        partial = tuple(_moved_note(note, delta) for note in fact.partial)
        return replace(fact, line=fact.line + delta, end_line=fact.end_line + delta, partial=partial)
    return replace(fact, line=fact.line + delta)


def _moved_note(note: str, delta: int) -> str:
    """`line 12: for-else` -> `line 15: for-else`: the notes `statement` writes."""
    number, colon, rest = note.removeprefix("line ").partition(":")
    return f"line {int(number) + delta}{colon}{rest}"
