"""Summaries say what the code does with the error, in agreement with who does it: a log site is
logged, not raised, and two connectors "raise"; a condition on the way that is only constants
(`while True`) is no condition a user can read."""

import msgspec

from errscan.analysis.advice import verb
from errscan.analysis.knobs import settled
from errscan.model import Excerpt, ErrorSite

LOG = ErrorSite(
    id="0" * 16, kind="log", level="warning", exception=None, exception_qualname=None, exception_bases=(),
    message="peer gone", placeholders=(), path="p.py", line=1, end_line=1,
    function="f", comments=(), excerpt=Excerpt(1, ("logger.warning",)), url="",
)
RAISE = msgspec.structs.replace(LOG, kind="raise", level=None, exception="ValueError")


def test_a_log_site_is_logged_and_two_subjects_take_the_plural():
    assert verb(LOG, "NixlConnector") == "logs"
    assert verb(LOG, "NixlConnector and NixlPullConnector") == "log"
    assert verb(RAISE, "NixlConnector and NixlPullConnector") == "raise"
    assert verb(RAISE, "NixlConnector (and 2 other connectors)") == "raises"  # "and" inside the aside


def test_constants_on_the_way_fold_away():
    never = lambda node: False  # noqa: E731
    assert settled("cfg.num_gpu_blocks is not None and True", never) == "cfg.num_gpu_blocks is not None"
    assert settled("True and True", never) == "True"
    assert settled("x > 1 or False", never) == "x > 1"
    assert settled("f(True) and x is not True", never) == "f(True) and x is not True"  # arguments and tests stay
