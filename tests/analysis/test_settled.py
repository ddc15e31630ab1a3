"""Attributes set right after construction (tests/fixtures/calls/two_phase_broken.py): vouched for
only when every rule of `analysis/settled.py` holds."""

import pytest

from errscan.analysis.settled import SettledAttributes, ruled_out
from tests.conftest import graph_of


@pytest.fixture(scope="module")
def settled():
    return SettledAttributes(graph_of("two_phase_broken"))


def test_an_engine_set_at_once_after_the_only_construction_is_never_none(settled):
    (engine,) = settled.of("calls.two_phase_broken.Good.use")
    assert engine.attribute == "engine" and engine.value == "a `Engine` object"
    assert engine.places == ("made at two_phase_broken.py:104, given at two_phase_broken.py:105",)
    assert ruled_out("self.engine is None", (), (engine,), "Good.use").startswith("`self.engine is None` cannot hold")
    assert ruled_out("self.engine.busy", (), (engine,), "Good.use") is None  # it can still be busy
    assert settled.of("calls.two_phase_broken.Good.set_engine") == ()  # before it sets it, it is None
    assert settled.of("calls.two_phase_broken.Good.__init__") == ()


@pytest.mark.parametrize("klass", ["Written", "Passed", "Handed", "Base", "Late", "Escaped"])
def test_a_broken_rule_says_nothing(settled, klass):
    assert settled.of(f"calls.two_phase_broken.{klass}.use") == ()
