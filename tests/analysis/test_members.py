"""Parameters annotated with an Enum class (tests/fixtures/calls/enum_annotated_parameter.py): each
holds one of the members, only where every member is written down and nothing else may come."""

import pytest

from errscan.analysis.bindings import conditions_hold
from errscan.analysis.chains import reach, select
from errscan.analysis.entries import Entry
from errscan.analysis.members import enum_domains, ruled_out
from tests.conftest import graph_of

BOTH = "role != Role.SCHEDULER and role != Role.WORKER"


@pytest.fixture(scope="module")
def graph():
    return graph_of("enum_annotated_parameter")


def domains(graph, function):
    return enum_domains(graph, f"calls.enum_annotated_parameter.{function}")


def test_a_test_of_every_member_leaves_no_value(graph):
    (role,) = domains(graph, "start")
    assert role.members == ("SCHEDULER", "WORKER")
    assert ruled_out(BOTH, (), (role,)) == (
        f"`{BOTH}` cannot hold, as `role` is a `Role`, an Enum whose only members are `SCHEDULER` and `WORKER`")
    assert ruled_out("role == Role.WORKER", (), (role,)) is None
    assert ruled_out("other != Role.SCHEDULER and other != Role.WORKER", (), (role,)) is None


def test_a_member_not_tested_may_still_come(graph):
    (mode,) = domains(graph, "pick")
    assert mode.members == ("READ", "WRITE", "APPEND")
    assert ruled_out("mode != Mode.READ and mode != Mode.WRITE", (), (mode,)) is None


@pytest.mark.parametrize("function", ["plain", "optional", "union", "defaulted", "opened", "computed", "flags", "rebound"])
def test_nothing_is_said_where_another_value_may_come(graph, function):
    """A class that is no Enum, None let in, an Enum without members (a subclass brings its own),
    a member computed, a Flag (members combine), a parameter assigned again."""
    assert domains(graph, function) == ()


def test_a_chain_ending_in_the_test_of_every_member_cannot_be_taken(graph):
    entry = "calls.enum_annotated_parameter.create"
    found = select(reach(graph, "calls.enum_annotated_parameter.start", {entry: Entry(entry, "main", ())}),
                   lambda values: conditions_hold(BOTH, values, "the raise", domains(graph, "start")))
    assert not found.chains and not found.entries
    assert "`role` is a `Role`, an Enum whose only members are" in found.infeasible[0].why


def test_a_property_returning_an_enum_holds_a_member_in_the_class_and_its_subclasses(graph):
    for method in ("Component.start", "Worker.stop"):
        (role,) = domains(graph, method)
        assert role.parameter == "self.role" and role.members == ("SCHEDULER", "WORKER")
    reason = ruled_out("self.role != Role.SCHEDULER and self.role != Role.WORKER", (), domains(graph, "Worker.stop"))
    assert "`self.role` is a `Role` (what the property `Component.role` returns), an Enum whose only members are" in reason


@pytest.mark.parametrize("method", ["Named.check", "Labeled.check", "Cached.role", "Unset.role"])
def test_a_property_a_subclass_changes_or_that_may_be_assigned_or_none_holds_anything(graph, method):
    """`Pinned` binds the name in its body, `Renamed` returns a `str`; a `cached_property` may be
    assigned; `Role | None` lets None in."""
    assert domains(graph, method) == ()


def test_a_value_known_only_to_be_an_object_is_still_a_member(graph):
    """A caller's annotation says `role` is a `Role` (not None, `Bound.built`): still one of its members."""
    from errscan.analysis.bindings import Bound

    (role,) = domains(graph, "start")
    values = (("role", Bound("Role", "passed at x.py:1 as the parameter `role: Role`", built=True)),)
    held, why = conditions_hold(BOTH, values, "the raise", (role,))
    assert held is False and "an Enum whose only members are" in why


def test_members_with_their_own_string_values_are_apart(graph):
    side, twin = "calls.enum_annotated_parameter.Side", "calls.enum_annotated_parameter.Twin"
    codes = (f"get_side() == {side}.CONSUMER", f"get_side() == {side}.PRODUCER and x")
    from errscan.analysis.members import distinct_members

    assert distinct_members(graph, codes) == (f"{side}.CONSUMER != {side}.PRODUCER",)
    assert distinct_members(graph, (f"a == {twin}.FIRST and a == {twin}.SECOND",)) == ()  # an alias
    role = "calls.enum_annotated_parameter.Role"  # integer values: not read, nothing said
    assert distinct_members(graph, (f"a == {role}.SCHEDULER and a == {role}.WORKER",)) == ()
