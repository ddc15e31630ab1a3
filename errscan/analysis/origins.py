"""Where a value that an internal-looking check tests comes from, when it is not the program's own
state: the process environment, a field the client sends with a request, a status a library or
store answered, the clock (a lease or a timeout that ran out), or a body a client sent to a server
of the package. Such an error is the user's to act on, not a bug; these read the code's own terms.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Callable

from errscan.analysis.advice import report, verb
from errscan.analysis.commands import Setting
from errscan.analysis.phases import with_cause
from errscan.extract.astutil import last_name
from errscan.extract.conditions import parse_expression
from errscan.extract.unparse import fast_unparse
from errscan.analysis.chains import Reach
from errscan.extract.facts import ModuleFacts, TryFact
from errscan.model import ErrorSite, Fix
from errscan.profiles import Profile

if TYPE_CHECKING:
    from errscan.analysis.finder import SettingFinder

TIMED = re.compile(r"(^|_)(timeout|ttl|lease|duration|deadline|expiry|expires|interval)s?($|_)", re.IGNORECASE)
_ENVIRON = re.compile(r"\bos\.environ\b|\bgetenv\(")
EXPIRED = re.compile(r"\b(expired?|expiry|timed out)\b", re.IGNORECASE)  # a message that says a lease or timeout ran out
_RAN_OUT = {False: {"lease", "expiry"}, True: {"timeout"}}  # the timers "expired" and "timed out" name
MAX_TIMERS = 4  # timer settings named for an error that ran out of time
_CLOCK = re.compile(r"\btime\.(time|perf_counter|monotonic)(_ns)?\(\)")
_BODY = re.compile(r"\brequest\.(json|body|form)\(|\w*(json|body)\w*\(\s*request\b")  # what a client sent a server


def decided_outside(error: ErrorSite, own_code: str, chain_codes: list[str], subject: str, timing: str,
                    profile: Profile, timers: list[Setting] = (),  # type: ignore[assignment]
                    foreign: Callable[[str], bool] = lambda receiver: False,
                    answered: Callable[[str], tuple[str, str, str] | None] = lambda code: None,
                    documented: Callable[[str], tuple[str, str] | None] = lambda code: None) -> tuple[str, str, Fix] | None:
    """(kind, summary, fix) for an error no traced setting decides, yet not the program's own state.
    `own_code` and `chain_codes` are deep (locals replaced by what they were set from); `timers`: the
    timeout or lease settings the class reads; `foreign`: whether an object (as code) is of another package;
    `answered`: the call into a library outside the package whose result a condition tests
    (`libraries.library_answer`), the library and what it returned; `documented`: a call of the
    package tested for None and the sentence of its docstring that says when it is
    (`documented.documented_answer`)."""
    does = verb(error, subject)
    text = report(error, profile)
    if _ENVIRON.search(own_code):
        return ("environment",
                f"{subject} {does} this{timing} depending on the environment variables it checks (the condition reads "
                f"the environment): your environment decides it, not a bug.",
                Fix("", None, "Set or unset the environment variable the message names, as the message says."))
    field = client_field([own_code, *chain_codes], profile)
    if field is not None:
        keys = " and ".join(f"`{k}`" for k in field_keys(field, [own_code, *chain_codes]))
        carrying = f" (the keys read on the way: {keys})" if keys else ""
        return ("usage",
                f"{subject} {does} this{timing} only for a request whose `{field}`{carrying} leads here: the client (or "
                f"a proxy in front of the instances) sends them with the request, so check what the request carries "
                f"before suspecting a bug.",
                Fix(field, None, f"Check the `{field}` sent with the request (by the client or the proxy) against "
                                 f"what {subject} expects. If it is as intended, {text[0].lower()}{text[1:]}"))
    status = replied_status(own_code, foreign)
    if status is not None:
        call, code = status
        return ("environment",
                f"{subject} {does} this{with_cause(timing)} `{call}` answers {code}: the library, store or service behind "
                f"that call reports a failure (or that it is full), so its state decides it, not a bug.",
                Fix("", None, f"Look at the log of `{call}` and of the service it talks to for why it answered {code}; "
                              "check that the service is running, reachable from this host and has room."))
    library = answered(own_code)
    if library is not None:
        call, name, returned = library
        call, project = re.sub(r"^self\.", "", call), profile.title or profile.name
        return ("environment",
                f"{subject} {does} this{with_cause(timing)} `{call}` returns {returned}: that value is the answer of "
                f"`{name}`, a library outside {project}, not {project}'s own state, so the install or the version of "
                f"`{name}` is the first thing to check.",
                Fix("", None, f"Check that `{name}` is installed as this {project} release "
                              f"expects (its package and version, built for this machine) and look at its log for why "
                              f"`{call}` returned {returned}. If it is as expected, {text[0].lower()}{text[1:]}"))
    said = documented(own_code)
    if said is not None:
        call, sentence = said
        name = re.sub(r"^self\.", "", call.split("(", 1)[0])
        return ("environment",
                f"{subject} {does} this{with_cause(timing)} `{name}(...)` returns None, which its documentation "
                f"explains: “{sentence}” What it reports decides it, not a setting of yours.",
                Fix("", None, f"The cause is what `{name}` reports (“{sentence}”): look at the log lines before this one "
                              f"for why. If nothing explains it, {text[0].lower()}{text[1:]}"))
    waited = any(_shown(timer, error) for timer in timers)  # "... after {self._defer_timeout}s": the time it waited
    if _CLOCK.search(own_code) or EXPIRED.search(error.message) or waited:  # on the clock, or the message says it ran out
        named = " or ".join(f"`{s.name}`" + (f" in `{s.carrier}`" if s.carrier else "") for s in timers)
        raise_it = f" If it is only slow, raise {named}." if named else ""
        fixes = Fix(timers[0].name if timers else "", None,
                    "Check that the other instance (or service) is running and answers: it did not finish in time, "
                    f"often because it stopped, is overloaded or cannot reach this one.{raise_it}",
                    timers[0].carrier if timers else None)
        return ("environment",
                f"{subject} {does} this{with_cause(timing)} something it waits for does not happen in time (a lease or "
                f"timeout measured on the clock runs out): the other side's health and the time allowed decide it.",
                fixes)
    if any(_BODY.search(code) for code in [own_code, *chain_codes]):
        if _short(own_code):  # fewer than asked for: its room ran out, whatever was registered
            return ("environment",
                    f"{subject} {does} this{with_cause(timing)} a client's request to this server asks for more than the "
                    f"server has left (the check below: it got fewer than the request needs): the server's pool is "
                    f"used up, or too small for what its clients store; not a bug.",
                    Fix("", None, "Give the server more room, or free some: check the size its clients register it "
                                  "with (the capacity they announce when they start) and that they release what they no "
                                  f"longer need; restarting the server empties it. If there is room, {text[0].lower()}{text[1:]}"))
        return ("environment",
                f"{subject} {does} this{with_cause(timing)} a client's request to this server asks for what the server "
                f"does not hold: most often the server restarted (and lost what clients had registered), or the "
                f"client skipped a step; not a bug.",
                Fix("", None, "Restart the clients (the instances using this server) after the server restarts, so "
                              f"they register again. If it happens without a restart, {text[0].lower()}{text[1:]}"))
    if profile.sides_advice and any(re.search(one, error.message) and re.search(other, error.message) for one, other in profile.sides):
        shown = " The message shows the values of each side." if error.placeholders else ""
        return ("configuration",
                f"{subject} {does} this{with_cause(timing)} a value of the other instance does not agree with this "
                f"instance's own (the message speaks of both): most often the two were started with models or "
                f"settings that do not fit together; errscan traced no single setting that decides it.",
                Fix("", None, f"{profile.sides_advice}{shown} If the two setups match, {text[0].lower()}{text[1:]}"))
    return None


def _short(code: str) -> bool:
    """Whether a condition compares how many of something there are, as fewer than (or more than)
    another amount (`len(got) < len(keys)`): a shortage, not something missing."""
    tree = parse_expression(code)
    return any(isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Lt, ast.Gt, ast.LtE, ast.GtE))
               and any(isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id == "len"
                       for side in (node.left, node.comparators[0]))
               for node in (ast.walk(tree) if tree is not None else ()))


def timers(error: ErrorSite, finder: "SettingFinder", class_settings: dict[str, list[str]],
           plugin_settings: dict[str, list[str]]) -> list[Setting]:
    """The timeout or lease settings the class (else the plugin) reads that the message shows (a
    placeholder `self._defer_timeout`, read from a setting) or spells out (`transfer_timeout`); else
    those whose words it uses (`lease` in "before lease expired", or "expired" alone). Another timer of
    the class may time something else."""
    shown = [s for p in error.placeholders if re.fullmatch(r"self\.\w+", p.expr) and TIMED.search(p.expr.split(".")[1])
             and (s := finder.setting_at(parse_expression(p.expr), class_settings)) is not None]
    found = finder.read_by_class(class_settings, TIMED) + finder.read_by_class(plugin_settings, TIMED)
    said = EXPIRED.search(error.message)
    words = set(re.findall(r"[a-z]+", error.message.lower())) | (_RAN_OUT[said.group(1).lower().startswith("timed")] if said else set())
    spelled = [s for s in found if re.search(rf"\b{re.escape(s.name.rsplit('.', 1)[-1])}\b", error.message)]
    named = [s for s in found if words & {w for w in re.split(r"[_-]", s.name.rsplit(".", 1)[-1].lower()) if TIMED.fullmatch(w)}]
    chosen = shown + spelled or named  # a timer the message shows or spells out is the one; else those its words name
    return [s for i, s in enumerate(chosen) if s.name not in {t.name for t in chosen[:i]}][:MAX_TIMERS]


def _shown(timer: Setting, error: ErrorSite) -> bool:
    """Whether a placeholder of the message is the timer's own value (`self._defer_timeout`)."""
    last = timer.name.rsplit(".", 1)[-1]
    return any(re.fullmatch(rf"self\._?{re.escape(last)}", p.expr) for p in error.placeholders)


