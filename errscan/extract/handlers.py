"""What a `try` statement's handlers do with what they catch, read as the walker passes the `try`.

The analysis follows an exception outward along its call chains (analysis/surfaces.py); at each
`try` around the way it needs the handlers' classes and what their bodies do: raise another
exception (and with which message and HTTP status), raise the caught one again, log it, call
something (a project's error response is a call the profile names), or end there. Only the
handler bodies are read, never nested functions in them: the file's one walk stays one walk.
"""

from __future__ import annotations

import ast

from errscan.extract.astutil import SCOPES, child_blocks, dotted, rethrows, walk_own
from errscan.extract.conditions import Env
from errscan.extract.facts import HandlerAction, HandlerFact, TryFact
from errscan.extract.logcalls import LogCalls
from errscan.extract.tried import tried_reads
from errscan.extract.unparse import fast_unparse

_STATUS_KEYWORDS = ("status_code", "status")
_MESSAGE_KEYWORDS = ("detail", "message", "msg", "err_msg", "error")


def try_fact(stmt: ast.Try, scope: str, logs: LogCalls, env: Env) -> TryFact | None:
    """The `try`'s guarded lines, its handlers and what its body reads (`env`: the locals bound before
    it); None for a `try` with `finally` alone."""
    if not stmt.handlers or not stmt.body:
        return None
    handlers = tuple(_handler(h, logs) for h in stmt.handlers)
    return TryFact(scope, stmt.body[0].lineno, stmt.body[-1].end_lineno or stmt.body[-1].lineno, handlers,
                   tried_reads(stmt.body, env))


def _handler(handler: ast.ExceptHandler, logs: LogCalls) -> HandlerFact:
    if handler.type is None:
        types: tuple[str, ...] = ()
    elif isinstance(handler.type, ast.Tuple):
        types = tuple(d for d in (dotted(t) for t in handler.type.elts) if d)
    else:
        types = tuple(d for d in (dotted(handler.type),) if d)
    actions: list[HandlerAction] = []
    _read(handler.body, handler.name, logs, actions, False)
    return HandlerFact(types, handler.name, handler.lineno, handler.end_lineno or handler.lineno, tuple(actions))


def _read(body: list[ast.stmt], caught: str | None, logs: LogCalls, actions: list[HandlerAction], conditional: bool) -> None:
    for stmt in body:
        if isinstance(stmt, SCOPES):
            continue
        if isinstance(stmt, ast.Raise):
            _raise(stmt, caught, actions)
        elif isinstance(stmt, (ast.Return, ast.Pass, ast.Continue, ast.Break)):
            _calls(stmt, logs, actions)
            actions.append(HandlerAction("exit", stmt.lineno, conditional=conditional))
        elif isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)):
            for block in child_blocks(stmt):
                _read(block, caught, logs, actions, True)
        else:
            _calls(stmt, logs, actions)


def _raise(stmt: ast.Raise, caught: str | None, actions: list[HandlerAction]) -> None:
    exc = stmt.exc
    if exc is None or rethrows(exc) or (isinstance(exc, ast.Name) and exc.id == caught):
        actions.append(HandlerAction("reraise", stmt.lineno))
        return
    call = exc if isinstance(exc, ast.Call) else None
    name = dotted(call.func if call is not None else exc)
    message = _message(call) if call is not None else None
    actions.append(HandlerAction("raise", stmt.lineno, name, message, (), _status(call) if call is not None else None))


def _calls(stmt: ast.stmt, logs: LogCalls, actions: list[HandlerAction]) -> None:
    """The calls of a simple statement: a log call is a `log` action, any other a `call`."""
    for node in walk_own(stmt):
        if not isinstance(node, ast.Call):
            continue
        callee = dotted(node.func)
        if callee is None:
            continue
        level = logs.level(callee) if node.args else None
        if level is not None:
            first, *rest = node.args
            actions.append(HandlerAction("log", node.lineno, level, fast_unparse(first), tuple(fast_unparse(a) for a in rest)))
        else:
            actions.append(HandlerAction("call", node.lineno, callee, _message(node), (), _status(node)))


def _message(call: ast.Call) -> str | None:
    if call.args and not isinstance(call.args[0], ast.Starred):
        first = call.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, int)):
            return fast_unparse(first)
    for keyword in call.keywords:
        if keyword.arg in _MESSAGE_KEYWORDS:
            return fast_unparse(keyword.value)
    return None


def _status(call: ast.Call) -> int | None:
    for keyword in call.keywords:
        if keyword.arg in _STATUS_KEYWORDS and isinstance(keyword.value, ast.Constant) and type(keyword.value.value) is int:
            return keyword.value.value
    if call.args and isinstance(call.args[0], ast.Constant) and type(call.args[0].value) is int:
        return call.args[0].value
    return None
