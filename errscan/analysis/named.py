"""Settings an error's message names: flags it tells the user to pass, JSON keys it tells them to
set, and flags it names in words ("tensor parallel size")."""

from __future__ import annotations

import re

from errscan.analysis.knobs import KnobCatalog, flags_in_message
from errscan.model import ErrorSite, Fix, Knob
from errscan.profiles import Profile

KEY_IN_FLAG = re.compile(r"['\"]?([a-z_][a-z0-9_]*)['\"]?\s*=\s*(True|False|\d+|'[^']*'|\"[^\"]*\")\s+in\s+(--[a-z][a-z0-9-]*)")


def _json_value(text: str) -> str:
    return text if text in ("true", "false") or text.isdigit() else f'"{text}"'


def advised(error: ErrorSite, catalog: KnobCatalog, profile: Profile) -> tuple[Fix, ...]:
    """Flags the message itself tells the user to pass, where they exist at this commit (not a
    JSON flag: it takes a document, not on/off). A flag the project decides itself when it is
    left out only matters when the user turned it the other way."""
    fixes = []
    for knob in flags_in_message(error.message, catalog):
        if "stale" in knob.detail or knob.name.startswith("--no-") or knob.name in catalog.json_flags.values():
            continue
        text = f"Pass `{knob.name}`, as the message advises"
        sets = catalog.flags.get(knob.name, "")
        if sets in catalog.filled:
            text += (f"; but {profile.title or profile.name} decides it itself when you leave it out, so "
                     f"it only helps if you passed `--no-{knob.name[2:]}`")
        fixes.append(Fix(knob.name, "true", text + "."))
    for key, value, flag in KEY_IN_FLAG.findall(error.message):  # `'x'=True in --json-config`
        owners = [c for c, f in catalog.json_flags.items() if f == flag and key in catalog.config_fields.get(c, ())]
        if owners:
            shown = value.lower() if value in ("True", "False") else value.strip("'\"")
            fixes.append(Fix(key, shown, f'Set `"{key}": {_json_value(shown)}` in `{flag}`, as the message advises.', flag))
    return tuple(fixes)


def decided(knob: Knob, catalog: KnobCatalog) -> bool:
    """Whether the project gives this setting a value itself when the user leaves it out."""
    field = knob.detail[len("sets "):] if knob.kind == "cli_flag" and knob.detail.startswith("sets ") else knob.name
    return field in catalog.filled


def flags_in_words(message: str, catalog: KnobCatalog) -> list[str]:
    """Flags a message names in words: "tensor parallel size" is `--tensor-parallel-size`."""
    words = " ".join(re.sub(r"\{[^{}]*\}", " ", message).lower().replace("_", " ").split())
    return [
        flag for flag in sorted(catalog.flags)
        if flag.count("-") >= 4 and f" {flag[2:].replace('-', ' ')} " in f" {words} "
    ]
