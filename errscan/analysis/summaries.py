"""The words of an explanation: what kind of error it is for its user, and its summary, said in
the user's settings where the ways in read in them (`explain.py` puts them together with the fixes)."""

from __future__ import annotations

import ast
from typing import Callable

from errscan.analysis.advice import cause_in_message, outside, unsupported_clause, verb
from errscan.analysis.commands import Setting
from errscan.analysis.finder import SettingFinder
from errscan.analysis.knobs import KnobCatalog
from errscan.analysis.named import decided, flags_in_words
from errscan.analysis.peers import peer_fix, peer_named
from errscan.analysis.phases import in_phase, with_cause
from errscan.analysis.ways import Way, positive_parts
from errscan.analysis.wording import Raw, phrase_for, runtime_words, substantive, user_words
from errscan.extract.conditions import Condition, parse_expression
from errscan.extract.facts import ModuleFacts
from errscan.extract.unparse import fast_unparse
from errscan.model import ErrorSite, Fix
from errscan.profiles import Profile

ENVIRONMENT = frozenset({
    "ImportError", "ModuleNotFoundError", "OSError", "FileNotFoundError", "PermissionError", "ConnectionError",
    "ConnectionRefusedError", "ConnectionResetError", "TimeoutError", "BrokenPipeError",
})
UNDECIDED = "; no setting of yours decides it"
ANSWERED = "; what the other side answered decides it"  # of a handler that follows the one for failures to connect
AMONG = ", among other checks shown in the condition below."  # the end of a summary whose words are not all of the way


