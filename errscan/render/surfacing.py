"""What an error's page says first: what the user sees of it (`ErrorSite.surfaces_as`) in words.

An error another exception replaces, a handler logs, or an error response carries never shows
itself: the page leads with what does show ("you will see `MoRIIOError: ...` in the log, not this
AssertionError") and says which handler makes it so. Sentences are plain text with `code` spans
(rendered by the page's `inline_code` filter); links go to the catalogued sites the user sees.
"""

from __future__ import annotations

from dataclasses import dataclass

from errscan.lookup.wrapped import compose, caught_name
from errscan.model import ErrorSite, Surface


@dataclass(frozen=True)
class Seen:
    text: str  # one sentence, with `code` spans
    link: str | None  # the page of the site the user sees, relative to the site's root
    final: bool


def seen(error: ErrorSite) -> list[Seen]:
    """The sentences, what the user ends up seeing first; [] when the error reaches the user as
    itself on every way in (the page's message is then what is seen)."""
    surfaces = error.surfaces_as
    if not surfaces or all(s.how == "raised" for s in surfaces if s.final):
        return []
    total = max((i for s in surfaces for i in s.chains), default=-1) + 1
    found = [Seen(_cap(_sentence(error, s, total)), _link(s), True) for s in surfaces if s.final]
    found += [Seen(_step(s), _link(s), False) for s in surfaces if not s.final]
    return found


def _sentence(error: ErrorSite, surface: Surface, total: int) -> str:
    way = f"on {len(surface.chains)} of its {total} ways in, " if surface.chains and total > 1 else ""
    label = error.label
    caught = caught_name(surface.caught)
    message = compose(surface.message, caught, error.message) or surface.message
    log_message = compose(surface.log_message or "", caught, error.message) or surface.log_message
    logged = f", logs {_record(surface.level)} `{log_message}`" if log_message else ""
    where = f"`{_file(surface.path)}:{surface.caught_line}`"
    by = f"`{surface.caught}` at {where} in `{surface.function}`"
    if surface.how == "raised":
        return f"{way}it reaches you as this {label} itself."
    if surface.how == "reraised":
        return (f"{way}you will see `{_shown(surface.exception, message)}` in the log, not this {label}: "
                f"{by} catches it{logged} and raises `{surface.exception}` in its place (line {surface.line}).")
    if surface.how == "logged":
        return (f"{way}you will see {_record(surface.level)} `{message}` "
                f"(written at `{_file(surface.path)}:{surface.line}`), not this {label}: {by} catches it and logs it; "
                f"the program goes on.")
    if surface.how == "http":
        status = f"HTTP {surface.status}" if surface.status is not None else "an HTTP error"
        text = f" with `{_shown(surface.exception, message)}`" if message else ""
        return (f"{way}a client sees {status}{text}, not this {label}: {by} catches it{logged} "
                f"and answers with that status (line {surface.line}).")
    if surface.how == "response":
        return (f"{way}it is not raised to you: {by} catches it{logged} and sends an error response "
                f"(`{surface.response}`, line {surface.line}) to the peer or client that asked, with the message in it.")
    return f"{way}nothing shows it: {by} catches it and goes on without raising or logging it."


def _step(surface: Surface) -> str:
    where = f"`{_file(surface.path)}:{surface.line}`"
    if surface.how == "logged":
        return f"On the way out it is logged as {_record(surface.level)} `{surface.message}` ({where}), then raised again."
    return f"On the way out it is raised again as `{_shown(surface.exception, surface.message)}` ({where})."


def _record(level: str | None) -> str:
    """`logger.exception` writes an ERROR record followed by the traceback."""
    if level == "exception":
        return "an ERROR log record (with the traceback)"
    name = (level or "").upper()
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name} log record"


def _shown(exception: str, message: str) -> str:
    return f"{exception.rsplit('.', 1)[-1]}: {message}" if message else exception.rsplit(".", 1)[-1]


def _link(surface: Surface) -> str | None:
    return f"errors/{surface.id}/index.html" if surface.id else None


def _file(path: str | None) -> str:
    return (path or "").rsplit("/", 1)[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else ""
