"""What to tell a user when no setting decides an error: whom to report a bug to and with what,
what outside the program failed, and an interface method that a plugin of the user's own lacks.

These read the error (its exception, message, function) and its chains, never per-error prose.
"""

from __future__ import annotations

import ast
import re

from errscan.analysis.chains import Reach
from errscan.analysis.search import FoundChain
from errscan.analysis.commands import Setting
from errscan.extract.astutil import dotted
from errscan.extract.conditions import Condition, guarded_statements, parse_expression
from errscan.extract.facts import ModuleFacts
from errscan.model import ErrorSite, Explanation, Fix
from errscan.profiles import Profile

BACKGROUND = frozenset({"thread", "process", "executor", "task", "callback"})  # a call that runs later, elsewhere
UNSUPPORTED = re.compile(r"not (yet )?supported|unsupported|does not support|only works|requires", re.IGNORECASE)
PEER = "talking to another process or instance"  # how `outside` words a failure of the peer or a server

FILE_WORDS = r"\b(file|open|read|write|path|close|fd|mount|disk|save|load|deregister)"  # of a file operation
# What failed outside the program, told by the words of its message, function and guarded call:
# (pattern, facet, what failed, what to check). First match wins; the facet picks the command that checks it.
_OUTSIDE = (
    (r"\b(parse|invalid|malformed|unsupported type|unknown \w|non utf8)", "value", "a value it read (from a file, a "
     "variable or a message) does not have the form it expects",
     "Correct the value the message shows, where you set it: it must have the form the message names."),
    (r"\b(import|install|not available|module)", "package", "a package it needs could not be imported",
     "Install the package the message names in the same Python environment as {project} (the message says which)."),
    (r"\b(handshake|connect|socket|zmq|send|recv|notif|ping|rpc|server|http|remote|peer|bootstrap|post|sender|xfer|"
     r"pull|push|transfer)", "peer",
     PEER + " (the peer, a server) or a transfer with it failed",
     "Look at the other instance's log (the one this one pulls from or sends to) for the error on its side; check "
     "that it is running and reachable from this host at the address and port it was given (no firewall in between), "
     "and that both sides run the same {project} version."),
    (FILE_WORDS, "file", "a file operation failed",
     "Check that the path in the message exists and that this process may read and write it (and has disk space)."),
    (r"\b(memory|register|cuda|device|alloc|tensor|gpu)", "device", "the device or its memory refused an operation",
     "Check free device memory and that the device is visible to this process; lower `--gpu-memory-utilization` "
     "if memory is short."),
)


# Exceptions that say a value had the wrong form or type (not that an operation outside failed).
_VALUE_ERRORS = frozenset({"ValueError", "TypeError", "UnicodeDecodeError", "UnicodeError", "JSONDecodeError",
                           "DecodeError", "ValidationError"})
_LOOKUP_ERRORS = frozenset({"KeyError", "IndexError"})  # an entry looked up is not there
_LOOKED_UP = ("an entry it looks up (a key or an index) is not there",
              "The message names what is missing; the log lines before it may say why it was never added or was already "
              "removed.")
# A value that came from a socket or a queue of another process (`sock.recv_multipart()`).
_RECEIVED = re.compile(r"\.recv\w*\(")
_RECEIVED_VALUE = ("data it received from another process or instance does not have the form it expects",
                   "Check that both sides run the same {project} version with matching connector settings: the other "
                   "side sent data this one cannot read. The message says what could not be read.")

# A handler after one that takes the failures to connect (`except httpx.ConnectError: retry`): the other
# side was reached, so what it logs is the other side's answer (an error status) or a later failure.
_CONNECTION = re.compile(r"Connect(ion)?(Error|Refused\w*)$")
_REACHED = ("the other side (a server or another instance) answered with an error, or the exchange with it failed "
            "in another way than a refused connection",
            "A refused connection is not logged here (the handler for `{handled}` before this one takes it), so the "
            "other side was most likely reached and answered with an error: look at its log (the server's or the other "
            "instance's) for why, rather than at whether its port is open.")

# A guarded call that only releases something of this process (`sock.close()`): no peer is involved.
_RELEASE = re.compile(r"[\w.\[\]]+\.(close|shutdown|terminate|destroy|unlink|cleanup|release|stop|join)\(.*\)")
_RELEASED = ("release", "releasing a resource of this process (a socket, a file, a thread) failed while it was being "
             "closed", "This happens while letting go of the resource, so work already done is not affected. If it "
             "repeats or the process does not exit, look at what else still holds the resource.")