def client_field(codes: list[str], profile: Profile) -> str | None:
    """The field of a request, sent by the client, that one of these (deep) conditions reads."""
    return next((f for f in profile.client_fields for code in codes if re.search(rf"\b{re.escape(f)}\b", code)), None)


def field_keys(field: str, codes: list[str]) -> list[str]:
    """The keys these conditions read of `field` (`'k' in x.field`, `x.field.get('k')`, `x.field['k']`)."""
    value = rf"(?:getattr\([^()]*\b{field}\b[^()]*\)|[\w.]*\b{field}\b)"
    found = [m.group(1) or m.group(2) for code in codes for m in re.finditer(
        rf"'(\w+)' (?:not )?in {value}|{value}(?:\.get\(|\[)'(\w+)'", code)]
    return list(dict.fromkeys(found))


def replied_status(code: str, foreign: Callable[[str], bool]) -> tuple[str, str] | None:
    """(call, status in words) where the condition compares what a call on another object returned with a
    failure status (`NO_HANDLE in set(self.store.put(...))`), or the return code of a call on an object
    of another package (`foreign(receiver)`) with 0 (`engine.initialize(...) != 0`): that object answered."""
    tree = parse_expression(code)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Compare) or len(node.comparators) != 1:
            continue
        sides = (node.left, node.comparators[0])
        for side, other in (sides, sides[::-1]):
            call = _outside_call(side)
            if call is None:
                continue
            receiver = fast_unparse(call.func.value)  # type: ignore[attr-defined]
            failed = last_name(other) and _FAILURE.search(last_name(other))
            coded = isinstance(other, ast.Constant) and type(other.value) is int and other.value == 0 and side is call \
                and isinstance(node.ops[0], (ast.NotEq, ast.Lt, ast.Gt)) and foreign(receiver)
            if failed or coded:
                name = re.sub(r"^self\.", "", fast_unparse(call.func)).replace("().", ".")
                differs = isinstance(node.ops[0], (ast.NotEq, ast.IsNot))
                return name, f"{'other than ' if differs else ''}`{fast_unparse(other)}`"
    return None


