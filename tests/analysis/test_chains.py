"""Chains: every way into a raising function, and the shortest chain from every entry point."""

from dataclasses import replace

from conftest import graph_of
from errscan.analysis.bindings import Bound, conditions_hold
from errscan.analysis.chains import MAX_CHAINS, reach, select, unresolved_names
from errscan.analysis.entries import Entry
from errscan.analysis.search import Kept


def entry_points(*names):
    return {f"calls.ways_in.{n}": Entry(f"calls.ways_in.{n}", "main", ()) for n in names}


def shown(graph, target, entries, site_condition=None):
    """The chains of a site whose own condition is `site_condition` (None: always true)."""
    return select(reach(graph, target, entries), lambda values: conditions_hold(site_condition, values, "the raise"))


def tails(found):
    return [[n.rsplit(".", 1)[1] for n in chain.nodes] for chain in found.chains]


def test_each_way_into_the_function_gets_a_chain():
    found = shown(graph_of("ways_in"), "calls.ways_in.tp_ratio", entry_points("send"))
    assert tails(found) == [["send", "_validate", "tp_ratio"], ["send", "_build_params", "_plan", "tp_ratio"]]
    assert [s.line for s in found.chains[1].sites] == [29, 23, 18]
    assert "replicated" in found.chains[1].sites[1].condition[0].raw


def test_every_entry_point_gets_its_shortest_chain():
    found = shown(graph_of("ways_in"), "calls.ways_in.tp_ratio", entry_points("send", "handshake", "_plan"))
    assert tails(found) == [
        ["_plan", "tp_ratio"], ["send", "_validate", "tp_ratio"], ["handshake", "send", "_validate", "tp_ratio"]]
    assert [e.node.rsplit(".", 1)[1] for e in found.entries] == ["_plan", "send", "handshake"]
    assert MAX_CHAINS >= 8


def test_a_chain_through_an_entry_point_of_another_kind_is_left_to_that_entry():
    entries = entry_points("send", "_plan")
    entries["calls.ways_in.handshake"] = Entry("calls.ways_in.handshake", "route", ())
    entries["calls.ways_in.send"] = Entry("calls.ways_in.send", "model", ())
    found = shown(graph_of("ways_in"), "calls.ways_in.tp_ratio", entries)
    assert ["handshake", "send", "_validate", "tp_ratio"] not in tails(found)  # `send`'s own chain tells it
    assert "calls.ways_in.handshake" in [e.node for e in found.entries]  # the route still reaches the error


def carried_entries(*names):
    return {f"calls.carried_arguments.Worker.{n}": Entry(f"calls.carried_arguments.Worker.{n}", "main", ()) for n in names}


def test_a_chain_whose_arguments_rule_a_step_out_is_kept_apart_with_the_reason():
    found = shown(graph_of("carried_arguments"), "calls.carried_arguments.Worker.register", carried_entries("pull", "push"))
    assert tails(found) == [["push", "_ensure", "_handshake", "_add_notif_only", "register"]]
    assert [c.satisfiable for c in found.chains] == [True]
    (refused,) = found.infeasible
    assert [n.rsplit(".", 1)[1] for n in refused.nodes] == ["pull", "_ensure", "_handshake", "_add_notif_only", "register"]
    assert refused.satisfiable is False
    assert "`notif_only` is `False` (the default of `_ensure`, not passed at carried_arguments.py:26)" in refused.why
    assert [e.node.rsplit(".", 1)[1] for e in found.entries] == ["push"]  # pull does not reach it


def test_the_sites_own_condition_is_read_with_the_arguments_carried():
    graph = graph_of("carried_arguments")
    found = shown(graph, "calls.carried_arguments.Worker._add_notif_only", carried_entries("push"), "engine_id == 'x'")
    assert found.chains and found.chains[0].satisfiable is not False
    found = shown(graph, "calls.carried_arguments.Worker.register", carried_entries("push"), "local_id != 'local'")
    assert not found.chains and "`local_id` is `'local'` (passed at carried_arguments.py:16)" in found.infeasible[0].why


def test_each_entry_point_gets_its_chain_before_further_ways_in():
    found = shown(graph_of("ways_in"), "calls.ways_in.tp_ratio", entry_points("send", "handshake"))
    firsts = [chain.entry.node.rsplit(".", 1)[1] for chain in found.chains]
    assert firsts[:2] == ["send", "handshake"] and len(firsts) == 3  # then the second way in, from `send`


def test_a_parameter_assigned_again_is_not_bound_by_the_caller():
    entries = {"calls.rebound_parameter.main": Entry("calls.rebound_parameter.main", "main", ())}
    found = shown(graph_of("rebound_parameter"), "calls.rebound_parameter.fail", entries)
    assert tails(found) == [["main", "fetch", "fail"]] and not found.infeasible


def test_the_condition_under_which_an_alias_was_bound_does_not_rule_its_call_out():
    graph = graph_of("alias_condition")
    sites = graph.graph["calls.alias_condition.collect"]["calls.alias_condition.Stats.aggregate"]["sites"]
    assert not any("stats is None" in t.raw for s in sites for t in s.condition)  # about the value replaced
    entries = {"calls.alias_condition.collect": Entry("calls.alias_condition.collect", "main", ())}
    found = shown(graph, "calls.alias_condition.Stats.aggregate", entries)
    assert tails(found) == [["collect", "aggregate"]] and not found.infeasible


