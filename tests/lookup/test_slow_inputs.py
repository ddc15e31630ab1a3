"""Inputs that once took minutes or hours (#17): each runs in a fresh interpreter with a limit
far above the time it takes, so a return of quadratic or exponential work fails rather than
stalling the suite. No timing is asserted."""

from __future__ import annotations

import subprocess
import sys

import pytest

from errscan.lookup.logs import MAX_MESSAGE_LINES, find_errors

HANG = 60  # seconds: each input takes well under one


def finishes(code: str) -> bool:
    try:
        subprocess.run([sys.executable, "-c", code], check=True, timeout=HANG)
    except subprocess.TimeoutExpired:
        return False
    return True


def test_a_long_log_without_an_exception_is_one_message_of_few_lines():
    text = "\n".join(f"INFO 01-01 00:00:00 [x.py:1] line {n} of a long log" for n in range(100_000))
    (error,) = find_errors(text)
    assert error.exception == "" and len(error.lines) <= 1 + MAX_MESSAGE_LINES
    assert len(error.readings()) <= 4 * (1 + MAX_MESSAGE_LINES)


LINES = {
    "100 KB of a.a.a": '"a." * 50_000',
    "1 MB of a.a.a": '"a." * 500_000',
    "1 MB line": '"x" * 1_000_000',
    "1 MB of words": '"word " * 200_000',
    "100,000 short lines": '"a\\n" * 100_000',
    "many process tags": '"(a=1) " * 100_000 + "ValueError: x"',
    "a frame with a long gap": '"Traceback (most recent call last):\\n  File \\"x.py\\", line 1, in f" + " " * 100_000 + "g\\nValueError: x"',
    "a record of a long file name": '"WARNING 01-01 00:00:00 " + "a" * 1_000_000 + ":1] x"',
    "many dotted names before a call": '"a.a.aError(" * 30_000',
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_a_hostile_log_is_parsed_and_its_readings_made_at_once(name):
    code = (
        "from errscan.lookup.logs import find_errors\n"
        f"for error in find_errors({LINES[name]}):\n"
        "    error.readings()\n"
    )
    assert finishes(code)


def test_a_message_that_many_placeholders_could_split_every_way_is_scored_at_once():
    # Backtracking tried every way to cut 2,000 characters into five pieces.
    code = (
        "from errscan.match import compile_template, score_message\n"
        "template = compile_template('{a} and {b} and {c} and {d} and {e}!')\n"
        "assert score_message(template, 'and ' * 500).rule == 'truncated'\n"
        "assert score_message(template, 'and ' * 500 + '!').rule == 'exact'\n"
    )
    assert finishes(code)