def _outside_call(node: ast.expr) -> ast.Call | None:
    """A call of a method on another object (not `self.m()`, not one on a local) within a value."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and not (
                isinstance(inner.func.value, ast.Name) and inner.func.value.id == "self"):
            return inner
    return None


# A constant that names a failure or a refusal (`MOONCAKE_NO_AVAILABLE_HANDLE`, `Status.ERROR`).
_FAILURE = re.compile(r"^[A-Z0-9_]*(ERROR|ERR|FAIL|FAILED|FAILURE|NO_[A-Z]+|NOT_[A-Z]+|UNAVAILABLE|BUSY|FULL|TIMEOUT|"
                      r"TIMED_OUT|NACK|REJECT[A-Z]*|INVALID)[A-Z0-9_]*$")


def foreign(receiver: str, class_settings: dict[str, list[str]], module: ModuleFacts | None, profile: Profile) -> bool:
    """Whether an object, as code (`TransferEngine()`, `self.engine` set to one), is made by a class the
    module imports from another package: what it answers comes from outside the project."""
    sources = class_settings.get(receiver[5:], []) if receiver.startswith("self.") else [receiver]
    made = {m.group(1) for source in sources if (m := re.fullmatch(r"(\w+)\(.*\)", source))}
    imported = {name: target for names in (module.imports.values() if module else ()) for name, target in names.items()}
    return any(name in imported and not imported[name].startswith(f"{profile.package}.") for name in made)


def keys_passed(found: Reach, module: ModuleFacts | None) -> list[str]:
    """The keys that the last calls on the way, made in the error's own module, read their arguments
    from (`_parse_size(config.get("size"))`): what the value of the wrong form is called in the file."""
    calls = module.calls if module is not None else ()
    keys = [inner.literal_args[0] for chain in (*found.chains, *found.ways) if chain.sites
            and (last := chain.sites[-1].call) is not None and last in calls
            for inner in calls if inner.caller == last.caller and (inner.passed_to or "").startswith(f"{last.callee}:")
            and last.line <= inner.line <= last.line + 3 and inner.callee.endswith(".get") and inner.literal_args
            and inner.literal_args[0]]
    return list(dict.fromkeys(keys))


_CONNECT = re.compile(r"(^|\.)(connect|create_connection|open_connection)$")  # the call that names the other side
# A web request's address: the first argument (or `url=`) of a client's or session's request method.
_REQUEST = re.compile(r"(^|\.)(client|session|requests|httpx|http)\w*\.(get|post|put|patch|delete|request|stream):(0|url)$",
                      re.IGNORECASE)


def read_here(settings: dict[str, list[str]], error: ErrorSite, module: ModuleFacts | None) -> dict[str, list[str]]:
    """The class's `self.x` settings that the error's function (or a function nested in it) reads: an
    address the class binds elsewhere is not the one whose failure this reports; and of those, the
    ones read where it connects (not an address it only sends along), when it connects itself. In a
    handler, only what its `try` guards reads (`tried.py`) and where the function connects: a socket
    bound before it, or an address only sent along, is not what failed."""
    if module is None:
        return settings
    calls = [c for c in module.calls if c.caller == error.function or c.caller.startswith(f"{error.function}.")]
    connecting = {c.line for c in calls if c.kind == "call" and _CONNECT.search(c.callee)}
    reads = [(c.callee.split(".")[1], c.line in connecting) for c in calls if c.kind == "read" and c.callee.startswith("self.")]
    tried = handling(error, module)
    named = False  # a request the `try` makes names the other side, whether or not a setting gives its address
    if tried is not None:
        named = any(_REQUEST.search(f"{via.rpartition(':')[0]}:0") for _, via in tried.reads)
        reads = [(a, True) for a, connects in reads if connects] + [
            (a, bool(_CONNECT.search(via.rpartition(":")[0]) or _REQUEST.search(via))) for a, via in tried.reads]
    read = {a for a, connects in reads if connects} or (set() if named else {a for a, _ in reads})
    return {attribute: sources for attribute, sources in settings.items() if attribute in read}


def handling(error: ErrorSite, module: ModuleFacts) -> TryFact | None:
    """The innermost `try` of the error's function with a handler the error is in."""
    around = [t for t in module.tries if t.scope == error.function
              and any(h.line <= error.line <= h.end_line for h in t.handlers)]
    return max(around, key=lambda t: t.line, default=None)
