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

import functools
from collections import Counter, namedtuple

from errscan.api.layout import MATCHER_FRAMES, MATCHER_INDEX
from errscan.errors import ErrscanError
from errscan.lookup.logs import LoggedError, find_errors
from errscan.lookup.shards import MatcherEntry, rows_file, word_file
from errscan.match import MessageMatch, compile_template, evidence, fold, fuzzy_match, may_be_cut, score_message, words

MAX_ALTERNATIVES = 2
# Each error found is ranked against every template, so a log of many errors costs many times one:
# the first ones are looked up (a log's first error is nearly always the one to fix).
MAX_ERRORS = 100
_AGREES = 4  # where a candidate's sort key holds whether the log names its exception class (find)

# Named tuples, not dataclasses, as in errscan.match: lookup should start fast. Documents are the
# errors' JSON documents (api/errors/<id>.json) as dicts, and `through` a dict of their `surfaces_as`.


class Candidate(namedtuple("Candidate", "error rule score bindings confident message framed through", defaults=(None,))):
    """`error`: the error's document; `rule`: "frame", or the message rule ("exact" | "truncated" |
    "fuzzy"); `message`: the reading of the logged message that matched ("" for a frame alone);
    `framed`: the traceback's innermost frame pins this site; `through`: what the log showed in the
    error's place (its wrapper, a handler's log record: one of its `surfaces_as`), or None."""

    __slots__ = ()


class Finding(namedtuple("Finding", "logged candidates catch_alls", defaults=((),))):
    """`candidates`: best first, the best match and its alternatives. `catch_alls`: the errors
    (MatcherEntry) whose message is a placeholder alone (`raise ValueError(msg)`): any text is an
    instance, so they are one line after the candidates, not candidates (the site does the same)."""

    __slots__ = ()