def subject(error: ErrorSite, project: str) -> str:
    """What raises it, as a user knows it: the plugins that reach it, else the project."""
    connectors = error.trigger.connectors if error.trigger else ()
    if not connectors:
        return project
    if len(connectors) <= 2:
        return " and ".join(connectors)
    return f"{connectors[0]} (and {len(connectors) - 1} other connectors)"


def verb(error: ErrorSite, subject: str) -> str:
    """"raises" or "logs", agreeing with a subject of two connectors ("A and B raise")."""
    stem = "log" if error.kind == "log" else "raise"
    return stem if " and " in subject.split(" (", 1)[0] else stem + "s"


def report(error: ErrorSite, profile: Profile) -> str:
    """What to report, where and with which version (the project's own command prints it)."""
    project = profile.title or profile.name
    connectors = error.trigger.connectors if error.trigger else ()
    where = f"the {project} issue tracker" if profile.repo else f"the {project} maintainers"
    named = f" (name {', '.join(connectors)} in the title)" if connectors else ""
    version = (f"the output of `{profile.report_command}` (your {project} version, devices and packages)"
               if profile.report_command else f"your {project} version")
    # a log record has no traceback of its own (one with `exc_info` prints it among the lines around it)
    evidence = "the log lines around it" if error.kind == "log" and error.level != "exception" else "the full message and traceback"
    text = (f"Report it at {where}{named} with {evidence}, the command you ran and {version}; "
            f"a newer {project} release may already fix it.")
    refused = unsupported_clause(error.message)
    if refused:
        return ("Change the part of your setup that the message says is not supported (the model or the setting it "
                f"names). If it should work, {text[0].lower()}{text[1:]}")
    return text


def unsupported_clause(message: str) -> str:
    """The clause of a message that names what is not supported, quoted ("" when none does)."""
    shown = re.sub(r"{[^{}]*}", "…", message)  # first: a placeholder's own brackets split no clause (`{tuple(shape)}`)
    clauses = [c.strip() for c in re.split(r"[;()]|\.\s", shown) if UNSUPPORTED.search(c)]
    return f"“{clauses[0].rstrip('.')}”" if clauses else ""


def _one_source(code: str) -> str:
    """The statement a `raises(E, ...)` term names when it names one; "" when it names several
    (their words do not tell which of them failed) or the term is another pseudo-call."""
    statements = guarded_statements(code)
    return ast.unparse(statements[0]) if len(statements) == 1 else ""


def outside(error: ErrorSite, own: Condition, profile: Profile, module: ModuleFacts | None = None,
            files: bool | None = None) -> tuple[str, str, str]:
    """What outside the program failed, in words, what to check, and its facet (see `_OUTSIDE`):
    from what the `try` catches when that alone tells (a value of the wrong form, received or read;
    an entry not there), else from the message, the function and the call the `try` guards. `files`: whether the guarded code
    touches files (`fileio.py`); False rules the file facet out whatever the words say."""
    guarded = next((g for t in own if t.pseudo and (g := _one_source(t.code))), "")
    # "|" keeps the message, the function and the call apart: "unknown" is the wrong form of a value only
    # before what it qualifies ("unknown backend"), not as an outcome ("marking tiers unknown")
    told = re.sub(r"[_.()\[\]{}:,'-]", " ", f"{error.message} | {error.function} | {guarded}".lower())
    project = profile.title or profile.name
    absorbing = next((m for t in own if t.pseudo for m in _absorbing(t.code, error, module)), None)
    if absorbing is not None:
        return (f"an exception escaped the calls its `try` guards, although `{absorbing}` catches every exception "
                "itself: what reaches here is a failure of that method's own error handling or of the other calls",
                f"The log lines just before this one (from `{absorbing}`'s own handling) say what went wrong first. If they do not explain it, {report(error, profile)[0].lower()}"
                f"{report(error, profile)[1:]}", "")
    if _RELEASE.fullmatch(guarded):
        facet, what, check = _RELEASED
        return what, check, facet
    caught = _caught(own)
    if caught and caught <= _LOOKUP_ERRORS:  # what it catches says what went wrong, whatever the words say
        return _LOOKED_UP[0], _LOOKED_UP[1], "lookup"
    if caught and caught <= _VALUE_ERRORS | _LOOKUP_ERRORS:
        if any(_RECEIVED.search(t.deep or t.code) for t in own):
            return _RECEIVED_VALUE[0], _RECEIVED_VALUE[1].format(project=project), "received"
        _, facet, what, check = _OUTSIDE[0]
        return what, check.format(project=project), facet
    for pattern, facet, what, check in _OUTSIDE:
        if re.search(pattern, told) and not (facet == "file" and files is False):
            handled = next((n for n in _excluded(own) if _CONNECTION.search(n)), None) if facet == "peer" else None
            if handled:  # the failures to connect go to that handler: here the other side was reached
                return _REACHED[0], _REACHED[1].format(handled=handled), "reached"
            return what, check.format(project=project), facet
    if (error.exception or "").rsplit(".", 1)[-1] in profile.http_errors:  # a server's answer: the client that asked gets it
        return ("an operation outside its settings failed while it served a request, which it answers with an HTTP error",
                "This message goes back to the client that sent the request, as the `detail` of the HTTP error answer "
                "(a client may log only the status code, not this text); it names what failed.", "")
    return "an operation outside its settings failed", "Look at the error logged with it: it names what failed.", ""


