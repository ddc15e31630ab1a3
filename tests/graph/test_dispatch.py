"""Method calls on objects of a known class: along the MRO, and to overrides in its own subclasses."""

from conftest import callees, graph_of


def test_self_call_reaches_the_callers_mro_and_its_subclasses_only():
    graph = graph_of("self_dispatch")
    assert callees(graph, "self_dispatch.Left.work") == {
        "self_dispatch.Base.describe": {"self"},
        "self_dispatch.LeftChild.describe": {"override"},
        "self_dispatch.Mixin.describe": {"override"},  # Mixed(Mixin, Left) resolves to Mixin's
        "self_dispatch.Diamond.describe": {"override"},
    }


def test_a_call_on_a_base_reaches_every_subclass():
    graph = graph_of("self_dispatch")
    assert set(callees(graph, "self_dispatch.Base.run")) == {
        "self_dispatch.Base.describe", "self_dispatch.LeftChild.describe", "self_dispatch.Right.describe",
        "self_dispatch.Mixin.describe", "self_dispatch.Diamond.describe",
    }


def test_super_goes_to_the_next_class_of_the_c3_order():
    graph = graph_of("self_dispatch")
    assert graph.mro("calls.self_dispatch.Diamond") == [
        f"calls.self_dispatch.{c}" for c in ("Diamond", "LeftChild", "Left", "Right", "Base")]
    assert callees(graph, "self_dispatch.Diamond.describe") == {"self_dispatch.LeftChild.describe": {"super"}}
    assert callees(graph, "self_dispatch.Left.describe_later") == {"self_dispatch.Base.describe": {"super"}}


def test_a_typed_attribute_dispatches_to_its_class_and_subclasses():
    graph = graph_of("self_dispatch")
    assert callees(graph, "self_dispatch.Typed.use") == {
        "self_dispatch.Base.describe": {"attribute"},
        "self_dispatch.LeftChild.describe": {"override"},
        "self_dispatch.Mixin.describe": {"override"},
        "self_dispatch.Diamond.describe": {"override"},
    }


def test_a_property_read_calls_its_getter_and_has_its_return_type():
    graph = graph_of("property_chain")
    assert callees(graph, "property_chain.Writer.flush") == {
        "property_chain.Writer.worker": {"property"},
        "property_chain.Wrapper.write": {"attribute"},
    }
    assert graph.functions["calls.property_chain.Writer.worker"][0].returns == "Worker"  # the getter, not the setter


def test_starting_a_thread_subclass_runs_its_run():
    graph = graph_of("thread_subclass")
    assert callees(graph, "thread_subclass.Owner.start_threads") == {"thread_subclass.TransferThread.run": {"thread"}}
    assert "calls.thread_subclass.SendingThread.handle" in graph.graph["calls.thread_subclass.TransferThread.run"]


def test_functions_handed_to_runners_get_their_own_resolution():
    graph = graph_of("runners")
    assert callees(graph, "runners.Service.start") == {
        "runners.Service._serve": {"thread"}, "runners.Service._expire": {"thread"},
        "runners.Service._flush": {"executor"},
    }
    assert callees(graph, "runners.Service.start_async") == {
        "runners.Service._flush": {"executor"}, "runners.Service._listen": {"task"},
        "runners.Service._expire": {"callback"}, "runners.Service.register": {"self"},
    }
    assert callees(graph, "runners.Queue.use") == {"runners.Queue.submit": {"self"}, "runners.Queue.drain": {"callback"}}
    assert callees(graph, "runners.Router.serve") == {"runners.Router.route": {"self"}, "runners.Router.handle": {"registered"}}


def test_a_class_looked_up_at_run_time_is_any_class_the_lookup_may_give():
    graph = graph_of("class_lookup")
    assert callees(graph, "class_lookup.cache_layout") == {
        "class_lookup.Factory.get_connector_class": {"module"},
        "class_lookup.Connector.required_layout": {"returned-class"},
        "class_lookup.NixlConnector.required_layout": {"returned-class"},
    }
    assert callees(graph, "class_lookup.Factory.create")["class_lookup.Connector.__init__"] == {"returned-class"}
    assert callees(graph, "class_lookup.layout_of_picked") == {
        "class_lookup.pick": {"module"},
        "class_lookup.NixlConnector.required_layout": {"returned-class"},
        "class_lookup.Connector.required_layout": {"returned-class"},  # PlainConnector inherits it
    }
    assert callees(graph, "class_lookup.hand_over") == {"class_lookup.make_backend": {"module"}}


def test_a_plain_read_of_a_property_calls_its_getter():
    graph = graph_of("property_chain")
    assert callees(graph, "property_chain.Writer.describe") == {"property_chain.Writer.worker": {"property"}}
    assert not callees(graph, "property_chain.Worker.__init__")  # `self.wrapper` is no property
    assert callees(graph, "property_chain.Writer.hand_over") == {"property_chain.Writer.worker": {"property"}}


def _lines(graph, caller: str, callee: str) -> list[int]:
    return [site.line for site in graph.graph[f"calls.{caller}"][f"calls.{callee}"]["sites"]]


def test_a_property_read_into_a_local_runs_its_getter_where_it_is_bound():
    graph = graph_of("property_through_local")
    assert _lines(graph, "property_through_local.Sender.flush", "property_through_local.Sender.engine") == [28]
    assert "calls.property_through_local.Pipe.send" in graph.graph["calls.property_through_local.Sender.flush"]
    assert _lines(graph, "property_through_local.Sender.send", "property_through_local.Sender.engine") == [32]
    assert _lines(graph, "property_through_local.Sender.send", "property_through_local.Engine.channel") == [33]