class CatalogMatcher:
    """The errors to rank logged ones against: the matcher's files (errscan/lookup/shards.py) from
    `load` (path -> plain JSON), and `read`, an error's document by its id. A message reads the key
    files its words select; only the best matches' rows and documents are read, only templates
    whose keys a message shows are compiled, and the fuzzy rule counts shared words from the key
    files' word lists."""

    def __init__(self, load, read):
        # Errors no longer raised are looked up too (logs come from old releases as well); a
        # current error ranks first where the two fit alike.
        self._load = functools.lru_cache(maxsize=None)(load)
        self._read = read
        self.index = self._load(MATCHER_INDEX)
        self._entries = {row[0]: MatcherEntry(*row) for row in self.index["catch_alls"]}

    @classmethod
    def of_catalog(cls, catalog) -> "CatalogMatcher":
        """The matcher a site of `catalog` (errscan.model.Catalog) would have, made in memory."""
        import msgspec

        from errscan.api.documents import matcher_documents

        files = msgspec.to_builtins(matcher_documents(catalog))
        errors = {e.id: e for e in catalog.errors + catalog.retired}
        return cls(files.__getitem__, lambda error_id: msgspec.to_builtins(errors[error_id]))

    @property
    def count(self) -> int:
        """How many errors are still raised."""
        return self.index["count"]

    def find(self, logged: LoggedError) -> Finding:
        framed, raised_outside, frame_path = self._frame_sites(logged)
        best: dict[int, _Reading] = {}
        for reading in logged.readings():
            for i, match in self.matches(reading):
                if i not in best or evidence(match) > evidence(best[i]):
                    best[i] = match
        said = any(fold(r) for r in logged.readings())
        catch_alls = [MatcherEntry(*row) for row in self.index["catch_alls"] if row[0] not in framed] if said else []
        scored: list[tuple[tuple, MatcherEntry, _Reading | None]] = []
        for i in sorted(set(best) | framed):
            entry, match = self.entry(i), best.get(i)
            is_framed = i in framed
            strength = evidence(match) if match else (0, 0.0, 0, 0.0)
            key = (is_framed, *strength[:3], _agrees(logged, entry), strength[3], not entry.removed_since)
            scored.append((key, entry, match))
        scored.sort(key=lambda item: (tuple(-x for x in item[0]), item[1].path, item[1].line))
        scored = _origins(scored)
        ranked = []
        for key, entry, match in scored[: 1 + MAX_ALTERNATIVES]:
            elsewhere = raised_outside or (frame_path is not None and entry.path != frame_path)
            error = self._read(entry.id)
            ranked.append(Candidate(
                error=error,
                through=error["surfaces_as"][entry.surface] if entry.surface >= 0 else None,
                rule=match.rule if match else "frame",
                score=match.score if match else 1.0,
                bindings=match.bindings if match else {},
                confident=_pins(key[0], match) and (key[_AGREES] or not (logged.exception or logged.level)) and not elsewhere,
                message=match.message if match else "",
                framed=key[0],
            ))
        if len(scored) > 1 and scored[0][0] == scored[1][0]:  # two sites fit equally: no certainty
            ranked[0] = _unsure(ranked[0])
        if ranked and ranked[0].framed and ranked[0].rule in ("frame", "fuzzy"):
            # The frame and a message that pins another site disagree: the catalog is from another release.
            if any(c.confident and not c.framed for c in ranked[1:]):
                ranked[0] = _unsure(ranked[0])
        ranked[1:] = [_unsure(c) for c in ranked[1:]]
        catch_alls.sort(key=lambda e: (bool(e.removed_since), e.path, e.line))
        return Finding(logged, tuple(ranked), tuple(catch_alls))

    def matches(self, reading: str):
        """(position, match) of the errors one reading of a message matches, by
        errscan.match.score_message; a template is compiled only when the reading shows its keys,
        else only `fuzzy` can apply. Templates without literal text (catch-alls) are left out."""
        folded = fold(reading)
        found = words(reading)
        buckets = self.index["buckets"]
        shared: Counter[int] = Counter()
        word_counts: dict[int, int] = {}
        keyed_files = {path: self._load(path) for path in sorted({word_file(word, buckets) for word in found})}
        for word in found:
            postings = iter(keyed_files[word_file(word, buckets)]["words"].get(word, ()))
            for i, count in zip(postings, postings):  # position, word count, position, ...
                shared[i] += 1
                word_counts[i] = count
        # A template with literal text has an anchor and a lead, and is keyed by words of both.
        candidates = [*self.index["unkeyed"], *(k for keys in keyed_files.values() for k in keys["keyed"])]
        keyed = {i for i, anchor, _ in candidates if anchor in folded}
        keyed.update(
            i for i, _, lead in candidates
            if i not in keyed and lead and lead in folded and may_be_cut(compile_template(self.entry(i).message).head, lead, folded)
        )
        for i in sorted(keyed):
            match = score_message(compile_template(self.entry(i).message), reading)
            if match is not None:
                yield i, _Reading(*match, reading)
        for i, count in shared.items():
            if i not in keyed:
                match = fuzzy_match(count, word_counts[i], len(found))
                if match is not None:
                    yield i, _Reading(*match, reading)

    def entry(self, i: int) -> MatcherEntry:
        """The error at position i, from its rows file."""
        if i not in self._entries:
            rows = self._load(rows_file(i, self.index["rows"]))["rows"]
            self._entries.update((row[0], MatcherEntry(*row)) for row in rows)
            if i not in self._entries:
                raise ErrscanError(f"the site's matcher has no row {i} in {rows_file(i, self.index['rows'])}; build it again")
        return self._entries[i]

    @functools.cached_property
    def _frames(self) -> dict:
        return self._load(MATCHER_FRAMES)

    @functools.cached_property
    def _paths(self) -> list[str]:
        return sorted(self._frames["files"], key=len, reverse=True)

    @functools.cached_property
    def _roots(self) -> list[str]:
        return sorted({path.split("/", 1)[0] for path in self._frames["files"]})

    def _frame_sites(self, logged: LoggedError) -> tuple[set[int], bool, str | None]:
        """The errors (by position) the innermost frame pins; whether it lies outside the catalog's
        scope (a file of another release that the scope covers is inside: its sites may have
        moved); and the catalogued file it names, if any (then no site in another file can be
        certain). A log record's source pins the log sites it may be. The frames file is read
        only here, for a traceback or a record's source."""
        if logged.source is None and not logged.frames:
            return set(), False, None
        m = self._frames
        if logged.source is not None:
            source = logged.source
            named = {f for f, path in enumerate(m["files"]) if path.rsplit("/", 1)[-1] == source.file}
            return {
                i for i, f in enumerate(m["file_of"])
                if f in named and m["kinds"][i] == "log" and m["lines"][i] <= source.line <= m["end_lines"][i]
            }, False, None
        frame = logged.frames[-1]
        path = next((p for p in self._paths if frame.path == p or frame.path.endswith("/" + p)), None)
        if path is None:
            return set(), not self._in_scope(frame.path), None
        at = m["files"].index(path)
        in_function = [i for i, f in enumerate(m["file_of"]) if f == at and _short(m["functions"][i]) == frame.function]
        on_line = {i for i in in_function if m["lines"][i] <= frame.line <= m["end_lines"][i]}
        if on_line:
            return on_line, False, path
        same_class = [i for i in in_function if _short(m["exceptions"][i]) == logged.short_exception]
        return set(same_class) if len(same_class) == 1 else set(), False, path

    @functools.cached_property
    def _scope(self):
        from errscan.scope import Scope  # globs: loaded only for a traceback from outside the catalog

        return Scope(tuple(self.index["include"]), tuple(self.index["exclude"]))

    def _in_scope(self, printed: str) -> bool:
        """Whether a printed path, cut at its last catalog root folder (`.../vllm/x.py` -> `vllm/x.py`), is catalogued."""
        for root in self._roots:
            cut = printed.rfind(f"/{root}/")
            relative = printed[cut + 1 :] if cut >= 0 else printed if printed.startswith(f"{root}/") else None
            if relative is not None and self._scope.catalogues(relative):
                return True
        return False


