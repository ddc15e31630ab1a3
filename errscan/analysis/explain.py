"""Explanations: each error in its user's terms, with the settings and values that avoid it.

Everything comes from the trigger the analysis derived: the ways the error fires (its own
condition, or each guarded `append` of an accumulate-then-raise), the settings those read, the
checks earlier on the same path, and the entry points that reach it. A fix is a setting and a value
that the solver proves rules a way out (whatever the rest of the program does) without failing an
earlier check on the same path; a setting the code's own message names as the cause counts too.
"""

from __future__ import annotations

import ast
import itertools
import re

from errscan.analysis.advice import (
    FILE_WORDS, UNSUPPORTED as _UNSUPPORTED, cause_in_message, check_command, outside, own_class,
    pointer_fix, relay, report,
    subject as advice_subject, unimplemented, unsupported_clause, verb,
)
from errscan.analysis.chains import Reach
from errscan.analysis.commands import Setting, action, candidates, config_document, shown, written
from errscan.analysis.examples import Examples, run_as_main
from errscan.analysis.fileio import FileIO
from errscan.analysis.filed import file_keys, read_from_file
from errscan.analysis.finder import SettingFinder
from errscan.analysis.knobs import KnobCatalog
from errscan.analysis.documented import documented_answer
from errscan.analysis.installed import version_check, version_explanation
from errscan.analysis.libraries import library_answer
from errscan.analysis.listed import listed_items
from errscan.analysis.named import advised, flags_in_words
from errscan.analysis.optional import missing_package, not_installed
from errscan.analysis.skipped import skipped_words, switched_off
from errscan.analysis.peers import peer_fix
from errscan.analysis.phases import in_phase, phase_of
from errscan.analysis.origins import client_field, decided_outside, foreign, keys_passed, read_here, timers
from errscan.analysis.ways import Way, for_part, positive_parts
from errscan.analysis.solver import Value, rules_out, satisfiable
from errscan.analysis.summaries import AMONG, UNDECIDED, Summaries
from errscan.analysis.wording import ADDRESS, PATH, phrase_for
from errscan.extract.conditions import Condition, parse_expression, render
from errscan.extract.facts import ModuleFacts
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph
from errscan.model import ErrorSite, Explanation, Fix
from errscan.profiles import Phrase, Profile

MAX_POINTERS = 4  # address, port or path settings named for an error outside
MAX_COMBINATIONS = 64  # joint assignments tried for a way in with several settings
_BESIDES = " other than whether this code runs"
_PEERS = re.compile(r"\b(remote|local|prefill|decode)\b", re.IGNORECASE)
_NOTICES = frozenset({"debug", "info", "warning"})  # levels at which a log reports and the code goes on as planned


