"""What names an error before its message, for the catalog's records and lookup's plain documents alike."""


def label(exception: str, level: str | None) -> str:
    """What names an error before its message: the exception, a warning's category, a log's level."""
    return exception or (level or "").upper()
