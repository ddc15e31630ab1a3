"""Settings as a user writes them: the sentence of a fix, and a command with chosen values.

A `Setting` is a value in a condition that the user controls; this module turns a setting and a
value into what the user types (`--mamba-cache-mode align`, `"use_native": true` in
`--kv-transfer-config`, `VLLM_X=1`), and finds values under which a condition can hold, for the
command that reaches an error.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass

from errscan.analysis.knobs import KnobCatalog, alternatives
from errscan.analysis.solver import Value, example_values, satisfiable, value_of
from errscan.analysis.wording import ADDRESS, PATH
from errscan.extract.conditions import parse_expression
from errscan.model import Knob
from errscan.extract.unparse import fast_unparse


@dataclass(frozen=True)
class Setting:
    """A value in a condition that the user sets, and how."""

    code: str  # the value's code in the condition
    knob: Knob
    name: str  # as the user writes it
    carrier: str | None  # the JSON flag it is written in
    path: tuple[str, ...] = ()  # where in that flag's JSON document
    default: Value = None
    side: str = ""  # of two cooperating instances, the one whose setting it is ("" for this one alone)
    whole: bool = False  # a flag that takes a whole config as JSON (`--speculative-config`)


def candidates(setting: Setting, condition: str, likely: bool) -> list[Value]:
    """Likely values: the default (going back to it is the least surprise) and the constants the
    condition compares the setting with; else the usual small ones."""
    if setting.whole:  # left out; the document a message asks for is `config_document`'s
        return [None] if likely else []
    constants: list[Value] = []
    boolean = True
    tree = parse_expression(condition)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Compare) and any(setting.code in fast_unparse(o) for o in [node.left, *node.comparators]):
            boolean = False
            constants += [o.value for o in [node.left, *node.comparators]
                          if isinstance(o, ast.Constant) and (o.value is None or isinstance(o.value, (bool, int, str)))]
        elif isinstance(node, ast.BinOp) and setting.code in fast_unparse(node):
            boolean = False
    if likely:
        found = ([] if setting.default is None else [setting.default]) + constants
        return list(dict.fromkeys(found))  # None among them: leaving the setting unset
    return [False, True] if boolean else [1, 0]


_QUOTED = re.compile(r"'([\w.-]+)'|\"([\w.-]+)\"")


def config_document(setting: Setting, message: str, catalog: KnobCatalog) -> str | None:
    """For a flag that takes a whole config as JSON (`--speculative-config`), the document the message
    asks for: the quoted value nearest the name of one of that config's fields ("when using
    'extract_hidden_states' speculative method": `{"method": "extract_hidden_states"}`); "" when it
    names none (no small number is a config); None for any other setting."""
    held = [c for c, flag in catalog.json_flags.items() if flag == setting.name]
    if not setting.whole or len(held) != 1:
        return None
    words = {m.group(0): m.start() for m in re.finditer(r"[a-z_]+", message)}
    named = [(f, words[f]) for f in sorted(catalog.config_fields.get(held[0], ())) if f in words]
    quoted = [(m.group(1) or m.group(2), m.start()) for m in _QUOTED.finditer(message)]
    if len(named) != 1 or not quoted:
        return ""
    (field, at), = named
    value = min(quoted, key=lambda q: abs(q[1] - at))[0]
    return json.dumps({field: value})


def action(setting: Setting, value: Value, catalog: KnobCatalog) -> str:
    """What the user does to give `setting` the `value`, in words."""
    text = shown(value, setting)
    if text == UNSET:
        where = f" from `{setting.path[0]}`" if len(setting.path) > 1 else ""
        inside = f" in `{setting.carrier}`" if setting.carrier else ""
        key = f'"{setting.path[-1]}"' if setting.path else setting.name
        said = f"Leave out `{key}`{where}{inside}"
    elif setting.side:
        said = f"Pass `{_flag_words(setting.name, text)}` on {setting.side}"
    elif setting.knob.kind == "cli_flag":
        said = _flag_action(setting.name, value)
    elif setting.knob.kind == "env":
        said = f"Set the environment variable `{setting.name}={text}`"
    elif setting.carrier:
        inside = f" under `{setting.path[0]}`" if len(setting.path) > 1 else ""
        said = f'Set `"{setting.path[-1]}": {_json_text(text)}`{inside} in `{setting.carrier}`'
    else:
        said = f"Set `{setting.name}` to `{text}`"
    if setting.whole and text.startswith("{"):  # the one field a message names: its config may need more
        said += " with the other fields that config needs (vLLM's check of the config names any it lacks)"
    others = alternatives(setting.knob, catalog, text)
    if others:
        said += " (or " + ", or ".join(others) + ")"
    if text.startswith("<"):  # a placeholder: say what it stands for
        said += ", pointing at an existing file" if PATH.search(_last(setting)) else ", an address the other side can reach"
    return said


def failing_values(
    condition: str, settings: list[Setting], preferred: dict[str, Value] | None = None,
) -> dict[str, Value] | None:
    """Values of `settings` under which the way in can fire: `preferred` ones (by setting name),
    defaults and the condition's own constants first, so that the command reads like one a user
    would run."""
    chosen: dict[str, Value] = {}
    for setting in settings:
        first = [preferred[setting.name]] if preferred and setting.name in preferred else []
        for value in dict.fromkeys(first + candidates(setting, condition, likely=True)):
            if satisfiable(condition, *equalities({**chosen, setting.code: value})):
                chosen[setting.code] = value
                break
    missing = tuple(s.code for s in settings if s.code not in chosen)
    if missing:
        found = example_values(f"({condition}) and " + " and ".join(equalities(chosen)) if chosen else condition, missing)
        if not found or any(code not in found or found[code] == "" for code in missing):
            return None  # no value the solver could name, or an empty string: nothing a user would write
        chosen.update(found)
    return chosen


def equalities(values: dict[str, Value]) -> tuple[str, ...]:
    """`code == value` for each setting code of `values`, as the solver reads them."""
    return tuple(fast_unparse(value_of(code, value)) for code, value in values.items())


def _json_text(written: str | None) -> str:
    return written if written is not None and _is_json(written) else json.dumps(written)


UNSET = "unset"  # a fix's value that means: give no value at all


def written(value: Value, setting: Setting) -> str:
    """`value` as the user writes it for `setting`: JSON in a JSON flag, 1/0 for a variable."""
    if value is None:
        return UNSET
    if setting.carrier or setting.knob.kind == "config_field":
        return json.dumps(value) if not isinstance(value, str) else value
    if isinstance(value, bool):
        return "1" if value and setting.knob.kind == "env" else "0" if setting.knob.kind == "env" else str(value).lower()
    return str(value)


def shown(value: Value, setting: Setting) -> str:
    """`written`, except that a path or an address the code only needs set (a boolean value) is its
    name as a placeholder (`<mooncake_config_path>`): `1` is no path. Unset is leaving it out where the
    text is read as it is (`os.getenv(...)`), where `0` would be a value that is set; a variable of the
    project's typed table keeps its `0` (`VLLM_FAST_PATH` is a switch named like a path)."""
    if not isinstance(value, bool) or isinstance(setting.default, bool) or not (
            PATH.search(_last(setting)) or ADDRESS.search(_last(setting))):
        return written(value, setting)
    if value:
        return f"<{_last(setting).lower()}>"
    raw = setting.knob.kind != "env" or re.search(r"\bgetenv\(|\benviron\b", setting.knob.detail)
    return UNSET if raw else written(value, setting)


