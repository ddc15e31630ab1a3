"""A chain's condition under a loop: the callees' terms said in the looping function's names."""

from conftest import graph_of
from errscan.analysis.bindings import conditions_hold
from errscan.analysis.chains import reach, select
from errscan.analysis.entries import Entry
from errscan.analysis.quantified import _quoted, quantified
from errscan.extract.conditions import render

PREFIX = "calls.loop_arguments."


def stated(target, entry, line):
    """The condition of the chain from `entry` to the raise in `target`, as the chain states it."""
    graph = graph_of("loop_arguments")
    entries = {PREFIX + entry: Entry(PREFIX + entry, "main", ())}
    (chain,) = select(reach(graph, PREFIX + target, entries), lambda values: conditions_hold(None, values, "the raise")).chains
    (site,) = [s for s in graph.index.modules[PREFIX[:-1]].statements if s.line == line]
    path, last = quantified(graph, chain.nodes, chain.sites, site.condition)
    return render(path + last)


def test_a_parameter_under_the_callers_loop_is_the_argument_passed_and_a_local_its_value():
    assert stated("Scheduler.unmap", "Scheduler.update", 31) == \
        "any(self.is_producer and req_id not in self.table for req_id in output.finished)"


def test_self_is_the_object_called_on_and_a_callees_local_keeps_its_own_name():
    # `task` is `Writer.schedule`'s local, which no other function of the chain uses: it stays `task`
    assert stated("Writer.check", "Scheduler.save", 16) == (
        "any(meta.ready and key not in self.writer.seen and not self.writer.started and task.ready and "
        "task.key not in self.writer.done for (key, meta) in metadata.items())")


def test_a_callees_local_named_as_a_name_of_the_looping_function_is_left_out():
    # `send`'s `item` is not `send_all`'s loop target `item`: its term is left out, `piece`'s kept
    assert stated("Sender.send", "Sender.send_all", 80) == "any(piece.size > 8 for item in batch)"


def test_a_test_of_a_default_passed_in_says_nothing_and_is_left_out():
    assert stated("Writer.check", "Scheduler.flush", 16) == \
        "any(name.ready and name.key not in self.writer.done for name in self.pending)"  # `not strict`: `not False`


def test_a_raises_term_is_restated_as_any_other():
    assert stated("Scheduler.lookup", "Scheduler.find", 50) == "any(raises(KeyError, self.table[key]) for key in names)"


def test_a_property_read_through_attributes_is_called_on_the_object_that_has_it():
    # `self.channel.worker.table` reads the property `worker` of `self.channel`, not of `self.channel.worker`
    assert stated("Channel.worker", "Pool.drain", 57) == "any(batch.ready and self.channel._ref() is None for batch in batches)"


def test_a_constant_term_is_decided_without_a_warning(recwarn):
    from errscan.analysis.quantified import _always

    assert _always("1 is not None") and not _always("'x' is None")
    assert not [w for w in recwarn if issubclass(w.category, SyntaxWarning)]  # a whole-package scan prints none


def test_a_property_read_into_a_local_is_the_getter_run_on_self():
    assert stated("Cache.tensors", "Cache.drain", 86) == "any(len(self.device) != 0 and not self.device for ratio in ratios)"


def test_the_names_a_raises_term_quotes_are_those_its_statements_read():
    assert _quoted("any(raises(KeyError, 'return d[key]') for key in names)") == frozenset({"d", "key"})
    assert _quoted("raises(KeyError, 'return (') and x") == frozenset()
    assert _quoted("x > 1") == frozenset()