def test_a_thread_started_on_an_attribute_runs_the_handler_of_the_class_it_holds():
    entries = {"calls.thread_start_held.Worker.start": Entry("calls.thread_start_held.Worker.start", "main", ())}
    found = shown(graph_of("thread_start_held"), "calls.thread_start_held.ReceivingThread._handle", entries)
    assert tails(found) == [["start", "run", "_handle"]]
    assert [s.line for s in found.chains[0].sites] == [35, 10]  # `receiver.start()`, not `self.sender.start()` (32)


def test_an_object_the_caller_constructed_is_never_none_on_the_chain():
    graph = graph_of("constructed_argument")
    entries = {f"calls.constructed_argument.Worker.{n}": Entry(f"calls.constructed_argument.Worker.{n}", "main", ())
               for n in ("__init__", "reset", "connect")}
    found = shown(graph, "calls.constructed_argument.Wrapper.set_engine", entries, "engine is None")
    assert tails(found) == [["reset", "set_engine"]]  # `reset` may pass None
    assert sorted(tails(replace(found, chains=found.infeasible))) == [["__init__", "set_engine"], ["connect", "set_engine"]]
    whys = sorted(chain.why for chain in found.infeasible)
    assert "`engine` is a `Engine` object, never None (passed at constructed_argument.py:26)" in whys[0]
    assert "`engine` is a `RemoteEngine` object, never None (passed at constructed_argument.py:34)" in whys[1]


def test_a_recursion_through_attributes_keeps_few_dispatch_demands_per_function():
    from errscan.analysis.search import MAX_BOUNDS, Search
    from errscan.analysis.dispatch import Dispatch

    graph = graph_of("dispatch_recursion")
    entries = {"calls.dispatch_recursion.main": Entry("calls.dispatch_recursion.main", "main", ())}
    tree = Search(graph, entries, frozenset(), Dispatch(graph)).run("calls.dispatch_recursion.Node.check")
    per_function = {}
    for node, _, _ in tree.toward:
        per_function[node] = per_function.get(node, 0) + 1
    assert max(per_function.values()) <= MAX_BOUNDS + 1  # not one state per path up the recursion
    assert [entry.node for _, entry in tree.found][:1] == ["calls.dispatch_recursion.main"]


def test_a_named_constant_passed_binds_the_parameter_read_under_the_same_name():
    """tests/fixtures/calls/named_constant_argument.py: `zmq.ROUTER` and `zmq.DEALER` are among the
    allowed types; `zmq.PUSH` is another name (maybe another value), and `PUB` is read as
    `zmq.PUB` only through an import the callee does not share: both stay possible."""
    graph = graph_of("named_constant_argument")
    entries = {f"calls.named_constant_argument.{n}": Entry(f"calls.named_constant_argument.{n}", "main", ())
               for n in ("listen", "dial", "publish", "fan_out")}
    found = shown(graph, "calls.named_constant_argument.open_socket", entries,
                  "socket_type not in (zmq.ROUTER, zmq.REQ, zmq.DEALER)")
    assert sorted(tails(found)) == [["fan_out", "open_socket"], ["publish", "open_socket"]]
    assert sorted(tails(replace(found, chains=found.infeasible))) == [["dial", "open_socket"], ["listen", "open_socket"]]
    assert any("`socket_type` is `zmq.ROUTER` (passed at named_constant_argument.py:12)" in c.why for c in found.infeasible)


def test_an_entry_reaching_the_function_only_through_infeasible_entries_of_another_kind_does_not_reach_it():
    """`serve` (a route) reaches `open_socket` only through `listen`, whose chain is left to it: when
    `listen`'s and `dial`'s chains cannot be taken, neither can `serve`'s."""
    graph = graph_of("named_constant_argument")
    entries = {f"calls.named_constant_argument.{n}": Entry(f"calls.named_constant_argument.{n}", "main", ())
               for n in ("listen", "dial")}
    entries["calls.named_constant_argument.serve"] = Entry("calls.named_constant_argument.serve", "route", ())
    found = reach(graph, "calls.named_constant_argument.open_socket", entries)
    assert found.deferred == {"calls.named_constant_argument.serve"}
    chosen = select(found, lambda values: conditions_hold("socket_type not in (zmq.ROUTER, zmq.REQ, zmq.DEALER)", values, "the raise"))
    assert chosen.entries == () and not chosen.chains and len(chosen.infeasible) == 2


def test_calls_of_another_function_of_the_same_name_leave_every_caller_known():
    """`Sockets().open_socket(...)` names `open_socket` too, but the graph resolves it elsewhere."""
    graph = graph_of("named_constant_argument")
    entries = {f"calls.named_constant_argument.{n}": Entry(f"calls.named_constant_argument.{n}", "main", ())
               for n in ("listen", "dial", "publish", "fan_out")}
    named = unresolved_names(graph)
    assert named["open_socket"] == 0
    assert reach(graph, "calls.named_constant_argument.open_socket", entries, named=named.__getitem__).closed


