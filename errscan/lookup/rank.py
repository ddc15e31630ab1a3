"""Ranking: which catalogued error a logged one is, best first, and whether that is certain.

Evidence, strongest first (the sort key of a candidate):
1. the traceback's innermost frame (where the exception was raised) pins the site: same file
   (by path suffix), same function, and the line inside the statement, or else the only site of
   that function raising that exception (lines move between releases, functions rarely do); a log
   record's `[file.py:123]` pins the log sites of a file of that name whose call spans that line;
2. the message, by errscan.match.evidence: a pinned literal match (exact or truncated) first, the one
   showing more of its template's literal text before (an exact match's weighing more), then exact
   before truncated; then the unpinned matches (little literal text, fuzzy);
3. the logged exception's class name agrees with the site's (a record's level with a log site's);
4. the rule's score;
5. the site is still raised (a history site also holds errors no longer raised).
A candidate is `confident` when the frame or the message's literal text pins it, the logged
exception agrees (when the log names one), nothing else ranks equal, and the traceback, if any,
ends in the candidate's file or (other release) in an uncatalogued file inside the scope: a
traceback that ends elsewhere was raised elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from errscan.lookup.logs import LoggedError, find_errors
from errscan.match import CompiledTemplate, MessageMatch, compile_template, evidence, score_message
from errscan.model import Catalog, ErrorSite
from errscan.scope import Scope

MAX_ALTERNATIVES = 2


@dataclass(frozen=True)
class Candidate:
    error: ErrorSite
    rule: str  # "frame", or the message rule: "exact" | "truncated" | "fuzzy"
    score: float
    bindings: dict[str, str]
    confident: bool
    message: str  # the reading of the logged message that matched ("" for a frame alone)
    framed: bool  # the traceback's innermost frame pins this site


@dataclass(frozen=True)
class Finding:
    logged: LoggedError
    candidates: tuple[Candidate, ...]  # best first: the best match and its alternatives


class CatalogMatcher:
    """A catalog with every template compiled once, to rank many logged errors against it."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        # Errors no longer raised are looked up too (logs come from old releases as well); a
        # current error ranks first where the two fit alike.
        self.errors = catalog.errors + catalog.retired
        self._compiled: dict[str, CompiledTemplate] = {}
        for error in self.errors:
            if error.message not in self._compiled:
                self._compiled[error.message] = compile_template(error.message)
        self._paths = sorted({error.path for error in self.errors}, key=len, reverse=True)
        self._roots = sorted({error.path.split("/", 1)[0] for error in self.errors})
        self._scope = Scope(catalog.include, catalog.exclude)

    def find(self, logged: LoggedError) -> Finding:
        framed, raised_outside, frame_path = self._frame_sites(logged)
        readings = logged.readings()
        scored: list[tuple[tuple, Candidate]] = []
        for error in self.errors:
            compiled = self._compiled[error.message]
            is_framed = error.id in framed
            match = _best_match(compiled, readings) if compiled.literal_chars else None
            if match is None and not is_framed:
                continue
            agrees = _agrees(logged, error)
            elsewhere = raised_outside or (frame_path is not None and error.path != frame_path)
            strength = evidence(match) if match else (0, 0, 0, 0.0)
            key = (is_framed, *strength[:3], agrees, strength[3], not error.removed_since)
            candidate = Candidate(
                error=error,
                rule=match.rule if match else "frame",
                score=match.score if match else 1.0,
                bindings=match.bindings if match else {},
                confident=_pins(is_framed, match) and (agrees or not (logged.exception or logged.level)) and not elsewhere,
                message=match.message if match else "",
                framed=is_framed,
            )
            scored.append((key, candidate))
        scored.sort(key=lambda pair: (tuple(-x for x in pair[0]), pair[1].error.path, pair[1].error.line))
        ranked = [candidate for _, candidate in scored[: 1 + MAX_ALTERNATIVES]]
        if len(scored) > 1 and scored[0][0] == scored[1][0]:  # two sites fit equally: no certainty
            ranked[0] = _unsure(ranked[0])
        if ranked and ranked[0].framed and ranked[0].rule in ("frame", "fuzzy"):
            # The frame and a message that pins another site disagree: the catalog is from another release.
            if any(c.confident and not c.framed for c in ranked[1:]):
                ranked[0] = _unsure(ranked[0])
        ranked[1:] = [_unsure(c) for c in ranked[1:]]
        return Finding(logged, tuple(ranked))

    def _frame_sites(self, logged: LoggedError) -> tuple[set[str], bool, str | None]:
        """Ids the innermost frame pins; whether it lies outside the catalog's scope (a file of
        another release that the scope covers is inside: its sites may have moved); and the
        catalogued file it names, if any (then no site in another file can be certain). A log
        record's source pins the log sites it may be."""
        if logged.source is not None:
            source = logged.source
            return {
                e.id for e in self.errors
                if e.kind == "log" and e.path.rsplit("/", 1)[-1] == source.file and e.line <= source.line <= e.end_line
            }, False, None
        if not logged.frames:
            return set(), False, None
        frame = logged.frames[-1]
        path = next((p for p in self._paths if frame.path == p or frame.path.endswith("/" + p)), None)
        if path is None:
            return set(), not self._in_scope(frame.path), None
        in_function = [
            e for e in self.errors if e.path == path and _short(e.function) == frame.function
        ]
        on_line = {e.id for e in in_function if e.line <= frame.line <= e.end_line}
        if on_line:
            return on_line, False, path
        same_class = [e.id for e in in_function if _short(e.exception) == logged.short_exception]
        return set(same_class) if len(same_class) == 1 else set(), False, path


    def _in_scope(self, printed: str) -> bool:
        """Whether a printed path, cut at its last catalog root folder (`.../vllm/x.py` -> `vllm/x.py`), is catalogued."""
        for root in self._roots:
            cut = printed.rfind(f"/{root}/")
            relative = printed[cut + 1 :] if cut >= 0 else printed if printed.startswith(f"{root}/") else None
            if relative is not None and self._scope.catalogues(relative):
                return True
        return False


def _best_match(compiled: CompiledTemplate, readings: tuple[str, ...]) -> "_Reading | None":
    best: _Reading | None = None
    for reading in readings:
        match = score_message(compiled, reading)
        if match is None:
            continue
        if best is None or evidence(match) > evidence(best):
            best = _Reading(match.rule, match.score, match.bindings, match.pinned, match.shown, message=reading)
    return best


@dataclass(frozen=True)
class _Reading(MessageMatch):
    message: str = ""


def _pins(framed: bool, match: MessageMatch | None) -> bool:
    return framed or (match is not None and match.pinned)


def _unsure(candidate: Candidate) -> Candidate:
    return Candidate(**{**candidate.__dict__, "confident": False})


def _agrees(logged: LoggedError, error: ErrorSite) -> bool:
    """The log names the site's exception class, or a record's level is the log site's."""
    if logged.level:
        return error.kind == "log" and _RECORD_LEVEL.get(error.level or "", error.level) == logged.level
    return bool(logged.exception) and _short(error.exception) == logged.short_exception


_RECORD_LEVEL = {"exception": "error"}  # `logger.exception` writes an ERROR record


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def lookup(text: str, catalog: Catalog) -> list[Finding]:
    """Every error `text` shows, each with its best catalogued matches."""
    matcher = CatalogMatcher(catalog)
    return [matcher.find(logged) for logged in find_errors(text)]
