"""A field checked where its object is made (`__post_init__`, `__init__`: `self.size <= 0`) whose value
the maker read from a file the user supplies (`C(size=parse(config.get("size")))` after
`config = json.load(open(path))`): the key in that file is the user's setting, not the program's state."""

from __future__ import annotations

import ast
import json
import re

from errscan.analysis.chains import Reach
from errscan.analysis.commands import Setting
from errscan.analysis.fileio import FILE_CALLS
from errscan.analysis.phases import with_cause
from errscan.analysis.solver import Value, rules_out
from errscan.analysis.wording import PATH, Raw, user_words
from errscan.extract.conditions import parse_expression
from errscan.extract.facts import CallFact, ModuleFacts
from errscan.extract.unparse import fast_unparse
from errscan.model import ErrorSite, Fix
from errscan.profiles import Profile

_MAKERS = ("__post_init__", "__init__")
NEAR = 3  # lines an argument's own calls may follow its start (`parse(\n config.get("x"))`)


def file_keys(error: ErrorSite, own_code: str, found: Reach, module: ModuleFacts | None) -> dict[str, str]:
    """The fields the condition reads (`self.f`) that the call making the object, on a chain, passed a
    value read from a file under a key: field -> key. Empty when the maker opens no file itself."""
    if module is None or error.function.rsplit(".", 1)[-1] not in _MAKERS:
        return {}
    fields = dict.fromkeys(re.findall(r"\bself\.(\w+)", own_code))  # in the order read: a set's order varies by run
    keys: dict[str, str] = {}
    for chain in found.chains:
        site = chain.sites[-1].call if chain.sites else None
        if site is None or site not in module.calls or not any(
                c.caller == site.caller and FILE_CALLS.search(c.callee) for c in module.calls):
            continue
        for field in fields:
            key = _key(field, site, module.calls)
            if key:
                keys.setdefault(field, key)
    return keys


def _key(field: str, site: CallFact, calls: tuple[CallFact, ...] | list[CallFact]) -> str | None:
    """The key of the `.get("key")` whose value (or a call's result on it) is the argument `field`."""
    given = [c for c in calls if c.caller == site.caller and c.passed_to == f"{site.callee}:{field}"]
    for arg in given:
        inner = [arg] + [c for c in calls if c.caller == site.caller and (c.passed_to or "").startswith(f"{arg.callee}:")
                         and arg.line <= c.line <= arg.line + NEAR]
        inner.sort(key=lambda c: c.line)  # the nearest `.get` is the argument's own, not the next argument's
        key = next((c.literal_args[0] for c in inner if c.callee.endswith(".get") and c.literal_args and c.literal_args[0]), None)
        if key:
            return key
    return None


def read_from_file(keys: dict[str, str], own_code: str, path_settings: tuple[Setting, ...], subject: str, does: str,
                   timing: str, profile: Profile) -> tuple[str, str, Fix] | None:
    """(kind, summary, fix) for a check on values read from the user's file, when the condition reads
    in those terms; the file is named by the environment variable on the way that gives a path."""
    if not keys:
        return None
    named = next((s.name for s in path_settings if s.knob.kind == "env" and PATH.search(s.name.rsplit(".", 1)[-1])), None)
    where = f"the file `{named}` names" if named else "the configuration file it reads"

    def name(node: ast.expr) -> str | None:
        field = node.attr if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" else None
        return Raw(f"`{keys[field]}` in {where}") if field in keys else None

    words = user_words(own_code, name, profile.vocabulary) if parse_expression(own_code) is not None else None
    if words is None:
        return None
    told = " and ".join(f"`{k}`" for k in dict.fromkeys(keys.values()))
    summary = f"{subject} {does} this{with_cause(timing)} {words}: a value of your configuration file, not a bug."
    found = _avoiding(keys, own_code)
    if found is None:
        return "configuration", summary, Fix(next(iter(keys.values())), None,
                                             f"Correct {told} in {where}: the condition below says which values fail.")
    key, value = found
    return "configuration", summary, Fix(key, value, f"Set `{key}` to `{value}` in {where} (or correct {told} so that the "
                                                     f"condition below is false).")


def _avoiding(keys: dict[str, str], own_code: str) -> tuple[str, str] | None:
    """(key, value as written in JSON) that alone makes the check impossible, as the solver proves; the
    field tested last first: earlier tests choose the case (`mode == "embedded"`), the last is the rule
    broken in it (`global_segment_size == 0`), and changing it keeps the case the user chose."""
    tree = parse_expression(own_code)
    for field, key in reversed(keys.items()):
        for value in dict.fromkeys([*_compared_constants(tree, f"self.{field}"), 1, 0]):
            if rules_out(own_code, {f"self.{field}": value}):
                return key, json.dumps(value)
    return None


def _compared_constants(tree: ast.expr | None, code: str) -> list[Value]:
    """The numbers and strings `code` is compared with in `tree` (`0`; both of `in ('a', 'b')`)."""
    found: list[Value] = []
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Compare) and any(fast_unparse(o) == code for o in [node.left, *node.comparators]):
            for operand in [node.left, *node.comparators]:
                items = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]
                found += [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, (int, str))
                          and not isinstance(i.value, bool)]
    return found
