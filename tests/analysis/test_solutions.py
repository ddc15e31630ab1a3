"""The one-sentence solutions of a record: no advice about a constant, no way in called the only one."""

from __future__ import annotations

from errscan.analysis.solutions import solutions
from errscan.model import Knob

FLAG = Knob("cli_flag", "--block-size")
ENV = Knob("env", "VLLM_KV_CACHE_LAYOUT")


def test_a_loop_forever_is_no_condition_to_avoid():
    advice = solutions([("True", []), ("x > 1", [FLAG])], [], [], [], 0)
    assert not [a for a in advice if "not True" in a or "`True`" in a]
    assert advice == ("Change the flag `--block-size` so that `x > 1` no longer holds.",)


def test_one_way_in_is_the_only_one_several_are_each_one_of_them():
    assert solutions([], [("a", [FLAG])], [], [], 0) == (
        "This error is reached only when `a`: the flag `--block-size` decides that.",
    )
    advice = solutions([], [("a", [FLAG]), ("b", [ENV])], [], [], 0)
    assert advice == (
        "This error is reached (one of 2 ways in) when `a`: the flag `--block-size` decides that.",
        "This error is reached (one of 2 ways in) when `b`: the environment variable `VLLM_KV_CACHE_LAYOUT` decides that.",
    )
    assert not [a for a in advice if "only when" in a]
