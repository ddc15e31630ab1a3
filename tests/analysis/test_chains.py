"""Chains: every way into a raising function, and the shortest chain from every entry point."""

from conftest import graph_of
from errscan.analysis.chains import MAX_CHAINS, reach
from errscan.analysis.entries import Entry


def entry_points(*names):
    return {f"calls.ways_in.{n}": Entry(f"calls.ways_in.{n}", "main", ()) for n in names}


def tails(found):
    return [[n.rsplit(".", 1)[1] for n in chain.nodes] for chain in found.chains]


def test_each_way_into_the_function_gets_a_chain():
    found = reach(graph_of("ways_in"), "calls.ways_in.tp_ratio", entry_points("send"))
    assert tails(found) == [["send", "_validate", "tp_ratio"], ["send", "_build_params", "_plan", "tp_ratio"]]
    assert [s.line for s in found.chains[1].sites] == [29, 23, 18]
    assert "replicated" in found.chains[1].sites[1].condition[0].raw


def test_every_entry_point_gets_its_shortest_chain():
    found = reach(graph_of("ways_in"), "calls.ways_in.tp_ratio", entry_points("send", "handshake", "_plan"))
    assert tails(found) == [
        ["_plan", "tp_ratio"], ["send", "_validate", "tp_ratio"], ["handshake", "send", "_validate", "tp_ratio"]]
    assert [e.node.rsplit(".", 1)[1] for e in found.entries] == ["_plan", "send", "handshake"]
    assert MAX_CHAINS >= 8


def test_a_chain_through_an_entry_point_of_another_kind_is_left_to_that_entry():
    entries = entry_points("send", "_plan")
    entries["calls.ways_in.handshake"] = Entry("calls.ways_in.handshake", "route", ())
    entries["calls.ways_in.send"] = Entry("calls.ways_in.send", "model", ())
    found = reach(graph_of("ways_in"), "calls.ways_in.tp_ratio", entries)
    assert ["handshake", "send", "_validate", "tp_ratio"] not in tails(found)  # `send`'s own chain tells it
    assert "calls.ways_in.handshake" in [e.node for e in found.entries]  # the route still reaches the error