class Explainer:
    """Explanations for one package's errors; built once, reused for every error."""

    def __init__(self, catalog: KnobCatalog, profile: Profile, graph: CallGraph | None = None):
        self.catalog = catalog
        self.profile = profile
        self.graph = graph  # the class hierarchy: whether a base method is overridden everywhere
        self.settings = SettingFinder(catalog, profile)
        self.examples = Examples(catalog, profile)
        self.fileio = FileIO(graph) if graph is not None else None
        self.summaries = Summaries(self.settings, catalog, profile, self._files)
        self._paths: dict[tuple, tuple[str | None, Way | None]] = {}  # see `_path_words`

    def explain(
        self, error: ErrorSite, terms: Condition, contributions: list[tuple[str, str, str]], found: Reach,
        class_settings: dict[str, list[str]], module: ModuleFacts | None = None,
        plugin_settings: dict[str, list[str]] | None = None, made_settings: dict[str, list[str]] | None = None,
    ) -> Explanation:
        own = tuple(t for t in terms if not t.other_error)
        earlier = tuple(t.deep for t in terms if t.other_error and not t.pseudo)
        ways = self.settings.ways(error, own, contributions, class_settings)
        when, where = phase_of(found, error, self.profile)
        path_words, path_way = self._path_words(found, class_settings)
        # a setting the way in needs decides whether the error can fire at all: "no setting" is said of the rest
        besides = _BESIDES if path_words else ""
        subject = advice_subject(error, self.profile.title or self.profile.name)
        local = render(own, "deep")
        if local and satisfiable(local, *earlier) is False:
            summary = (
                "This error cannot fire at this commit: what must hold for it contradicts itself or the "
                "checks before it on the same path (the condition is below)."
            )
            return Explanation(summary, "unreachable", when, where)
        if error.trigger is not None and error.trigger.reachable is False:
            return Explanation(f"This error cannot fire at this commit: {error.trigger.unreachable}.", "unreachable", when, where)
        connectors = error.trigger.connectors if error.trigger else ()
        custom = unimplemented(error, own, found, self.profile) or self._outside_only(error, own, module)
        if custom is not None:
            method = error.function.rsplit(".", 1)[-1]
            return Explanation(custom, "usage", when, where, (Fix("", None, f"Implement `{method}` in that class (or do not declare the interface it belongs to)."),))
        mine = self._own_plugin(ways)
        if mine is not None:
            return own_class(error, mine, when, where, self.profile)
        missing = missing_package(own, module, self.profile, self.graph)
        if missing is not None:
            return not_installed(missing, subject, when, where, self.profile)
        checked = version_check(own, module, error.function, self.profile)
        if checked is not None:
            return version_explanation(checked, error, subject, when, where, self.profile)
        told = advised(error, self.catalog, self.profile)
        fixes = tuple(fix for way in ways for fix in self._fixes(way, earlier, connectors, bool(told))) + told
        kind = self.summaries.kind(error, own, ways, fixes)
        chain_codes = [render(chain.condition, "deep") or "" for chain in found.chains]
        outside_of_state = (listed_items(local or "", error.trigger.knobs if error.trigger else (), self.catalog, subject,
                                         verb(error, subject), in_phase(when))
                            or read_from_file(file_keys(error, local or "", found, module), local or "", path_way.settings if path_way else (),
                                           subject, verb(error, subject), in_phase(when), self.profile)
                            or decided_outside(error, local or "", chain_codes, subject, in_phase(when), self.profile,
                                               timers(error, self.settings, class_settings, {**(made_settings or {}), **(plugin_settings or {})}),
                                               lambda receiver: foreign(receiver, class_settings, module, self.profile),
                                               lambda code: library_answer(code, self.graph, module, error.function),
                                               lambda code: documented_answer(code, self.graph, module, error.function))) \
            if kind == "internal" else None
        if outside_of_state is not None:
            kind, summary, told_fix = outside_of_state
        else:
            summary = self.summaries.summary(error, kind, ways, fixes, subject, when, class_settings, own, module, besides)
        if path_words:  # (before the summary's closing words on the condition below, which it is not part of)
            body, end = (summary[: -len(AMONG)], AMONG) if summary.endswith(AMONG) else (summary[:-1], ".")
            summary = f"{body} (this code runs only if {path_words}){end}"
        check = None
        if outside_of_state is not None:
            fixes = (told_fix,)
        elif kind == "internal":
            fixes = (self._report_fix(error),)
            check = self.profile.report_command or None
        elif kind == "environment":
            _, advice, facet = outside(error, own, self.profile, module, self._files(error, own, module))
            carried = "its answer or the underlying error" if facet == "reached" else "the underlying error"
            said = f" The message carries {carried}: it says what failed." if cause_in_message(error, facet == "reached") and facet else ""
            talks = facet in ("peer", "reached")
            sent = client_field([local or "", *chain_codes], self.profile) if talks or facet == "value" else None
            held = self._pointers(class_settings, facet, path_way)  # of a peer: only an address the failing code uses
            used = self._pointers(read_here(class_settings, error, module), facet, path_way) if talks else held
            pointers = [] if sent else used if held else self._pointers(plugin_settings or {}, facet, None)
            if sent and facet == "value":  # the value came with the request: nothing the user set
                summary = summary.replace(UNDECIDED + besides, f"; the request's `{sent}` carries the values it reads")
                advice = (f"Check what the request's `{sent}` carries (the client or the proxy sends it): it must have "
                          "the values the message names, in that form.")
                pointed = ()
            elif sent:  # the peer's address came with the request: the instance's own address settings are not it
                summary = summary.replace(UNDECIDED + besides, f"; the other side is the one the request's `{sent}` names")
                pointed = (Fix(sent, None, f"The other instance is named in the request's `{sent}` (sent by the client "
                                           "or the proxy): check that it carries a reachable address and port."),)
            else:
                pointed = pointer_fix(pointers, facet, keys_passed(found, module) if facet == "value" else [], self.profile.relays)
            if pointers:  # the address, path or file the user gives is what to check: a setting of theirs
                given = " and ".join(f"`{s.name}`" for s in pointers)
                summary = summary.replace(UNDECIDED + besides, f"; what you give in {given} is part of it")
            thirds = {relay(s, self.profile.relays) for s in pointers} if facet == "peer" else set()
            if len(thirds) == 1 and None not in thirds:  # only a proxy's address is involved, not the other instance
                advice = f"Look at {thirds.pop()}'s log for the error on its side, and check that it is running."
            fixes = (Fix("", None, advice + said),) + pointed
            check = check_command(facet, pointers, self.profile)
            skipped = switched_off(earlier, lambda code: self.settings.settings_in(code, class_settings))
            if skipped is not None and UNDECIDED + besides in summary:
                clause, fix = skipped_words(skipped, self.catalog, besides)
                summary, fixes = summary.replace(UNDECIDED + besides, clause, 1), fixes + (fix,)
        elif kind == "configuration" and not fixes:
            settings = list(dict.fromkeys([s.name for way in ways for s in way.settings] + flags_in_words(error.message, self.catalog)))
            checked = " and ".join(f"`{name}`" for name in settings)
            text = report(error, self.profile)
            peers = " on both instances (prefill and decode)" if _PEERS.search(error.message) else ""
            fixes = (Fix(settings[0], None, (
                f"Set {checked}{peers} so that what the message states no longer holds: the check compares it with "
                f"values {self.profile.title or self.profile.name} works out itself, so no single value is known to "
                f"avoid it. If yours look right, {text[0].lower()}{text[1:]}"
            )),)
        example = self.examples.example(error, ways, fixes, path_way) if kind == "configuration" and outside_of_state is None else None
        reproduce = (self.examples.reproduce(error, ways, path_way) or run_as_main(found)) if example is None else None
        return Explanation(summary, kind, when, where, tuple(dict.fromkeys(fixes)), example, reproduce, check)

    def _outside_only(self, error: ErrorSite, own: Condition, module: ModuleFacts | None) -> str | None:
        """An unconditional `NotImplementedError` of a base method that every class of the package built
        on its class overrides: the calls that reach it run it only for a class from outside the package."""
        if self.graph is None or module is None or own or "." not in error.function \
                or error.exception.rsplit(".", 1)[-1] != "NotImplementedError":
            return None
        owner, method = f"{module.module}.{error.function}".rsplit(".", 1)
        subclasses, todo = set(), [owner]
        while todo:
            for sub in self.graph.subclasses.get(todo.pop(), ()):
                if sub not in subclasses:
                    subclasses.add(sub)
                    todo.append(sub)
        base = f"{owner}.{method}"
        if not subclasses or any(self.graph.lookup_method(sub, method) == base for sub in subclasses):
            return None
        project = self.profile.title or self.profile.name
        name = error.function.rsplit(".", 1)[0]
        return (f"`{error.function}` is a method that classes built on `{name}` must override, and every class in "
                f"{project} built on `{name}` overrides it: this base version runs only for a class from outside "
                f"{project} (a plugin's or your own) built on `{name}` without implementing `{method}`.")

    def _pointers(self, class_settings: dict[str, list[str]], facet: str, path: Way | None) -> list[Setting]:
        """The settings the class reads the peer's address and port, or a path, from; for a value
        of the wrong form, the file that the way to it needs (where the value was read)."""
        if facet == "value":
            return [s for s in path.settings if PATH.search(s.name.rsplit(".", 1)[-1])][:1] if path else []
        named = ADDRESS if facet in ("peer", "reached") else PATH if facet == "file" else None
        return self.settings.read_by_class(class_settings, named)[:MAX_POINTERS] if named else []

    def _files(self, error: ErrorSite, own: Condition, module: ModuleFacts | None) -> bool | None:
        """Whether the calls the error's `try` guards touch files (None: unknown, or no `try`)."""
        return self.fileio.touches_files(module.module, error.function, own, FILE_WORDS) if self.fileio and module else None

    def _own_plugin(self, ways: list[Way]) -> Setting | None:
        """The setting that loads a plugin class from the user's own module, when every way in needs it set."""
        wanted = self.profile.plugin_module_setting
        found = [next((s for s in way.settings if wanted and s.name.rsplit(".", 1)[-1] == wanted
                       and s.code in positive_parts(way.condition)), None) for way in ways]
        return found[0] if found and all(found) else None

    # fixes
    def _fixes(self, way: Way, earlier: tuple[str, ...], connectors: tuple[str, ...], advised: bool = False) -> list[Fix]:
        """The first assignment that rules the way out: one setting before several, likely values
        (defaults, the constants it is compared with) before the usual small ones."""
        condition = f"({way.condition}) and ({way.stated})" if way.stated else way.condition
        earlier += tuple(f"{s.code} >= {p.minimum}" for s in way.settings if s.side
                         for p in self.profile.peer_values if p.side == s.side)  # no fix below a setting's minimum
        for likely in (True, False):
            choices = [[(s, v) for v in self._candidates(s, condition, likely, connectors, way.message)] for s in way.settings]
            for setting_choices in choices:
                for setting, value in setting_choices:
                    if rules_out(condition, {setting.code: value}, earlier):
                        return [self._fix(((setting, value),), way, self._any_plugin(setting, condition, connectors, earlier))]
            if len(choices) > 1:
                for combination in itertools.islice(itertools.product(*choices), MAX_COMBINATIONS):
                    if rules_out(condition, {s.code: v for s, v in combination}, earlier):
                        return [self._fix(combination, way)]
        peer = peer_fix(way, self.catalog)  # the same value on both sides: no value of one avoids it
        if peer is not None:
            return [peer]
        # A whole message that blames a setting while only the model decides: the model comes first.
        if not way.part and (way.settings or not advised or not _UNSUPPORTED.search(way.message)):
            return []  # a model property in vLLM's own branch (`if is_mla and shape != ...`) is no cause
        phrases = [self._phrase_in(part) for part in positive_parts(way.condition)]
        return [Fix("", None, for_part(way) + p.avoid, part=way.part) for p in phrases if p is not None and p.avoid][:1]

    def _any_plugin(self, setting: Setting, condition: str, connectors: tuple[str, ...], earlier: tuple[str, ...]) -> str:
        """Where naming any of several plugins rules the way out (the name is only needed set): that the
        one shown is an example ("" otherwise)."""
        if setting.path != (self.profile.plugin_setting,) or len(connectors) < 2 or not all(
                rules_out(condition, {setting.code: name}, earlier) for name in connectors[1:]):
            return ""
        kind = self.profile.registries[0].kind if self.profile.registries else "plugin"
        return f" (or any other registered {kind}: the check only needs one named)"

    def _phrase_in(self, part: str) -> Phrase | None:
        """The vocabulary's phrase for a part, or for the value a comparison tests (`len(x) > 1`)."""
        found = phrase_for(part, self.profile.vocabulary)
        tree = parse_expression(part)
        if found is None and isinstance(tree, ast.Compare):
            found = phrase_for(fast_unparse(tree.left), self.profile.vocabulary)
        return found

    def _candidates(self, setting: Setting, condition: str, likely: bool, connectors: tuple[str, ...], message: str) -> list[Value]:
        if setting.path == (self.profile.plugin_setting,) and connectors:
            return list(connectors) if likely else []  # the plugin's own name: the ones that reach here
        document = config_document(setting, message, self.catalog) if likely else None
        return candidates(setting, condition, likely) + ([document] if document else [])

    def _report_fix(self, error: ErrorSite) -> Fix:
        """An internal error's fix: what to report; first the settings its message names, if any."""
        text = report(error, self.profile)
        named = flags_in_words(error.message, self.catalog)
        if not named and error.kind != "assert" and not unsupported_clause(error.message):
            # no setting was traced, which does not make a raise or a log vLLM's fault
            if error.kind == "log" and error.level in _NOTICES:  # the code goes on: the warning alone breaks nothing
                return Fix("", None, f"It is a {error.level}: if nothing fails with it, it needs no action. If something does and the "
                                     f"message points to nothing in your setup or environment, {text[0].lower()}{text[1:]}")
            return Fix("", None, f"If the message points to nothing in your setup or environment, {text[0].lower()}{text[1:]}")
        if not named:
            return Fix("", None, text)
        check = " and ".join(f"`{flag}`" for flag in named)
        both = " on both instances (prefill and decode)" if _PEERS.search(error.message) else ""
        return Fix(named[0], None, f"The message is about {check}: check it{both}. If it is as the message asks, {text[0].lower()}{text[1:]}")

    def _fix(self, assignment: tuple[tuple[Setting, Value], ...], way: Way, example: str = "") -> Fix:
        """One fix: each setting of the assignment with its value (all of them together), and the
        settings the project needs with them (it resets them otherwise); `example`: why the value is one of many."""
        actions = [action(setting, value, self.catalog) + example for setting, value in assignment]
        needed = [n for setting, value in assignment for n in self.examples.needs(setting, written(value, setting))]
        actions += [f"pass `{name}`" if value == "true" else f"pass `{name} {value}`" for name, value in needed]
        text = actions[0] + "".join(f", and {a[0].lower()}{a[1:]}" for a in actions[1:])
        if needed:
            text += f" ({self.examples.reset_words([s.name for s, _ in assignment])})"
        elif way.stated and any(setting.code in way.stated for setting, _ in assignment):
            text += " (the message names it as the cause)"
        (first, value), *rest = assignment
        others = tuple((s.name, shown(v, s)) for s, v in rest) + tuple(needed)
        return Fix(first.name, shown(value, first), f"{for_part(way)}{text}.", first.carrier, others, way.part or None)

    # the way in, in words
    def _path_words(self, found: Reach, class_settings: dict[str, list[str]]) -> tuple[str | None, Way | None]:
        """The settings the shortest chain needs on its way (`"use_native": true`), in words: kept per
        condition and settings of the class, as the sites of one function mostly share both."""
        if not found.chains:
            return None, None
        path = render(found.chains[0].condition, "deep") or ""
        key = (path, tuple((name, tuple(sources)) for name, sources in class_settings.items()))
        said = self._paths.get(key)
        if said is None:
            said = self._paths[key] = self._path_way(path, class_settings)
        return said

    def _path_way(self, path: str, class_settings: dict[str, list[str]]) -> tuple[str | None, Way | None]:
        """`_path_words` of the shortest chain's condition `path`, worked out."""
        condition = self.settings.settled(path, class_settings)
        if not condition or condition == "True":  # nothing on the way but constants that hold
            return None, None
        way = Way(condition, self.settings.settings_in(condition, class_settings))
        if not way.settings:
            return None, None
        return self.summaries.words(way, class_settings), way

