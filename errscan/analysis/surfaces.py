"""What reaches the user of an error: the exception followed outward along each call chain.

From the raise, each function on the chain (the raising one first, then each caller at its call
site) is searched for the innermost `try` whose guarded lines hold the point the exception is at,
and whose handler catches it: a handler's classes are matched against the exception's class tree,
builtins included (`except Exception` catches a ValueError; `except KeyError` does not). What the
handler does decides the rest (docs/surfaces.md): it raises another exception (then that one goes
on outward, and may be caught again), raises the caught one again, logs it, answers with an error
response or an HTTP status (the profile names these), or ends there (swallowed). A function run
in an executor keeps its exception in a future: it surfaces where the caller reads the future's
result, in a callback it gives `add_done_callback` or in a `try` of its own. A thread's, a task's
or a callback's exception leaves the chain where it is handed over: it is "raised" there.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst
import msgspec

from errscan.analysis.search import FoundChain
from errscan.extract.facts import HandlerFact, ModuleFacts, TryFact
from errscan.extract.names import qualify
from errscan.extract.templates import TemplateBuilder, percent_template
from errscan.graph.calls import CallGraph, function_node
from errscan.model import ErrorSite, Surface
from errscan.profiles import Profile

_AWAY = frozenset({"thread", "process", "task", "callback", "registered"})  # the exception leaves the chain there
_DONE_CALLBACK = ".add_done_callback:0"
_ANY = frozenset({"builtins.Exception", "builtins.BaseException"})


@dataclass(frozen=True)
class _Held:
    """The exception on its way out: as written, and its class tree (qualified names)."""

    exception: str
    tree: frozenset[str]
    wrapper: int | None = None  # the index, in the route's surfaces, of the raise that made it


@dataclass(frozen=True)
class _Log:
    level: str
    message: str
    path: str
    line: int
    id: str | None


class SurfaceFinder:
    """The tree's `try` statements by function, and the catalogued sites by place, read once."""

    def __init__(self, graph: CallGraph, profile: Profile, sites: list[ErrorSite]):
        self.graph = graph
        self.profile = profile
        self.sites = {(s.path, s.line): s for s in sites}
        self.tries: dict[str, list[tuple[TryFact, ModuleFacts]]] = {}
        self.callbacks: dict[str, list[str]] = {}  # function -> nested functions it gives `add_done_callback`
        self.readers: dict[str, list[int]] = {}  # function -> lines where it reads a future's `.result()`
        for module in graph.index.modules.values():
            for found in module.tries:
                self.tries.setdefault(function_node(module.module, found.scope), []).append((found, module))
            for call in module.calls:
                node = function_node(module.module, call.caller)
                if call.kind == "reference" and (call.passed_to or "").endswith(_DONE_CALLBACK) and "." not in call.callee:
                    nested = f"{call.caller}.<locals>.{call.callee}" if call.caller else call.callee
                    self.callbacks.setdefault(node, []).append(function_node(module.module, nested))
                elif call.kind == "call" and call.callee.endswith(".result"):
                    self.readers.setdefault(node, []).append(call.line)
        modules = {path: module for module, path in graph.paths.items()}
        self.logs: dict[str, ErrorSite] = {}  # function -> its first log site: a handler calling it logs there
        for site in sites:
            if site.kind == "log" and site.path in modules:
                scope = "" if site.function == "<module>" else site.function
                self.logs.setdefault(function_node(modules[site.path], scope), site)
        self._trees: dict[str | None, frozenset[str]] = {}
        self._found: dict[tuple, tuple[Surface, ...]] = {}
        self._caught: dict[int, frozenset[str]] = {}  # id of a handler (kept alive by the facts) -> its classes

    def find(self, error: ErrorSite, node: str, chains: tuple[FoundChain, ...]) -> tuple[Surface, ...]:
        """Per chain what reaches the user; the same outcome on several chains is one `Surface`."""
        if error.kind == "log":
            return ()
        # Sites of one function raising one class, met by the same handler first (or none), go
        # the same ways out: their surfaces are found once (whole packages have thousands).
        first = self._handler(node, error.line, _Held(error.exception, self._tree(error.exception_qualname)))
        key = (node, error.exception, error.exception_qualname, id(first[1]) if first else None, id(chains))
        known = self._found.get(key)
        if known is None:
            known = self._found[key] = self._surfaces(error, node, chains)
        return known

    def _surfaces(self, error: ErrorSite, node: str, chains: tuple[FoundChain, ...]) -> tuple[Surface, ...]:
        routes = [self._route(error, node, chain) for chain in chains] if chains else [self._route(error, node, None)]
        merged: dict[Surface, list[int]] = {}
        for index, route in enumerate(routes):
            for surface in route:
                merged.setdefault(surface, []).append(index)
        everywhere = len(routes)
        return tuple(
            s if not chains or len(indices) == everywhere else _with_chains(s, tuple(indices))
            for s, indices in merged.items()
        )

    def _route(self, error: ErrorSite, node: str, chain: FoundChain | None) -> list[Surface]:
        held = _Held(error.exception, self._tree(error.exception_qualname))
        found: list[Surface] = []
        func, line = node, error.line
        k = len(chain.nodes) - 1 if chain is not None else 0
        while True:
            hit = self._handler(func, line, held)
            if hit is None:
                if chain is None or k == 0:
                    break
                site, caller = chain.sites[k - 1], chain.nodes[k - 1]
                k -= 1
                if site.resolution == "executor":
                    hit = self._reader(caller, site.line, held)
                    if hit is None:
                        break
                    if hit[3] != caller:  # a done callback: what it raises again stays in the executor
                        k = 0
                elif site.resolution in _AWAY:
                    break
                else:
                    func, line = caller, site.line
                    continue
            surfaces, held, onward = self._outcome(hit, held)
            if surfaces and surfaces[0].how == "reraised":
                held = _Held(held.exception, held.tree, len(found))
            found.extend(surfaces)
            if onward is None:
                return found
            func, line = hit[3], onward
        if held.wrapper is not None:  # the last wrapper is what reaches the user
            found.append(_final(found.pop(held.wrapper)))
        else:
            found.append(Surface("raised", held.exception, ""))
        return found

    def _handler(self, func: str, line: int, held: _Held) -> tuple[TryFact, HandlerFact, ModuleFacts, str] | None:
        """The handler that catches `held` at `line` of `func`: the innermost `try` first."""
        around = [(t, m) for t, m in self.tries.get(func, ()) if t.line <= line <= t.end_line]
        around.sort(key=lambda pair: -pair[0].line)
        for guarded, module in around:
            for handler in guarded.handlers:
                if self._catches(handler, guarded.scope, module, held):
                    return guarded, handler, module, func
        return None

    def _reader(self, caller: str, line: int, held: _Held) -> tuple[TryFact, HandlerFact, ModuleFacts, str] | None:
        """Where a future made at `line` of `caller` gives up its exception: a done callback of
        `caller` that reads `.result()` in a `try`, else a `try` of `caller` itself around a read."""
        for callback in self.callbacks.get(caller, ()):
            for read in self.readers.get(callback, ()):
                hit = self._handler(callback, read, held)
                if hit is not None:
                    return hit
        for read in self.readers.get(caller, ()):
            if read > line and (hit := self._handler(caller, read, held)) is not None:
                return hit
        return None

    def _catches(self, handler: HandlerFact, scope: str, module: ModuleFacts, held: _Held) -> bool:
        if not handler.types:
            return True
        caught = self._caught.get(id(handler))
        if caught is None:  # the handler's classes, qualified once
            visible = module.lookup(scope)
            found = (qualify(written, visible, module.module, module.local_defs) for written in handler.types)
            caught = self._caught[id(handler)] = frozenset(self.graph.index.canonical(q) for q in found if q is not None)
        return not caught.isdisjoint(held.tree)

    def _tree(self, qualname: str | None) -> frozenset[str]:
        """The class and every base, builtins' own bases included; a class whose root lies outside
        the tree (or an unknown class) is taken for an Exception, as nearly every one is."""
        if qualname in self._trees:
            return self._trees[qualname]
        names: set[str] = set()
        if qualname is not None:
            canonical = self.graph.index.canonical(qualname)
            names = {canonical, *self.graph.index.bases(canonical)}
            for name in list(names):
                cls = getattr(builtins, name.removeprefix("builtins."), None) if name.startswith("builtins.") else None
                if isinstance(cls, type) and issubclass(cls, BaseException):
                    names.update(f"builtins.{c.__name__}" for c in cls.__mro__ if c is not object)
        if not any(n.startswith("builtins.") for n in names):
            names |= _ANY
        tree = self._trees[qualname] = frozenset(names)
        return tree

    def _outcome(self, hit: tuple[TryFact, HandlerFact, ModuleFacts, str], held: _Held) -> tuple[list[Surface], _Held, int | None]:
        """What the handler makes of `held`: the surfaces, what goes on outward, and from which line
        (None: nothing goes on)."""
        guarded, handler, module, func = hit
        path = self.graph.paths[module.module]
        function = guarded.scope or "<module>"
        caught = _clause(handler)
        common = dict(path=path, function=function, caught=caught, caught_line=handler.line)
        log: _Log | None = None
        for action in handler.actions:
            if action.kind == "log" and log is None:
                site = self.sites.get((path, action.line))
                message = site.message if site else _log_template(action.message or "", action.args)
                log = _Log(action.name or "error", message, path, action.line, site.id if site else None)
            elif action.kind == "raise":
                last = (action.name or "").rsplit(".", 1)[-1]
                site = self.sites.get((path, action.line))
                message = site.message if site else message_template(action.message) if action.message else ""
                http = action.status is not None or last in self.profile.http_errors
                surface = Surface(
                    "http" if http else "reraised", action.name or "", message, final=http, line=action.line,
                    level=log.level if log else None, log_message=log.message if log else None, log_line=log.line if log else None, status=action.status,
                    id=site.id if site else None, **common,
                )
                if http:
                    return [surface], held, None
                qualname = qualify(action.name, module.lookup(guarded.scope), module.module, module.local_defs) if action.name else None
                return [surface], _Held(action.name or "", self._tree(qualname)), action.line
            elif action.kind == "reraise":
                return ([_logged(log, common, final=False)] if log else []), held, action.line
            elif action.kind == "call":
                last = (action.name or "").rsplit(".", 1)[-1]
                http = action.status is not None and last in self.profile.http_errors
                if http or last in self.profile.error_responses:
                    return [Surface(
                        "http" if http else "response", "", "", line=action.line, status=action.status if http else None, response=last,
                        level=log.level if log else None, log_message=log.message if log else None, log_line=log.line if log else None,
                        id=log.id if log else None, **common,
                    )], held, None
                if log is None:
                    log = self._helper_log(func, action.line)
            elif action.kind == "exit" and not action.conditional:  # `if retry: continue` may not end it
                break
        if log is not None:
            return [_logged(log, common)], held, None
        return [Surface("swallowed", "", "", line=handler.line, **common)], held, None

    def _helper_log(self, func: str, line: int) -> _Log | None:
        """A call at `line` of `func` to a function of the tree that logs (`self._log_failure(...)`)."""
        graph = self.graph.graph
        if func not in graph:
            return None
        for callee, data in graph[func].items():
            if any(site.line == line for site in data["sites"]) and (site := self.logs.get(callee)) is not None:
                return _Log(site.level or "error", site.message, site.path, site.line, site.id)
        return None