def _last(setting: Setting) -> str:
    return setting.name.rsplit(".", 1)[-1].lstrip("-")


def _is_json(value: str) -> bool:
    return value in ("true", "false", "null") or value.lstrip("-").isdigit()


def _flag_action(flag: str, value: Value) -> str:
    if isinstance(value, bool):
        return f"Pass `{flag}`" if value else f"Leave out `{flag}` (or pass `--no-{flag[2:]}`)"
    return f"Pass `{_flag_words(flag, str(value))}`"


def _flag_words(flag: str, value: str) -> str:
    if value == "true":
        return flag
    if value == "false":
        return f"--no-{flag[2:]}"
    return f"{flag} {shlex.quote(value)}"


def command(
    launch: str, values: dict[Setting, str | None], plugin: tuple[str, dict[str, str]] | None = None,
) -> str:
    """`launch` with each setting as the user writes it: environment variables before it, flags
    after it, settings of a JSON flag gathered into one document. `plugin`: the JSON flag that
    names the plugin and the fields it needs (`--kv-transfer-config`, `{"kv_connector": ...}`)."""
    environment, flags = [], []
    documents: dict[str, dict] = {plugin[0]: dict(plugin[1])} if plugin else {}
    for setting, value in values.items():
        if value is None or value == UNSET:
            continue
        if setting.knob.kind == "env":
            environment.append(f"{setting.name}={shlex.quote(value)}")
        elif setting.whole and value.startswith("{"):  # with the keys given beside it
            documents[setting.name] = {**json.loads(value), **documents.get(setting.name, {})}
        elif setting.knob.kind == "cli_flag":
            flags.append(_flag_words(setting.name, value))
        elif setting.carrier and setting.path:
            document = documents.setdefault(setting.carrier, {})
            for key in setting.path[:-1]:
                document = document.setdefault(key, {})
            document[setting.path[-1]] = json.loads(value) if _is_json(value) else value
    for flag, document in documents.items():
        flags.append(f"{flag} {shlex.quote(json.dumps(document))}")
    return " ".join([*environment, launch, *flags])
