"""errscan: a static catalog of the errors a Python codebase can raise, pinned to a commit."""

__version__ = "0.1.0"
