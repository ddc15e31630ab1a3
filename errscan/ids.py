"""Stable error ids: 16 hex characters that survive an error moving lines (see docs/ids.md)."""

from __future__ import annotations

import hashlib
import re


def error_id(repo: str, path: str, function: str, exception: str, message: str, ordinal: int) -> str:
    """Hash of where (file, function) and what (exception, template); never of line numbers.

    `exception` counts by its last name only, so `errors.KVError` and an imported `KVError` agree;
    `ordinal` tells apart identical twins within one function, in source order.
    """
    key = "\0".join(
        [repo, path, function, exception.rsplit(".", 1)[-1], normalize(message), str(ordinal)]
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def normalize(template: str) -> str:
    """The form ids are made from: whitespace folded, placeholder contents dropped."""
    text = re.sub(r"\{\{|\}\}", lambda m: "\0" if m.group() == "{{" else "\1", template)
    text = re.sub(r"\{[^{}]*\}", "{}", text)
    text = text.replace("\0", "{{").replace("\1", "}}")
    return " ".join(text.split())
