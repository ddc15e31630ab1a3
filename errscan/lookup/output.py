"""What `errscan lookup` prints: a short text per error found, or JSON for scripts. Errors are their
JSON documents as dicts (errscan.model.ErrorSite's fields), read from a site or made from a catalog."""

from __future__ import annotations

from errscan.lookup.causes import causes
from errscan.lookup.rank import Candidate, Finding
from errscan.api.layout import page_path
from errscan.labels import label
from errscan.terminal import printable


def as_records(findings: list[Finding]) -> list[dict]:
    """One object per candidate, errors in input order and each one's candidates best first."""
    records: list[dict] = []
    for finding in findings:
        logged = finding.logged
        for rank, candidate in enumerate(finding.candidates, 1):
            error = candidate.error
            records.append(
                {
                    "id": error["id"],
                    "rank": rank,
                    "score": candidate.score,
                    "rule": candidate.rule,
                    "confident": candidate.confident,
                    "path": error["path"],
                    "line": error["line"],
                    "function": error["function"],
                    "kind": error["kind"],
                    "level": error["level"],
                    "exception": error["exception"],
                    "message": error["message"],
                    "bindings": candidate.bindings,
                    "url": error["url"],
                    "page": page_path(error["id"]),
                    "removed_since": _removed_since(error),
                    "through": _through(candidate),
                    "summary": error["explanation"]["summary"] if error["explanation"] else None,
                    "causes": [
                        {"part": c.part, "shown": c.shown, "fixes": [f["text"] for f in c.fixes]}
                        for c in causes(error, candidate.message or logged.message)
                    ],
                    "input": _input(logged, candidate.message),
                }
            )
        if finding.catch_alls:  # one record for them all, ranked last, as the site lists them
            records.append({
                "rank": len(finding.candidates) + 1,
                "rule": "catch-all",
                "confident": False,
                "count": len(finding.catch_alls),
                "ids": [e.id for e in finding.catch_alls],
                "input": _input(logged, ""),
            })
    return records


def _input(logged, message: str) -> dict:
    return {"line": logged.line, "exception": logged.exception, "level": logged.level or None, "message": message or logged.message}


def as_json(findings: list[Finding]) -> str:
    import json  # loaded for this format only: the text one is the common, and lookup should start fast

    return json.dumps(as_records(findings), indent=2, ensure_ascii=False) + "\n"


def as_text(findings: list[Finding], site_prefix: str = "") -> str:
    """Per error: the log's line, the best match in full, then the alternatives on one line each;
    scanned text made inert for a terminal."""
    blocks: list[str] = []
    for finding in findings:
        logged = finding.logged
        named = logged.exception or logged.level.upper()
        head = f"{named}: {logged.message}" if named else logged.message
        lines = [f"line {logged.line}: {_one_line(head)}"]
        if not finding.candidates:
            lines.append("  no catalogued error matches" + (" but the catch-alls:" if finding.catch_alls else ""))
            lines += _catch_all_line(finding)
            blocks.append("\n".join(lines))
            continue
        best, *others = finding.candidates
        error = best.error
        removed_since = _removed_since(error)
        lines += [
            f"  {_label(error)}: {_one_line(error['message']) or '(no message)'}",
            f"  {_verdict(best)}",
            f"  at {error['path']}:{error['line']} in {error['function']}",
            f"  {error['url']}",
        ]
        if best.through is not None:
            lines.append(f"  {_seen_through(best.through)}")
        if removed_since:
            lines.append(f"  no longer raised since {removed_since}")
        if site_prefix is not None:  # a page exists only where a site was built
            lines.append(f"  page {site_prefix}{page_path(error['id'])}")
        lines += [f"    {field} = {_one_line(value)}" for field, value in best.bindings.items()]
        if error["explanation"]:
            lines.append(f"  what it means: {_one_line(error['explanation']['summary'], 400)}")
        for cause in causes(error, best.message or logged.message):
            if cause.part is not None:
                lines.append(f"  cause: {_one_line(cause.shown)}")
            lines += [f"  fix: {_one_line(_without_part(fix['text']), 400)}" for fix in cause.fixes]
        for other in others:
            lines.append(
                f"  or {other.score:.2f} {other.rule}: {_label(other.error)}: "
                f"{_one_line(other.error['message'])} ({other.error['path']}:{other.error['line']})"
            )
        lines += _catch_all_line(finding)
        blocks.append("\n".join(lines))
    return printable("\n\n".join(blocks), lines=True) + "\n"


def _catch_all_line(finding: Finding) -> list[str]:
    """The errors whose message is a placeholder alone, which any text matches, as one last line."""
    found = finding.catch_alls
    if not found:
        return []
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return [
        f"  or any of {len(found)} catch-all error{'' if len(found) == 1 else 's'} (message is a value alone, like {{msg}}): "
        f"{label(first.exception, first.level)} at {first.path}:{first.line}{more}"
    ]


def _label(error: dict) -> str:
    return label(error["exception"], error["level"])


def _removed_since(error: dict) -> str | None:
    """The release since which it is no longer raised (errscan.model.ErrorSite.removed_since)."""
    return error["history"]["removed_since"] if error.get("history") else None


def _through(candidate: Candidate) -> dict | None:
    surface = candidate.through
    if surface is None:
        return None
    return {key: surface[key] for key in ("how", "exception", "level", "path", "line", "id", "caught", "caught_line")}


def _seen_through(surface: dict) -> str:
    """The wrapper the log showed, named: the origin above is where the error starts."""
    at = f"{surface['path']}:{surface['line']}"
    how, caught, level = surface["how"], surface["caught"], (surface["level"] or "").upper()
    if how == "reraised":
        return f"shown as {surface['exception']}: `{caught}` re-raises it at {at}"
    if how == "http":
        return f"shown as HTTP {surface['status']} ({surface['exception']}): `{caught}` answers with it at {at}"
    if how == "response":
        return (f"shown as the {level} record `{caught}` logs at {surface['path']}:{surface['log_line']} "
                f"before it sends an error response ({surface['response']}) at line {surface['line']}")
    return f"shown as the {level} record `{caught}` logs at {at}"


def _without_part(text: str) -> str:
    """A fix's advice without its `For “part”:` lead, which the cause line above already shows."""
    return text.split("”: ", 1)[1] if text.startswith("For “") and "”: " in text else text


def _verdict(candidate: Candidate) -> str:
    how = "traceback frame" if candidate.rule == "frame" else f"{candidate.rule} message match"
    if candidate.framed and candidate.rule != "frame":
        how += " and traceback frame"
    sure = "confident" if candidate.confident else "a guess, not confident"
    return f"{how}, score {candidate.score:.2f}, {sure}"


def _one_line(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