def _caught(own: Condition) -> frozenset[str]:
    """The exception classes (last name) the `try` of the `raises(E, ...)` terms catches; empty when none."""
    return frozenset(n.rsplit(".", 1)[-1] for n in _classes(own, lambda call: call.args[:1]))


def _excluded(own: Condition) -> list[str]:
    """The exception classes (dotted) that an earlier handler of the same `try` takes (`other_than=`)."""
    return _classes(own, lambda call: [k.value for k in call.keywords if k.arg == "other_than"])


def _classes(own: Condition, part) -> list[str]:
    """The exception classes named by `part` of each `raises(...)` term (a class or a tuple of them)."""
    names: list[str] = []
    for term in own:
        tree = parse_expression(term.code) if term.pseudo else None
        if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "raises":
            for named in part(tree):
                names += [dotted(node) or "" for node in (named.elts if isinstance(named, ast.Tuple) else [named])]
    return names


def _absorbing(code: str, error: ErrorSite, module: ModuleFacts | None) -> list[str]:
    """The methods of the error's own class, among the calls a `raises(...)` term guards, that catch
    every exception themselves (`except Exception:` that neither raises nor re-raises)."""
    tree = parse_expression(code)
    if module is None or "." not in error.function or not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name)
                                                           and tree.func.id == "raises"):
        return []
    owner = error.function.rsplit(".", 1)[0]
    methods = [c.func.attr for c in tree.args[1:] if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
               and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"]
    return [m for m in methods if any(
        t.scope == f"{owner}.{m}" and any(set(h.types) <= {"Exception", "BaseException"} and not any(
            a.kind in ("raise", "reraise") for a in h.actions) for h in t.handlers) for t in module.tries)]


def check_command(facet: str, pointers: list[Setting], profile: Profile) -> str | None:
    """A command whose output shows whether what failed outside works: the peer's port open from
    here, the path there and writable with space left, the file a value was read from, the devices
    this process sees. `pointers`: the settings that give the path (their names stand for the values)."""
    def shown(setting: Setting | None, fallback: str) -> str:
        return f"<{setting.name.rsplit('.', 1)[-1].lstrip('-')}>" if setting else fallback

    if facet == "peer":  # the settings name this instance's address as often as the peer's: none is shown,
        thirds = [s for s in pointers if relay(s, profile.relays)]  # but a proxy's is the one this instance dials
        host = next((s for s in thirds if not re.search(r"port", s.name.rsplit(".", 1)[-1])), None)
        port = next((s for s in thirds if re.search(r"port", s.name.rsplit(".", 1)[-1])), None)
        if thirds and len(thirds) == len(pointers) and host and port:
            return f"nc -vz {shown(host, '')} {shown(port, '')}"
        return "nc -vz <peer-host> <peer-port>"
    if facet == "file":
        path = shown(pointers[0] if pointers else None, "<path>")
        return f"ls -ld {path} && df -h {path}"
    if facet == "value" and pointers:  # the file the values were read from
        return f'cat "${pointers[0].name}"' if pointers[0].knob.kind == "env" else f"cat {shown(pointers[0], '')}"
    if facet == "device":
        return profile.report_command or None
    return None


def cause_in_message(error: ErrorSite, handler: bool = False) -> bool:
    """Whether the message carries the caught exception (`{e}`) or an error received from elsewhere
    (`{response.err_msg}`), so the user sees what failed; in a `handler`, a local it put the error's
    text in (`{err_msg}`) counts too."""
    local = r"|(err|error)_?(msg|message|reason)" if handler else ""
    return any(re.fullmatch(r"(str|repr)?\(?(e|exc|err|error|ex)\)?(!r|!s)?", p.expr.strip())
               or re.fullmatch(rf"[\w.]+\.(err|error)_?(msg|message|reason)?{local}", p.expr.strip()) for p in error.placeholders)


def handed_over(chain: FoundChain) -> tuple[str, str] | None:
    """(the function, how) where a chain hands its work over to run later, if it does: a background
    thread, task or callback (BACKGROUND), or a function registered to be called (`registered`); the
    work then happens later, not during the entry's own phase."""
    for site, node in zip(chain.sites, chain.nodes[1:]):
        if site.resolution in BACKGROUND or site.resolution == "registered":
            return ".".join(node.rsplit(".", 2)[-2:]), site.resolution
    return None


def unimplemented(error: ErrorSite, own: Condition, found: Reach, profile: Profile) -> str | None:
    """An unconditional `NotImplementedError` of an interface method that no chain in the package
    reaches: the package's own classes override it, so a plugin of the user's own lacks it."""
    if error.exception.rsplit(".", 1)[-1] != "NotImplementedError" or own or found.chains or "." not in error.function:
        return None
    owner, method = error.function.rsplit(".", 1)
    where = ""
    if profile.plugin_module_setting:
        where = f" (one loaded with `{profile.plugin_module_setting}`)"
    return (f"`{owner}.{method}` is an interface method that classes built on `{owner}` must override; no code in "
            f"{profile.title or profile.name} reaches this base version, so it is raised for a class of your own"
            f"{where} that declares `{owner}` without implementing `{method}`.")


def required(message: str) -> str:
    """The sentence of a message that says what something must do, quoted ("" when none does)."""
    sentences = [c.strip() for c in re.split(r"(?<=\.)\s+", message) if re.search(r"\b(must|should|needs? to)\b", c)]
    return f"“{re.sub(r'{[^{}]*}', '…', sentences[0]).rstrip('.')}”" if sentences else ""


def own_class(error: ErrorSite, setting: Setting, when: str | None, where: str | None, profile: Profile) -> Explanation:
    """Raised for a class of the user's own (the module setting names it): the class is to change."""
    project = profile.title or profile.name
    named = f"`{setting.name}` in `{setting.carrier}`" if setting.carrier else f"`{setting.name}`"
    first = when.split("; or ")[0] if when else None
    asked = required(error.message)
    summary = (f"{project} raises this{f' {first}' if first else ''} for a class of your own: the one loaded from "
               f"the module {named} names, which does not have the form {project} needs.")
    text = (f"Change that class as the message asks: {asked}." if asked else
            "Change that class so that what the message states no longer holds.")
    return Explanation(summary, "usage", when, where, (Fix(setting.name, None, text, setting.carrier),))


def pointer_fix(pointers: list[Setting], facet: str, keys: list[str], relays: tuple[tuple[str, str], ...] = ()) -> tuple[Fix, ...]:
    """Where the user gives the address, port or path that failed (and, for a value read from a file,
    its keys): the settings to check. A peer's address is given on both instances; a third party's
    (`relays`: a proxy) is one this instance connects to."""
    if not pointers:
        return ()
    where = where_given(pointers)
    if facet == "peer":
        third = {s.name: relay(s, relays) for s in pointers}
        peers = [s for s in pointers if third[s.name] is None]
        texts = [f"The addresses and ports come from {where_given(peers)}: check them on both instances (each must give one "
                 "that the other can reach)."] if peers else []
        for what in dict.fromkeys(w for w in third.values() if w):
            named = [s for s in pointers if third[s.name] == what]
            texts.append(f"Check that this instance can reach {what} at the address and port given in {where_given(named)}.")
        text = " ".join(texts)
    elif facet == "reached":  # which server or instance answered, not whether it can be reached
        text = f"The other side is the one at the address given in {where}: its log says why it answered with an error."
    elif facet == "value":
        named = " or ".join(f"`{k}`" for k in keys)
        text = f"The value is read from the file {where} names{f' (its key {named})' if named else ''}: correct it there."
    else:
        defaults = [f"`{s.default}`" for s in pointers if isinstance(s.default, str) and s.default]
        text = f"The path comes from {where}{f' (default {defaults[0]})' if len(defaults) == 1 else ''}: check it there."
    return (Fix(pointers[0].name, None, text, pointers[0].carrier),)


def relay(setting: Setting, relays: tuple[tuple[str, str], ...]) -> str | None:
    """The third party (a proxy) whose address the setting gives, per the profile's `relays`."""
    return next((what for pattern, what in relays if re.search(pattern, setting.name.rsplit(".", 1)[-1])), None)


def where_given(settings: list[Setting]) -> str:
    return " and ".join(f"`{s.name}`" + (f" in `{s.carrier}`" if s.carrier else "") for s in settings)
