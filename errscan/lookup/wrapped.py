"""The messages an error shows through what wraps it, so that a pasted wrapper leads to the origin.

An error another exception replaces (`raise MoRIIOError(f"Failed to register local memory: {e}")
from e`) or a handler logs (`logger.error("Error processing request: %s", e)`) reaches the user
inside the wrapper's message. Where the wrapper's template prints the caught exception itself
(`{e}`, `{str(e)}`), the origin's template put in its place is the message the user sees; each
such composed message is looked up like a catalogued one, at the wrapper's place (its file, line,
exception or level), and a match stands for the origin, with the wrapper named. Search pages
index the same composed messages (errscan/render/search.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from errscan.match import split_template
from errscan.model import ErrorSite, Surface

_SHOWN = ("raised", "swallowed")  # nothing wraps the message there


@dataclass(frozen=True)
class SeenAs:
    origin: ErrorSite
    surface: Surface
    view: ErrorSite  # the origin as the wrapper shows it: the wrapper's place and name, the composed message


def seen_as(errors: tuple[ErrorSite, ...] | list[ErrorSite]) -> list[SeenAs]:
    """Every composed message of `errors`' surfaces, each once per origin and wrapper: the wrapper's
    message (a re-raise, an HTTP error, a log record), and the record a handler logs on the way."""
    by_id = {e.id: e for e in errors}
    found: list[SeenAs] = []
    for origin in errors:
        if origin.kind == "log" or not _has_text(origin.message):
            continue
        done: set[tuple[str, str, int | None]] = set()
        for surface in origin.surfaces_as:
            if surface.how in _SHOWN:
                continue
            caught = caught_name(surface.caught)
            for template, logged in _shown_templates(surface):
                composed = compose(template, caught, origin.message)
                line = surface.log_line if logged and surface.how != "logged" else surface.line
                key = (composed or "", surface.path or "", line)
                if composed is None or key in done:
                    continue
                done.add(key)
                found.append(SeenAs(origin, surface, _view(origin, surface, composed, logged, line, by_id)))
    return found


def _shown_templates(surface: Surface) -> list[tuple[str, bool]]:
    """(template, whether it is a log record) of what the user may see of a surface."""
    shown = []
    if surface.message:
        shown.append((surface.message, surface.how == "logged"))
    if surface.log_message and surface.how != "logged":
        shown.append((surface.log_message, True))
    return shown


def _view(origin: ErrorSite, surface: Surface, composed: str, logged: bool, line: int | None, by_id: dict) -> ErrorSite:
    """The origin at the place the composed message is written: the catalogued site there, if any."""
    site = by_id.get(surface.id or "")
    place = site if site is not None and site.line == line else None
    return msgspec.structs.replace(
        origin,
        message=composed,
        kind="log" if logged else "raise",
        level=surface.level if logged else None,
        exception="" if logged else surface.exception,
        path=place.path if place else (surface.path or origin.path),
        line=place.line if place else (line or origin.line),
        end_line=place.end_line if place else (line or origin.end_line),
        function=place.function if place else (surface.function or origin.function),
    )


def compose(template: str, caught: str | None, inner: str) -> str | None:
    """`template` with each placeholder that prints the caught exception (`{e}`, `{str(e)}`,
    `{e!s}`) replaced by `inner`, the origin's template; None when none does."""
    if not caught or not template:
        return None
    printed = {caught, f"str({caught})", f"{caught}!s"}
    parts, replaced = [], False
    for piece in split_template(template):
        if piece.is_field and piece.text.strip() in printed:
            parts.append(inner)
            replaced = True
        elif piece.is_field:
            parts.append("{" + piece.text + "}")
        else:
            parts.append(piece.text.replace("{", "{{").replace("}", "}}"))  # no libcst import here
    return "".join(parts) if replaced else None


def _has_text(template: str) -> bool:
    """Whether a template has literal text: one that is all placeholders adds nothing to tell by."""
    return any(not piece.is_field and piece.text.strip(" :.,;-") for piece in split_template(template))


def caught_name(clause: str | None) -> str | None:
    """`except Exception as e` -> `e`."""
    if not clause or " as " not in clause:
        return None
    return clause.rsplit(" as ", 1)[1].strip() or None
