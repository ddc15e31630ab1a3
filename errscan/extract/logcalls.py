"""Which calls write a log record or a warning the user sees, and at what level.

A log site is a statement that is a call to a logger's `warning`, `error`, `exception` or
`critical` (also `warn` and `fatal`, their aliases), or to `warnings.warn`. A logger is a name or
attribute called `logger`, `log` or `logging` (any case, leading underscores allowed: `self._logger`,
`LOG`). A project's own helpers on its loggers (vLLM's `warning_once`) are named by its profile
(`Profile.log_helpers`). Both walks of a file (ast's for the facts, libcst's for the messages)
ask the same question of the callee's dotted text, so they agree on which statements are sites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LEVELS = ("warning", "error", "exception", "critical")
_STANDARD = {"warning": "warning", "warn": "warning", "error": "error", "exception": "exception",
             "critical": "critical", "fatal": "critical"}
_LOGGER = re.compile(r"_*(?:logger|log|logging)", re.IGNORECASE)
WARNINGS_WARN = "warnings.warn"
DEFAULT_WARNING = "UserWarning"  # the category of a `warnings.warn` that names none


@dataclass(frozen=True)
class LogCalls:
    helpers: tuple[tuple[str, str], ...] = ()  # (method, level): a project's own logger methods

    def on_logger(self, callee: str | None) -> bool:
        """Whether `callee` is a method of a logger, at any level (logging raises nothing to its caller)."""
        if not callee or "." not in callee:
            return False
        return bool(_LOGGER.fullmatch(callee.rsplit(".", 1)[0].rsplit(".", 1)[-1]))

    def level(self, callee: str | None) -> str | None:
        """The level a call to `callee` (dotted text) logs at, or None when it writes no log site."""
        if not callee or "." not in callee:
            return None
        receiver, method = callee.rsplit(".", 1)
        head = receiver.rsplit(".", 1)[-1]
        if method == "warn" and head == "warnings":
            return "warning"
        if not _LOGGER.fullmatch(head):
            return None
        return _STANDARD.get(method) or dict(self.helpers).get(method)

    def key(self) -> str:
        """What sets them apart, for cache keys: results made with other helpers are others."""
        return ",".join(f"{method}={level}" for method, level in self.helpers)


def is_warnings_call(callee: str) -> bool:
    """`warnings.warn`: its category, not a logger, is what the user sees named."""
    return callee.rsplit(".", 2)[-2:] == ["warnings", "warn"]


GENERIC = LogCalls()
