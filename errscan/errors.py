"""Errors errscan reports to its user as one line, each with its documented exit status."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1  # the input was understood but the work could not be done
EXIT_USAGE = 2  # the input itself is wrong: missing path, unknown commit, bad option
EXIT_DIFFERENCES = 3  # `diff --fail-on` found a kind of difference it was told to fail on


class ErrscanError(Exception):
    """An expected failure: the CLI prints `errscan: <message>` and exits with `exit_code`."""

    exit_code = EXIT_FAILURE


class UsageError(ErrscanError):
    exit_code = EXIT_USAGE


class SourceError(ErrscanError):
    """A source could not be read (pip or git failed, a wheel is broken)."""