class Summaries:
    """`files` says whether the calls an error's `try` guards touch files (None: unknown)."""

    def __init__(self, settings: SettingFinder, catalog: KnobCatalog, profile: Profile,
                 files: Callable[[ErrorSite, Condition, ModuleFacts | None], bool | None]):
        self.settings, self.catalog, self.profile, self.files = settings, catalog, profile, files

    def kind(self, error: ErrorSite, own: Condition, ways: list[Way], fixes: tuple[Fix, ...]) -> str:
        """Whose the error is to act on: "configuration", "environment", "usage" or "internal"."""
        names = {error.exception.rsplit(".", 1)[-1], *(b.rsplit(".", 1)[-1] for b in error.exception_bases)}
        if names & (ENVIRONMENT | set(self.profile.environment_exceptions)) or any(
            t.code.startswith("raises(") for t in own
        ):
            return "environment"
        trigger = error.trigger
        if trigger and trigger.http_status and trigger.http_status < 500 and any(k.kind == "request_field" for k in trigger.knobs):
            return "usage"  # a field of the web request decides it, and the server answers with a 4xx
        if fixes or any(named_in(s, error) for way in ways for s in way.settings):
            return "configuration"
        if "HTTPException" in names:
            return "usage"
        if cause_in_message(error):  # it reports a failure it caught, whose own error it shows
            return "environment"
        return "internal"

    def summary(
        self, error: ErrorSite, kind: str, ways: list[Way], fixes: tuple[Fix, ...], subject: str, when: str | None,
        class_settings: dict[str, list[str]], own: Condition, module: ModuleFacts | None = None, besides: str = "",
    ) -> str:
        """`besides`: what a setting decides that the summary's "no setting" leaves aside."""
        timing = in_phase(when)
        parts = [self._part_words(way, class_settings) for way in ways]
        words = [self._joined(way, class_settings, said) for way, said in zip(ways, parts)]
        if kind == "configuration":
            if words and all(words):
                at_run = [self._runtime_words(way, class_settings) for way in ways]
                rests = [" and ".join(dict.fromkeys(at_run_words.values())) for at_run_words in at_run]
                partial = [_partial(said, at_run_words) for said, at_run_words in zip(parts, at_run)]
                said = f"{subject} {verb(error, subject)} this{timing} " + "; or ".join(
                    f"when {rest}, and only if {w}" if rest else f"only if {w}" if short else f"if {w}"
                    for w, rest, short in zip(words, rests, partial))
                # where the words are what must hold, not all of it
                said += AMONG if any(partial) else "."
                unsaid = [s.name for way in ways for s in way.settings if s.name not in said]
                if unsaid:  # read by a part that has no words: still the user's to check
                    said += f" It also depends on {' and '.join(f'`{n}`' for n in dict.fromkeys(unsaid))}."
                return said
            named = [f"`{s.name}`" for way in ways for s in way.settings] + [f"`{f.setting}`" for f in fixes if f.setting]
            named += [f"`{flag}`" for flag in flags_in_words(error.message, self.catalog)]
            return f"{subject} {verb(error, subject)} this{timing}; {', '.join(dict.fromkeys(named)) or 'the model'} decides whether it does."
        if kind == "environment":
            what, _, facet = outside(error, own, self.profile, module, self.files(error, own, module))
            return f"{subject} reports this{with_cause(timing)} {what}{ANSWERED if facet == 'reached' else UNDECIDED}{besides}."
        if kind == "usage":
            return f"{subject} refuses a request with this error{timing}: the request itself is at fault."
        known = [w for w in words if w]
        case = f" It can only happen when {'; or when '.join(known)}." if known else ""
        project = self.profile.title or self.profile.name
        refused = unsupported_clause(error.message)
        if refused:
            told = (f"{subject} {verb(error, subject)} this{timing} and carries on" if error.kind == "log"
                    else f"{subject} refuses a setup it does not support")  # a log site refuses nothing
            return (f"{told}: the message says {refused}. No setting that "
                    f"decides it{f',{besides},' if besides else ''} could be traced in the code, so the message is the guide.{case}")
        if error.exception.rsplit(".", 1)[-1] == "NotImplementedError" and not own and "." in error.function:
            # the call graph reaches the base version through the plugin's calls; whether the plugin's own
            # class overrides it is not known here, so the page says what it would mean, not that it is so
            return (f"`{error.function}` is a method that classes built on `{error.function.rsplit('.', 1)[0]}` must "
                    f"override; this base version is raised for one that does not. If it happens with {subject}, "
                    f"it is most likely a bug there.")
        now = "" if timing == " in a background thread" else timing  # a thread's own timing is on the When line
        # Finding no setting is a fact about what the analysis traced, not about vLLM: a log or a raise
        # may still come from the environment or a peer, so only a failed assert is called a likely bug.
        untraced = f"errscan traced no setting of yours that decides it{besides}"
        if error.kind == "assert":
            return (f"An internal consistency check of {subject} fails{now}: {project}'s own state is not what this "
                    f"code expects; {untraced}, so unless the message points to your setup or environment, it is "
                    f"most likely a bug.{case}")
        guide = (f"{with_cause(now)} the check below holds; {untraced}, so the message and that check are the guide to "
                 f"what went wrong" if own else f"{now}; {untraced}, so the message is the guide to what went wrong")
        return f"{subject} {verb(error, subject)} this{guide}.{case}"

    def _runtime_words(self, way: Way, class_settings: dict[str, list[str]]) -> dict[str, str]:
        """What else the way tests at run time (data, a peer's answer), in words from its names, per
        part: the settings are then only what must hold, not the cause (none when they decide alone).
        Parts that read a setting or a phrase of the vocabulary are in the words instead."""
        parts = [p for p in positive_parts(way.condition) if (tree := parse_expression(p)) is not None
                 and not any(self.settings.setting_at(n, class_settings) or isinstance(n, ast.expr) and phrase_for(
                     fast_unparse(n), self.profile.vocabulary) for n in ast.walk(tree))]
        return {p: w for p in parts if (w := runtime_words(p))}

    def words(self, way: Way, class_settings: dict[str, list[str]]) -> str | None:
        """The way in user terms: its `and` parts that read in those terms (the rest are the code's
        own preconditions, shown with the condition on the page); None when no part does."""
        return self._joined(way, class_settings, self._part_words(way, class_settings))

    def _joined(self, way: Way, class_settings: dict[str, list[str]], parts: list[tuple[str, str | None]]) -> str | None:
        """`words` of the way from its `_part_words`."""
        said = [w for _, w in parts]
        if way.stated:
            stated = self._user_words(way, class_settings, way.stated)
            said.append(f"(as the message says) {stated}" if stated else None)
        kept = [w for w in said if w]
        return " and ".join(dict.fromkeys(kept)) if kept else None

    def _part_words(self, way: Way, class_settings: dict[str, list[str]]) -> list[tuple[str, str | None]]:
        """Each `and` part of the way, with its words in user terms (None where it has none)."""
        return [(part, self._user_words(way, class_settings, part)) for part in positive_parts(way.condition)]

    def _user_words(self, way: Way, class_settings: dict[str, list[str]], code: str) -> str | None:
        def name(node: ast.expr) -> str | None:
            setting = self.settings.setting_at(node, class_settings)
            if setting is None:  # the peer's value, where the way compares a setting with it
                peer = peer_named(fast_unparse(node)) if compared else None
                return Raw(peer) if peer else None
            if setting.side:
                return Raw(f"{setting.side}'s `{setting.name}`")
            return f"{setting.name}` in `{setting.carrier}" if setting.carrier else setting.name

        compared = peer_fix(way, self.catalog) is not None
        unset_never = {s.name for s in way.settings if decided(s.knob, self.catalog)}
        return user_words(code, name, self.profile.vocabulary, unset_never)

def named_in(setting: Setting, error: ErrorSite) -> bool:
    """Whether the message shows or names the setting: then it is what the user got wrong."""
    last = setting.name.rsplit(".", 1)[-1].lstrip("-").replace("-", "_")
    return last in error.message or any(last in p.expr for p in error.placeholders)


def _partial(parts: list[tuple[str, str | None]], at_run: dict[str, str]) -> bool:
    """Whether a `substantive` part of a way (a comparison with the model's own numbers, say) is said
    neither in its words (`parts`) nor in its run-time words: then the words say what must hold, not
    what suffices."""
    return any(w is None and p not in at_run and substantive(p) for p, w in parts)
