"""Solutions, derived: for each part of the trigger, the change that makes it false."""

from __future__ import annotations

from functools import lru_cache

from errscan.extract.conditions import negate, parse_expression, unparse
from errscan.model import Knob

_SETTING = {"cli_flag": "the flag", "config_field": "the config field", "extra_config": "the extra-config key",
            "env": "the environment variable"}


@lru_cache(maxsize=1 << 16)
def _negated(conjunct: str) -> str:
    node = parse_expression(conjunct)
    return f"not ({conjunct})" if node is None else unparse(negate(node))


def _settings(knobs: list[Knob]) -> str:
    shown = [f"{_SETTING[k.kind]} `{k.name}`" for k in knobs if k.kind in _SETTING]
    return ", ".join(dict.fromkeys(shown))


def solutions(
    conjuncts: list[tuple[str, list[Knob]]],
    path_conditions: list[tuple[str, list[Knob]]],
    message_flags: list[Knob],
    connectors: list[str],
    all_connectors: int,
) -> tuple[str, ...]:
    """Deterministic advice, one sentence each, phrased on a setting wherever one decides the part."""
    advice: list[str] = []
    for flag in message_flags:
        if "stale" in flag.detail:
            advice.append(f"The message recommends `{flag.name}`, which is not a flag at this commit: check the flag's current name.")
        else:
            advice.append(f"The message names the flag `{flag.name}`: follow its advice on what to pass.")
    for conjunct, knobs in conjuncts:
        if conjunct.strip() == "True":  # `while True:` and the like: no condition to avoid
            continue
        if conjunct.startswith("raises("):
            advice.append(f"Avoid the failure it reacts to: {conjunct}.")
        elif knobs:
            advice.append(f"Change {_settings(knobs)} so that `{conjunct}` no longer holds.")
        else:
            advice.append(f"Make sure `{_negated(conjunct)}` holds before this point.")
    ways = [(condition, knobs) for condition, knobs in path_conditions if knobs]
    for condition, knobs in ways:  # with several ways in, none is the only one
        only = "only when" if len(ways) == 1 else f"(one of {len(ways)} ways in) when"
        advice.append(f"This error is reached {only} `{condition}`: {_settings(knobs)} decides that.")
    if connectors and len(connectors) < all_connectors:
        names = ", ".join(f"`{c}`" for c in connectors)
        verb = "reaches" if len(connectors) == 1 else "reach"
        advice.append(f"Only {names} {verb} this error: another `kv_connector` avoids it.")
    return tuple(dict.fromkeys(advice))
