"""Which files are catalogued: gitignore-style globs over repo-relative paths."""

from __future__ import annotations

from dataclasses import dataclass, field

import pathspec

from errscan.errors import UsageError


@dataclass(frozen=True)
class Scope:
    include: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    _include: pathspec.GitIgnoreSpec = field(init=False, repr=False, compare=False)
    _exclude: pathspec.GitIgnoreSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "_include", pathspec.GitIgnoreSpec.from_lines(self.include))
            object.__setattr__(self, "_exclude", pathspec.GitIgnoreSpec.from_lines(self.exclude))
        except (ValueError, TypeError) as exc:  # pathspec reports a bad pattern as ValueError
            raise UsageError(f"bad --include/--exclude pattern: {exc}") from exc

    def catalogues(self, path: str) -> bool:
        return self._include.match_file(path) and not self._exclude.match_file(path)
