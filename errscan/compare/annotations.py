"""A CatalogDiff as CI annotations: GitHub Actions workflow commands, or SARIF 2.1.0 for code scanning.

One annotation per added, removed or changed error (moves of lines alone only when `--fail-on
moved` asks for them). Kinds that `--fail-on` names are errors, the rest notes, so a gated
pull request shows why it failed on the very lines. An added or changed error is annotated where
the new side raises it; a removed one where the old side did (GitHub lists the workflow command
without a file; SARIF results need a location).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Collection, Iterator

from errscan import __version__
from errscan.compare.changes import split_changes
from errscan.model import CatalogDiff, ErrorRef

RULES = {
    "added": "An error that the new side raises and the old one does not.",
    "removed": "An error that the old side raises and the new one no longer does.",
    "changed": "An error whose message, exception, condition, location or settings changed.",
    "moved": "An error that only moved lines within its function.",
}


@dataclass(frozen=True)
class Annotation:
    kind: str  # a key of RULES
    error: ErrorRef  # where it is annotated
    title: str
    message: str
    on_new_side: bool


def annotations(diff: CatalogDiff, gates: Collection[str]) -> Iterator[Annotation]:
    for e in diff.added:
        yield Annotation("added", e, f"errscan: new {e.exception}", f"New in {diff.new}: {_what(e)} (in {e.function})", True)
    for e in diff.removed:
        yield Annotation("removed", e, f"errscan: {e.exception} removed", f"No longer raised in {diff.new}: {_what(e)} ({diff.old}: {e.path}:{e.line} in {e.function})", False)
    changed, moved = split_changes(diff)
    for c in changed:
        fields = "; ".join(f"{f.field}: {f.old or '(none)'} -> {f.new or '(none)'}" for f in c.changes)
        yield Annotation("changed", c.new, f"errscan: {c.new.exception} changed", f"Changed in {diff.new}: {_what(c.new)}; {fields}", True)
    if "moved" in gates:
        for c in moved:
            yield Annotation("moved", c.new, f"errscan: {c.new.exception} moved", f"Moved in {diff.new} from line {c.old.line}: {_what(c.new)}", True)


def _what(e: ErrorRef) -> str:
    message = " ".join(e.message.split())
    return f"{e.exception}: {message}" if message else e.exception


# GitHub Actions: https://docs.github.com/actions/reference/workflow-commands-for-github-actions


def github_commands(diff: CatalogDiff, gates: Collection[str]) -> str:
    """`::error file=...,line=...,title=...::message` lines, one per annotation."""
    lines = []
    for a in annotations(diff, gates):
        level = "error" if a.kind in gates else "notice"
        where = f"file={_property(a.error.path)},line={a.error.line}," if a.on_new_side else ""
        lines.append(f"::{level} {where}title={_property(a.title)}::{_data(a.message)}")
    return "".join(line + "\n" for line in lines)


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


# SARIF 2.1.0: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def sarif_log(diff: CatalogDiff, gates: Collection[str]) -> str:
    """One run of the tool `errscan`, a rule per kind, a result per annotation; each result carries
    the error's id as a fingerprint, so code scanning follows it from one run to the next."""
    rules = [{"id": kind, "name": f"{kind}-error", "shortDescription": {"text": text}} for kind, text in RULES.items()]
    results = [
        {
            "ruleId": a.kind,
            "ruleIndex": list(RULES).index(a.kind),
            "level": "error" if a.kind in gates else "note",
            "message": {"text": a.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": a.error.path},
                    "region": {"startLine": a.error.line},
                },
            }],
            "partialFingerprints": {"errscanErrorId/v1": a.error.id},
        }
        for a in annotations(diff, gates)
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "errscan", "version": __version__, "rules": rules}},
            "automationDetails": {"id": f"errscan/diff/{diff.old}..{diff.new}"},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
