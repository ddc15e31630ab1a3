"""Arguments never None by their declared types (`declared.py`), as `bindings.carried` binds them
when asked to (for what the known callers of an entry point pass it)."""

from conftest import graph_of
from errscan.analysis.bindings import carried, conditions_hold

MODULE = "calls.declared_arguments"


def bound_layout(caller: str, line_of: int = 0):
    """What the call of `build` in `caller` (the `line_of`-th) binds `layout` to."""
    graph = graph_of("declared_arguments")
    node = f"{MODULE}.{caller}"
    site = sorted(graph.graph[node][f"{MODULE}.build"]["sites"], key=lambda s: s.line)[line_of]
    return dict(carried(graph, (), site, node, f"{MODULE}.build", typed=True)).get("layout")


def test_a_parameter_typed_with_a_class_is_passed_on_never_none():
    bound = bound_layout("start")
    assert bound.built and bound.value == "Layout"
    assert "the parameter `layout: Layout` of `declared_arguments.start`" in bound.origin
    verdict = conditions_hold("role == 'planner' and layout is None", (("layout", bound), ("role", bound_role())), "line 13")
    assert verdict[0] is False and "`layout` is a `Layout` object, never None" in verdict[1]


def bound_role():
    graph = graph_of("declared_arguments")
    site = next(iter(graph.graph[f"{MODULE}.start"][f"{MODULE}.build"]["sites"]))
    return dict(carried(graph, (), site, f"{MODULE}.start", f"{MODULE}.build", typed=True))["role"]


def test_an_attribute_set_only_from_a_typed_parameter_before_the_call_is_never_none():
    bound = bound_layout("Planner.__init__")
    assert bound.built and bound.value == "Layout"
    assert "`self.layout`, set at declared_arguments.py:18 from the parameter `layout: Layout`" in bound.origin


def test_declared_types_are_read_only_when_asked():
    graph = graph_of("declared_arguments")
    site = next(iter(graph.graph[f"{MODULE}.start"][f"{MODULE}.build"]["sites"]))
    assert "layout" not in dict(carried(graph, (), site, f"{MODULE}.start", f"{MODULE}.build"))


def test_what_is_not_known_to_be_set_binds_nothing():
    assert bound_layout("Planner.again") is None  # set in another method: not known to run first
    assert bound_layout("Drafts.__init__") is None  # `reset` assigns None
    assert bound_layout("Late.__init__") is None  # set after the call
    assert bound_layout("loose") is None  # `Layout | None`
    assert bound_layout("lenient") is None  # a default
    assert bound_layout("renamed") is None  # assigned again
    graph = graph_of("declared_arguments")
    site = next(iter(graph.graph[f"{MODULE}.Mapper.__init__"][f"{MODULE}.build"]["sites"]))
    assert "layout" not in dict(carried(graph, (), site, f"{MODULE}.Mapper.__init__", f"{MODULE}.build", typed=True))