# A MessageMatch with the reading of the logged message that matched.
_Reading = namedtuple("_Reading", (*MessageMatch._fields, "message"))


def _pins(framed: bool, match: MessageMatch | None) -> bool:
    return framed or (match is not None and match.pinned)


def _unsure(candidate: Candidate) -> Candidate:
    return candidate._replace(confident=False)


def _agrees(logged: LoggedError, error: MatcherEntry) -> bool:
    """The log names the site's exception class, or a record's level is the log site's."""
    if logged.level:
        return error.kind == "log" and _RECORD_LEVEL.get(error.level or "", error.level) == logged.level
    return bool(logged.exception) and _short(error.exception) == logged.short_exception


_RECORD_LEVEL = {"exception": "error"}  # `logger.exception` writes an ERROR record


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _origins(scored: list[tuple[tuple, MatcherEntry, "_Reading | None"]]) -> list[tuple[tuple, MatcherEntry, "_Reading | None"]]:
    """A wrapper's view (errscan/lookup/wrapped.py) stands for its origin, which shares its id: each
    error once, at its best."""
    seen: set[str] = set()
    kept = []
    for item in scored:
        if item[1].id not in seen:
            seen.add(item[1].id)
            kept.append(item)
    return kept


def lookup(text: str, catalog) -> list[Finding]:
    """The errors `text` shows (the first MAX_ERRORS), each with its best catalogued matches in
    `catalog`, a CatalogMatcher or an errscan.model.Catalog."""
    matcher = catalog if isinstance(catalog, CatalogMatcher) else CatalogMatcher.of_catalog(catalog)
    return [matcher.find(logged) for logged in find_errors(text)[:MAX_ERRORS]]
