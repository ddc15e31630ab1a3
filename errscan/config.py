"""`[tool.errscan]` in the user's pyproject.toml: a project's own defaults for what to scan.

The nearest pyproject.toml with such a table, from the current folder upward, is read (as ruff and
pytest find theirs). Its values become the commands' option defaults, so options given on the
command line still win. `out` is a folder relative to the pyproject.toml; the globs are relative
to the scanned source, as on the command line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from errscan.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# key -> (what its value must be, the commands whose option it sets)
KEYS: dict[str, tuple[type, tuple[str, ...]]] = {
    "include": (list, ("scan", "lookup", "diff")),
    "exclude": (list, ("scan", "lookup", "diff")),
    "repo": (str, ("scan", "lookup", "diff")),
    "jobs": (int, ("scan", "lookup", "diff")),
    "out": (str, ("scan",)),
    "site_url": (str, ("scan",)),
}


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest pyproject.toml at or above `start` that has `[tool.errscan]`, with that table."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            data = tomllib.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"{candidate}: cannot be read: {exc}") from exc
        table = data.get("tool", {}).get("errscan")
        if table is not None:
            return candidate, table
    return None


def command_defaults(start: Path) -> dict[str, dict[str, Any]]:
    """Per command, the option defaults `[tool.errscan]` sets (click's `default_map`)."""
    found = find_config(start)
    if found is None:
        return {}
    path, table = found
    defaults: dict[str, dict[str, Any]] = {}
    for key, value in (table.items() if isinstance(table, dict) else [("", table)]):
        if key not in KEYS:
            raise UsageError(f"{path}: [tool.errscan] has no key {key!r}; it takes {', '.join(KEYS)}")
        kind, commands = KEYS[key]
        valid = isinstance(value, kind) and not isinstance(value, bool)
        if kind is list:
            valid = valid and all(isinstance(item, str) for item in value)
        if not valid:
            expected = {list: "a list of strings", str: "a string", int: "an integer"}[kind]
            raise UsageError(f"{path}: [tool.errscan] {key} must be {expected}, not {value!r}")
        if key == "out":  # a folder: beside the pyproject.toml, wherever errscan runs from
            value = str(path.parent / value)
        for command in commands:
            defaults.setdefault(command, {})[key] = tuple(value) if kind is list else value
    return defaults