def _logged(log: _Log, common: dict, final: bool = True) -> Surface:
    fields = {**common, "path": log.path}
    return Surface("logged", "", log.message, final=final, line=log.line, level=log.level, id=log.id, **fields)


def _final(surface: Surface) -> Surface:
    return msgspec.structs.replace(surface, final=True)


def _with_chains(surface: Surface, chains: tuple[int, ...]) -> Surface:
    return msgspec.structs.replace(surface, chains=chains)


def _clause(handler: HandlerFact) -> str:
    if not handler.types:
        return "except:"
    types = handler.types[0] if len(handler.types) == 1 else f"({', '.join(handler.types)})"
    return f"except {types}" + (f" as {handler.name}" if handler.name else "")


def _log_template(first: str, args: tuple[str, ...]) -> str:
    """A log call's message: `%`-style with its arguments, else its one argument's template."""
    literal = _literal(first)
    if args and literal is not None:
        return percent_template(literal, list(args), {}, ", ".join(args)).text
    return message_template(first)


def _literal(source: str) -> str | None:
    try:
        node = cst.parse_expression(source)
    except cst.ParserSyntaxError:
        return None
    value = node.evaluated_value if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) else None
    return value if isinstance(value, str) else None


@lru_cache(maxsize=4096)
def message_template(source: str) -> str:
    """The template of a message expression given as source (`f"x {e}"` -> `x {e}`)."""
    try:
        expression = cst.parse_expression(source)
    except cst.ParserSyntaxError:
        return "{" + source + "}"
    return TemplateBuilder(cst.Module(body=[]), lambda name: None).render(expression).text