def test_a_class_constructed_for_an_attribute_is_its_type_over_a_looser_annotation():
    graph = graph_of("constructor_over_annotation")
    fast, slow = ({f"constructor_over_annotation.{c}.run"} for c in ("Fast", "Slow"))
    assert set(callees(graph, "constructor_over_annotation.Declared.go")) == fast
    assert set(callees(graph, "constructor_over_annotation.Annotated.go")) == fast
    # either is built, or what was given, or another value: any `Base`, but no `Base` itself is ever
    # built and both subclasses override `run`
    assert set(callees(graph, "constructor_over_annotation.Either.go")) == fast | slow
    assert set(callees(graph, "constructor_over_annotation.Given.go")) == fast | slow
    assert set(callees(graph, "constructor_over_annotation.Chosen.go")) == fast | slow


def test_a_kernel_handed_to_cute_compile_is_traced_by_calling_it():
    graph = graph_of("jit_trace")
    assert callees(graph, "jit_trace.run") == {
        "jit_trace.Kernel.__init__": {"constructor"},
        "jit_trace.Kernel.__call__": {"trace"},
        "jit_trace.launch": {"trace"},
    }


def test_a_method_of_an_attribute_a_factory_fills_goes_to_what_it_builds():
    from conftest import callees, graph_of

    graph = graph_of("made_client")
    base = "made_client.Client.sleep"
    assert set(callees(graph, "made_client.Engine.sleep")) == {"made_client.InprocClient.sleep", "made_client.SyncClient.sleep"}
    # a return that calls a function (`make_async()`) may give any `Client`; so may a value set elsewhere
    assert base in callees(graph, "made_client.AsyncEngine.sleep")
    assert base in callees(graph, "made_client.Replaced.sleep")


def test_a_declared_base_no_object_of_which_exists_is_no_target():
    graph = graph_of("abstract_base_declared")
    # an ABC with abstract methods: `connector_cls(config)` builds one of its subclasses
    assert callees(graph, "abstract_base_declared.Factory.create") == {
        "abstract_base_declared.Factory.get_connector_class": {"cls"},
        "abstract_base_declared.NixlConnector.__init__": {"returned-class"},
        "abstract_base_declared.SharedConnector.__init__": {"returned-class"},
    }
    # a plain base nothing builds, every subclass overriding `reduce`
    assert callees(graph, "abstract_base_declared.Logging.log") == {
        "abstract_base_declared.TransferStats.reduce": {"override"},
        "abstract_base_declared.StoreStats.reduce": {"override"},
    }
    # a subclass inherits `reset`; a base that is built keeps its own method
    assert "abstract_base_declared.Stats.reset" in callees(graph, "abstract_base_declared.Logging.clear")
    assert set(callees(graph, "abstract_base_declared.total")) == {
        "abstract_base_declared.Metric.value", "abstract_base_declared.Counter.value"}
    # a class held in a set, or returned through a local, may be built
    assert set(callees(graph, "abstract_base_declared.apply_layer")) == {
        "abstract_base_declared.Layer.apply", "abstract_base_declared.RowLayer.apply"}
    assert set(callees(graph, "abstract_base_declared.run_on")) == {
        "abstract_base_declared.Executor.run", "abstract_base_declared.ProcExecutor.run"}
    # a base built under another name it is imported as, inside a function
    assert set(callees(graph, "abstract_base_declared.drive")) == {
        "abstract_base_declared.Runner.step", "abstract_base_declared.XRunner.step"}
    assert graph.base_calls_narrowed == graph.callgraph_document().base_calls_narrowed == 2


def test_classes_held_as_values_are_recorded_where_they_are_held():
    graph = graph_of("held_classes")
    assert graph.index.modules["calls.held_classes"].values == (
        ("", "Ordered", None), ("pick", "Counter", None), ("pick", "Ordered", None))


def _conditions(graph, caller: str, callee: str) -> set[str | None]:
    from errscan.extract.conditions import render

    sites = graph.graph[f"calls.chosen_receiver.{caller}"][f"calls.chosen_receiver.{callee}"]["sites"]
    return {render(s.condition) for s in sites}


def test_a_call_on_an_attribute_whose_class_was_chosen_under_a_condition_carries_it():
    graph = graph_of("chosen_receiver")
    native = "config.get_from_extra_config('use_native', False)"  # the local `use_native` read through
    assert _conditions(graph, "Aliased.load", "Native.load") == {native}  # the assert holds either way
    assert _conditions(graph, "Aliased.load_through_local", "Native.load") == {native}
    assert _conditions(graph, "Expression.load", "Native.load") == {"fast"}
    assert _conditions(graph, "Expression.load", "Remote.load") == {"not fast"}
    assert _conditions(graph, "Expression.reload", "Native.load") == {None}  # its own `fast` is another
    assert _conditions(graph, "Guarded.load", "Native.load") == {None}  # a guard that returned chose nothing
    assert _conditions(graph, "Rebound.load", "Native.load") == {None}  # `mode == 'native'` reads a local of `__init__`


def test_no_condition_where_another_value_may_be_of_the_class():
    graph = graph_of("chosen_receiver")
    assert _conditions(graph, "Handed.load", "Native.load") == {None}  # a parameter's value may be a `Native`
    assert _conditions(graph, "Sometimes.load", "Native.load") == {None}  # `Always` gives one unconditionally
    assert _conditions(graph, "Twice.load", "Native.load") == {None}
    assert _conditions(graph, "Reset.load", "Native.load") == {None}
    assert _conditions(graph, "Branched.load", "Native.load") == {"not config.remote"}


def test_a_name_bound_to_either_of_two_imports_reaches_both():
    graph = graph_of("fallback_alias", "fallback_real", "fallback_stand_in")
    assert set(callees(graph, "fallback_alias.open_store")) == {
        "fallback_real.Client.__init__", "fallback_stand_in.Client.__init__"}
