"""Call graph edges and how each was resolved; what cannot be resolved stays unresolved."""


def has_edge(catalog, caller_tail, callee_tail, resolution):
    return any(
        e.caller.endswith(caller_tail) and e.callee.endswith(callee_tail) and e.resolution == resolution
        for e in catalog.callgraph.edges
    )


def test_resolutions(analysis_catalog):
    assert has_edge(analysis_catalog, "PlainConnector.__init__", "KVConnectorBase_V1.__init__", "super")
    assert has_edge(analysis_catalog, "PlainConnector.__init__", "PlainConnector._validate", "self")
    assert has_edge(analysis_catalog, "PlainConnector.__init__", "NativeImpl.__init__", "constructor")
    assert has_edge(analysis_catalog, "Scheduler.__init__", "KVConnectorFactory.create_connector", "import")
    assert has_edge(analysis_catalog, "Scheduler.schedule", "KVConnectorBase_V1.update_state", "attribute")
    assert has_edge(analysis_catalog, "Scheduler.schedule", "PlainConnector.update_state", "override")
    assert has_edge(analysis_catalog, "chosen.<module>", "chosen._resolve", "module")


def test_unknown_receiver_stays_unresolved(analysis_catalog):
    assert not any(e.callee.endswith("mystery") for e in analysis_catalog.callgraph.edges)
    assert analysis_catalog.callgraph.unresolved_calls >= 1


def test_functions_passed_as_values_are_edges(analysis_catalog):
    assert has_edge(analysis_catalog, "Worker.start", "Worker._drain", "executor")  # `pool.submit(callback)`


def test_a_class_passed_as_a_value_is_not_constructed(analysis_catalog):
    assert not any(e.caller.endswith("Worker.owns") for e in analysis_catalog.callgraph.edges)


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
