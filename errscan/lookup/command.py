"""`errscan lookup` in a built site, without click: the commonest command, started often (a script
per log line), answers in a few small files' time when it imports only the standard library's
cheap modules (json, re, os, sys). errscan.__main__ runs `run` first; anything it does not take
(help, another option, a bad value, no site, `[tool.errscan]` in a pyproject.toml) goes to the
click command line, which gives the same answers (it calls `report`) and every error and help text.
"""

from __future__ import annotations

import os
import re
import sys

from errscan.api.layout import INDEX
from errscan.errors import EXIT_FAILURE, EXIT_USAGE, ErrscanError, UsageError

DEFAULT_SITE = "site"  # scan writes here, lookup reads here, unless told otherwise
FORMATS = ("text", "json")
# A `[tool.errscan]` table (or `tool.errscan` keys) in a pyproject.toml: click's path reads it.
_CONFIGURED = re.compile(r"""(?m)^[ \t]*\[?[ \t]*["']?tool["']?[ \t]*\.[ \t]*["']?errscan\b|^[ \t]*\[[ \t]*tool[ \t]*\]""")


def input_text(text: str | None) -> str:
    """TEXT as given, or standard input for none or `-`."""
    if text in (None, "-"):
        if sys.stdin.isatty():
            raise UsageError("give TEXT, or pipe a log into standard input")
        text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the input is empty")
    return text


def report(text: str, matcher, output_format: str, site_prefix: str | None, out, note) -> None:
    """Looks `text` up in `matcher` (errscan.lookup.CatalogMatcher) and writes the answer with
    `out`, notes with `note`; ErrscanError when nothing matches (after `[]` for JSON)."""
    from errscan.lookup.output import as_json, as_text
    from errscan.lookup.rank import MAX_ERRORS, lookup

    findings = lookup(text, matcher)
    if len(findings) >= MAX_ERRORS:
        note(f"note: only the input's first {MAX_ERRORS} errors are looked up")
    if not any(finding.candidates for finding in findings):
        if output_format == "json":
            out("[]\n")  # still a JSON document for `| jq`; the hint goes to stderr
        read = f"{len(findings)} message{'' if len(findings) == 1 else 's'} read"
        raise ErrscanError(
            f"nothing in the input matches the {matcher.count} catalogued errors "
            f"({read}); paste the whole `SomeError: message` line or the traceback"
        )
    out(as_json(findings) if output_format == "json" else as_text(findings, site_prefix))


def run(args: list[str]) -> int | None:
    """`errscan lookup ARGS` in a site: the exit status, or None for the click command line to run."""
    parsed = _parse(args)
    if parsed is None or _configured(os.getcwd()):
        return None
    text, site, output_format = parsed
    if site is None:
        if not os.path.isfile(os.path.join(DEFAULT_SITE, INDEX)):
            return None  # click says what to give
        site = DEFAULT_SITE
    from errscan.terminal import printable

    try:
        from errscan.lookup.rank import CatalogMatcher
        from errscan.lookup.shards import SiteMatcher

        text = input_text(text)
        files = SiteMatcher(site)
        report(text, CatalogMatcher(files, files.error), output_format, f"{site}/", _write(sys.stdout), _write(sys.stderr, "\n"))
    except ErrscanError as exc:
        hint = "; see 'errscan lookup --help'" if exc.exit_code == EXIT_USAGE else ""
        _write(sys.stderr, "\n")(printable(f"errscan: {exc}") + hint)
        return exc.exit_code
    except KeyboardInterrupt:
        _write(sys.stderr, "\n")("errscan: interrupted")
        return 130
    except Exception as exc:  # a bug in errscan: one line, as the click command line says it
        if os.environ.get("ERRSCAN_DEBUG"):
            raise
        _write(sys.stderr, "\n")(printable(internal_error(exc)))
        return EXIT_FAILURE
    return 0


def internal_error(exc: Exception) -> str:
    return f"errscan: internal error: {type(exc).__name__}: {exc} (ERRSCAN_DEBUG=1 shows the traceback)"


def _write(stream, end: str = ""):
    def write(text: str) -> None:
        stream.write(text + end)
        stream.flush()

    return write


def _parse(args: list[str]) -> tuple[str | None, str | None, str] | None:
    """TEXT, --site and --format, each at most once; None for anything else."""
    text = site = output_format = None
    i = 0
    while i < len(args):
        arg = args[i]
        name, equals, value = arg.partition("=")
        if name in ("--site", "--format"):
            if not equals:
                if i + 1 == len(args):
                    return None
                i += 1
                value = args[i]
            if value.startswith("-") or (name == "--site" and site is not None) or (name == "--format" and output_format is not None):
                return None
            if name == "--site":
                site = value
            else:
                output_format = value
        elif (arg.startswith("-") and arg != "-") or text is not None:
            return None
        else:
            text = arg
        i += 1
    if output_format not in (None, *FORMATS):
        return None
    if site is not None:
        site = _path_text(site)
        if site is None or os.path.isfile(site):
            return None  # click's message for a file where a folder goes
    return text, site, output_format or "text"


def _path_text(path: str) -> str | None:
    """`path` as click's pathlib.Path prints it (`./a//b/` -> `a/b`); None for a `//` start, which
    pathlib keeps."""
    if path == "" or (path.startswith("//") and not path.startswith("///")):
        return None
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return ("/" if path.startswith("/") else "") + "/".join(parts) or "."


def _configured(folder: str) -> bool:
    """Whether a pyproject.toml at or above `folder` may hold `[tool.errscan]` (errscan.config)."""
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, encoding="utf-8", errors="replace") as file:
                    if _CONFIGURED.search(file.read()):
                        return True
            except OSError:
                return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
