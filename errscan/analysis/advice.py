"""What to tell a user when no setting decides an error: whom to report a bug to and with what,
what outside the program failed, and an interface method that a plugin of the user's own lacks.

These read the error (its exception, message, function) and its chains, never per-error prose.
"""

from __future__ import annotations

import re

from errscan.analysis.chains import FoundChain, Reach
from errscan.extract.conditions import Condition
from errscan.model import ErrorSite
from errscan.profiles import Profile

BACKGROUND = frozenset({"thread", "process", "executor", "task", "callback"})  # a call that runs later, elsewhere
UNSUPPORTED = re.compile(r"not (yet )?supported|unsupported|does not support|only works|requires", re.IGNORECASE)
_RAISES = re.compile(r"raises\(\s*\(?([\w., ]+?)\)?\s*,\s*(.+)\)\s*$")

# What failed outside the program, told by the words of its message, function and guarded call:
# (pattern, what failed, what to check). First match wins.
_OUTSIDE = (
    (r"\b(parse|invalid|malformed|unsupported type|unknown|non utf8)", "a value it read (from a file, a variable or a "
     "message) does not have the form it expects",
     "Correct the value the message shows, where you set it: it must have the form the message names."),
    (r"\b(import|install|not available|module)", "a package it needs could not be imported",
     "Install the package the message names in the same Python environment as {project} (the message says which)."),
    (r"\b(handshake|connect|socket|zmq|send|recv|notif|ping|rpc|server|http|remote|peer|bootstrap|post|sender|xfer)",
     "talking to another process or instance (the peer, a server) failed",
     "Check that the other instance or server is running and reachable from this host at the address and port it "
     "was given (no firewall in between), and that both sides run the same {project} version."),
    (r"\b(file|open|read|write|path|close|fd|mount|disk|save|load|deregister)", "a file operation failed",
     "Check that the path in the message exists and that this process may read and write it (and has disk space)."),
    (r"\b(memory|register|cuda|device|alloc|tensor|gpu)", "the device or its memory refused an operation",
     "Check free device memory and that the device is visible to this process; lower `--gpu-memory-utilization` "
     "if memory is short."),
)


def subject(error: ErrorSite, project: str) -> str:
    """What raises it, as a user knows it: the plugins that reach it, else the project."""
    connectors = error.trigger.connectors if error.trigger else ()
    if not connectors:
        return project
    if len(connectors) <= 2:
        return " and ".join(connectors)
    return f"{connectors[0]} (and {len(connectors) - 1} other connectors)"


def report(error: ErrorSite, profile: Profile) -> str:
    """What to report, where and with which version (the project's own command prints it)."""
    project = profile.title or profile.name
    connectors = error.trigger.connectors if error.trigger else ()
    where = f"the {project} issue tracker" if profile.repo else f"the {project} maintainers"
    named = f" (name {', '.join(connectors)} in the title)" if connectors else ""
    version = (f"the output of `{profile.report_command}` (your {project} version, devices and packages)"
               if profile.report_command else f"your {project} version")
    text = (f"Report it at {where}{named} with the full message and traceback, the command you ran and {version}; "
            f"a newer {project} release may already fix it.")
    refused = unsupported_clause(error.message)
    if refused:
        return ("Change the part of your setup that the message says is not supported (the model or the setting it "
                f"names). If it should work, {text[0].lower()}{text[1:]}")
    return text


def unsupported_clause(message: str) -> str:
    """The clause of a message that names what is not supported, quoted ("" when none does)."""
    clauses = [c.strip() for c in re.split(r"[;()]|\.\s", message) if UNSUPPORTED.search(c)]
    return f"“{re.sub(r'{[^{}]*}', '…', clauses[0]).rstrip('.')}”" if clauses else ""


def outside(error: ErrorSite, own: Condition, profile: Profile) -> tuple[str, str]:
    """What outside the program failed, in words, and what to check: from the message, the
    function and the call the `try` guards."""
    guarded = next((m.group(2) for t in own if t.pseudo and (m := _RAISES.match(t.code))), "")
    told = re.sub(r"[_.()\[\]{}:,'-]", " ", f"{error.message} {error.function} {guarded}".lower())
    project = profile.title or profile.name
    for pattern, what, check in _OUTSIDE:
        if re.search(pattern, told):
            return what, check.format(project=project)
    return "an operation outside its settings failed", "Look at the error logged with it: it names what failed."


def cause_in_message(error: ErrorSite) -> bool:
    """Whether the message carries the caught exception (`{e}`), so the user sees what failed."""
    return any(re.fullmatch(r"(str|repr)?\(?(e|exc|err|error|ex)\)?(!r|!s)?", p.expr.strip()) for p in error.placeholders)


def background(chain: FoundChain) -> str | None:
    """The function a chain runs in a background thread, task or callback, if it does: the
    work then happens later, not during the entry's own phase."""
    for site, node in zip(chain.sites, chain.nodes[1:]):
        if site.resolution in BACKGROUND:
            return ".".join(node.rsplit(".", 2)[-2:])
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