def test_a_call_through_an_alias_bound_under_the_same_condition_states_it_once():
    graph = graph_of("alias_same_condition")
    (site,) = graph.graph["calls.alias_same_condition.Worker.add"]["calls.alias_same_condition.Topology.describe"]["sites"]
    assert [t.raw for t in site.condition] == ["not ready"]


def test_an_alias_bound_under_a_test_of_its_own_earlier_value_does_not_carry_that_test():
    """`if stats is None: stats = extra` then `stats.aggregate(...)` when `stats is not None`:
    `stats is None` was about the value the assignment replaced."""
    graph = graph_of("alias_same_condition")
    sites = graph.graph["calls.alias_same_condition.merged"]["calls.alias_same_condition.Stats.aggregate"]["sites"]
    assert [[t.raw for t in site.condition] for site in sites] == [["extra is not None", "stats is not None"]]


def test_a_chain_through_an_attribute_of_a_class_chosen_under_a_condition_says_so():
    entries = {"calls.chosen_receiver.Aliased.load": Entry("calls.chosen_receiver.Aliased.load", "main", ())}
    found = shown(graph_of("chosen_receiver"), "calls.chosen_receiver.Native.load", entries)
    assert tails(found) == [["load", "load"]]
    assert [t.code for t in found.chains[0].condition] == ["config.get_from_extra_config('use_native', False)"]


def test_a_member_of_an_enum_passed_on_is_unequal_to_the_other_members():
    """tests/fixtures/calls/enum_member_argument.py: `Role.WORKER`, passed through `create`, is not
    `Role.SCHEDULER`, so the worker's way to the scheduler-only assert cannot be taken; a Flag's
    members combine into other values, so `Flags.READ` may still be compared equal to anything."""
    graph = graph_of("enum_member_argument")
    entries = {f"calls.enum_member_argument.{n}": Entry(f"calls.enum_member_argument.{n}", "main", ())
               for n in ("start_worker", "start_scheduler", "open_for_reading")}
    found = shown(graph, "calls.enum_member_argument.Connector.__init__", entries,
                  "role == Role.SCHEDULER and cache is None")
    assert [t[0] for t in tails(found)] == ["start_scheduler"]
    assert any("`role` is `Role.WORKER` (passed at enum_member_argument.py:" in c.why for c in found.infeasible)
    flags = shown(graph, "calls.enum_member_argument.check_mode", entries, "mode == Flags.WRITE")
    assert [t[0] for t in tails(flags)] == ["open_for_reading"] and not flags.infeasible


def test_a_default_function_the_caller_replaces_is_not_called_on_its_way():
    entries = {f"calls.replaced_default_function.{n}": Entry(f"calls.replaced_default_function.{n}", "main", ())
               for n in ("read", "write")}
    found = shown(graph_of("replaced_default_function"), "calls.replaced_default_function.merge_offsets", entries)
    assert tails(found) == [["write", "plan", "merge_offsets"]]
    (refused,) = found.infeasible
    assert [n.rsplit(".", 1)[1] for n in refused.nodes] == ["read", "plan", "merge_offsets"]
    assert "`merge_fn` is passed at replaced_default_function.py:16, so it is not its default" in refused.why


def test_a_collection_written_out_at_the_call_carries_its_size():
    entries = {f"calls.collection_written_out.Worker.{n}": Entry(f"calls.collection_written_out.Worker.{n}", "main", ())
               for n in ("register_many", "register_one")}
    found = shown(graph_of("collection_written_out"), "calls.collection_written_out.Worker.register", entries, "not caches")
    assert tails(found) == [["register_many", "register"]]
    (refused,) = found.infeasible
    assert "`caches` is a collection of 1 item (passed at collection_written_out.py:14)" in refused.why


def test_searches_that_share_what_they_worked_out_find_the_same_chains():
    graph = graph_of("ways_in")
    entries = entry_points("send", "recv")
    kept = Kept()
    judge = lambda values: conditions_hold(None, values, "the raise")  # noqa: E731
    alone = [select(reach(graph, f"calls.ways_in.{t}", entries), judge) for t in ("tp_ratio", "send")]
    shared = [select(reach(graph, f"calls.ways_in.{t}", entries, kept=kept), judge) for t in ("send", "tp_ratio")][::-1]
    assert kept.carried or kept.sites
    assert [tails(found) for found in shared] == [tails(found) for found in alone]


def test_a_condition_ruled_out_in_two_places_says_each_place():
    values = (("tp", Bound("1", "passed at a.py:3")),)
    first, second = conditions_hold("tp > 2", values, "the call at a.py:9"), conditions_hold("tp > 2", values, "the call at b.py:4")
    assert first == (False, "the call at a.py:9 is never reached on this way: `tp > 2` cannot hold, as `tp` is `1` (passed at a.py:3)")
    assert second == (False, first[1].replace("a.py:9", "b.py:4"))
    assert conditions_hold("tp > 0", values, "the call at a.py:9") == (True, "")
