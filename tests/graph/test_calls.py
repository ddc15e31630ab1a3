"""Call graph edges and how each was resolved; what cannot be resolved stays unresolved."""


import pytest

from conftest import FIXTURES, package_graph


@pytest.fixture(scope="module")
def whole():
    """Every edge of the analysis package's graph (a catalog's document keeps those toward its errors)."""
    return package_graph(FIXTURES / "analysis_pkg").callgraph_document()


def has_edge(document, caller_tail, callee_tail, resolution):
    return any(
        e.caller.endswith(caller_tail) and e.callee.endswith(callee_tail) and e.resolution == resolution
        for e in document.edges
    )


def test_resolutions(whole):
    assert has_edge(whole, "PlainConnector.__init__", "KVConnectorBase_V1.__init__", "super")
    assert has_edge(whole, "PlainConnector.__init__", "PlainConnector._validate", "self")
    assert has_edge(whole, "PlainConnector.__init__", "NativeImpl.__init__", "constructor")
    assert has_edge(whole, "Scheduler.__init__", "KVConnectorFactory.create_connector", "import")
    assert has_edge(whole, "Scheduler.schedule", "KVConnectorBase_V1.update_state", "attribute")
    assert has_edge(whole, "Scheduler.schedule", "PlainConnector.update_state", "override")
    assert has_edge(whole, "chosen.<module>", "chosen._resolve", "module")


def test_unknown_receiver_stays_unresolved(whole):
    assert not any(e.callee.endswith("mystery") for e in whole.edges)
    assert whole.unresolved_calls >= 1


def test_functions_passed_as_values_are_edges(whole):
    assert has_edge(whole, "Worker.start", "Worker._drain", "executor")  # `pool.submit(callback)`


def test_a_class_passed_as_a_value_is_not_constructed(whole):
    assert not any(e.caller.endswith("Worker.owns") for e in whole.edges)


def test_each_edge_records_what_the_call_is_made_on():
    from conftest import graph_of

    document = graph_of("receivers").callgraph_document()
    found = {(e.callee.removeprefix("calls.receivers."), e.line, e.receiver)
             for e in document.edges if e.caller.endswith("Runner.go")}
    assert found >= {
        ("Runner.start", 34, "self"), ("Engine.start", 35, "attribute"), ("Engine.start", 36, "parameter"),
        ("Engine.start", 37, "result"), ("Engine.__init__", 38, "class"), ("Engine.start", 39, "local"),
        ("Engine.make", 40, "class"), ("helper", 41, "function"),
    }
    receivers = {(e.callee.rsplit(".", 1)[1], e.receiver) for e in document.edges}
    assert {("start", "super"), ("build", "cls")} <= receivers


def test_a_method_of_a_module_level_instance():
    from conftest import callees, graph_of

    graph = graph_of("module_instance")
    assert callees(graph, "module_instance.find") == {"module_instance.Registry.lookup": {"module-instance"}}
    assert callees(graph, "module_instance.find_unknown") == {}  # what `make_registry()` gives is not known


def test_a_name_a_star_import_brings():
    from conftest import callees, graph_of

    graph = graph_of("star_package", "star_impl")
    assert callees(graph, "star_package.call_through_star") == {"star_impl.helper": {"module"}}
    assert graph.index.canonical("calls.star_package._private") == "calls.star_package._private"  # not brought


def test_a_catalog_keeps_every_edge_toward_its_errors_and_no_other(analysis_catalog, whole):
    kept = set(analysis_catalog.callgraph.edges)
    assert kept < set(whole.edges)  # a part of the graph, not all of it
    reaching = {e.callee for e in kept}
    # closed: a call into a function that reaches an error is kept, whoever makes it
    assert {e for e in whole.edges if e.callee in reaching} == kept
    steps = {(s.caller, s.callee, s.path, s.line) for e in analysis_catalog.errors if e.trigger for c in e.trigger.chains for s in c.steps}
    assert steps and steps <= {(e.caller, e.callee, e.path, e.line) for e in kept}  # every chain can be audited
    assert analysis_catalog.callgraph.graph_edges == whole.graph_edges > len({(e.caller, e.callee) for e in kept})


def test_the_integer_rows_spell_out_the_same_edges(whole):
    from errscan.model import CallGraphDocument

    counts = {k: getattr(whole, k) for k in ("nodes", "graph_edges", "unresolved_calls", "external_calls", "base_calls_narrowed")}
    assert CallGraphDocument.of_edges(list(whole.edges), **counts) == whole
    assert len(whole.functions) == len(set(whole.functions)) and list(whole.functions) == sorted(whole.functions)
    assert len(whole.calls) == len(whole.edges) and all(len(row) == 6 for row in whole.calls)


def test_a_function_a_registrar_keeps_is_no_call_from_the_registering_function():
    from conftest import callees, graph_of

    keeps = (("register_op", "op_func"), ("register_op", "1"), ("register_op", "fake_impl"))
    assert callees(graph_of("kept_function"), "kept_function.register_ops") == {
        "kept_function.register_op": {"module"}, "kept_function.kernel": {"callback"}, "kept_function.kernel_fake": {"callback"},
    }
    kept = graph_of("kept_function", keeps=keeps)
    assert set(callees(kept, "kept_function.register_ops")) == {"kept_function.register_op"}
    # a function handed to any other function is still called by it
    assert callees(kept, "kept_function.run_each")["kept_function.kernel"] == {"callback"}


def test_resolving_after_the_build_leaves_the_count_of_external_calls():
    """The analysis resolves calls again (how many times depends on which process remembered
    what): the published count is that of the package's calls, as the graph was built."""
    graph = package_graph(FIXTURES / "analysis_pkg")
    built = graph.callgraph_document().external_calls
    counted = graph.external
    for module in graph.index.modules.values():
        for call in module.calls:
            graph.resolve_callee(module, call.caller, call.callee, None)
    assert graph.external > counted  # resolving again counts again
    assert graph.callgraph_document().external_calls == built > 0
