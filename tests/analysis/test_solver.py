"""The SMT encoding of conditions: what it proves, and that it proves nothing it should not."""

import z3

from errscan.analysis.solver import _conjunction, example_values, rules_out, satisfiable


def test_contradictions_are_proved():
    assert satisfiable("x > 1 and x < 0") is False
    assert satisfiable("a is None and a is not None") is False
    assert satisfiable("mode in ('a', 'b') and mode == 'c'") is False


def test_what_is_not_modelled_stays_possible():
    assert satisfiable("any(g.ok for g in groups) and not all(g.ok for g in groups)") is True
    assert satisfiable("f(x) and not f(y)") is True


def test_a_value_rules_a_condition_out_for_every_other_value():
    condition = "len(groups) > 1 and pcp * dcp > 1"
    assert not rules_out(condition, {"pcp": 1})  # dcp may still be 2
    assert rules_out(condition, {"pcp": 1, "dcp": 1})


def test_a_value_that_fails_an_earlier_check_is_no_fix():
    assert rules_out("mode != 'slow' and fast", {"mode": "slow"})
    assert not rules_out("mode != 'slow' and fast", {"mode": "slow"}, keep=("not mode == 'slow'",))


def test_setting_a_value_means_it_is_set():
    assert rules_out("name is None", {"name": "x"})
    assert rules_out("str(cfg.get('b', 'r')).lower() not in ('rdma', 'xgmi')", {"cfg.get('b', 'r')": "rdma"})


def test_a_model_gives_values_under_which_the_condition_holds():
    found = example_values("pcp * dcp > 1 and pcp == 1", ("pcp", "dcp"))
    assert found["pcp"] == 1 and found["dcp"] > 1


def test_a_model_gives_sizes_a_user_would_write_where_the_condition_allows_it():
    # `n * (size // block) == 0` holds at block == -1 as well as at a positive block size
    assert example_values("blocks == n * (size // block) and size == 16 and n == 2", ("block",))["block"] >= 1
    assert example_values("block < 0", ("block",))["block"] < 0  # the condition's own sign is kept


def test_a_part_of_any_that_no_loop_variable_enters_must_hold():
    condition = "any(x.path is not None and not self.allow for x in items)"
    assert rules_out(condition, {"self.allow": True})
    assert not rules_out("any(x.allow for x in items)", {"self.allow": True})  # the loop's own: unknown
    assert satisfiable(condition, "not self.allow")


def test_a_conditional_expression_is_modelled_by_its_branches():
    # an inlined getter whose default is the value compared with (`helpers.py`)
    assert satisfiable("(x if x is not None else 'DS') != 'DS'", "x == 'DS'") is False
    assert satisfiable("(x if x is not None else 'DS') != 'DS'", "x is None") is False
    assert satisfiable("(x if x is not None else 'DS') != 'DS'") is True


def test_the_values_found_do_not_depend_on_what_was_asked_before():
    """In z3's shared context the same question got another model after a few askings: the
    example commands of an error then depended on which errors a process had analysed before."""
    from errscan.analysis.solver import example_values

    condition = "config.transfer is not None and (config.scheduler.disable_hybrid or cls.supports(config.transfer))"
    leaf = "config.scheduler.disable_hybrid"
    assert len({example_values(condition, (leaf,))[leaf] for _ in range(8)}) == 1


def test_a_hard_question_is_unknown_after_the_same_work_however_loaded_the_machine(monkeypatch):
    """z3's work units, not seconds, bound a check: a slow machine gives the same answers."""
    import z3

    from errscan.analysis import solver

    def work_done() -> int:  # z3 counts its units per context, over every solver in it
        probe = z3.Solver()
        probe.check()
        return probe.statistics().get_key_value("rlimit count")

    hard = "x * x * x + y * y * y == z * z * z and x > 1 and y > 1 and z > 1"
    monkeypatch.setattr(solver, "TIMEOUT_MS", 3_000)
    monkeypatch.setattr(solver, "_SHARED", [])
    before = work_done()
    assert solver.satisfiable.__wrapped__(hard) is None
    assert work_done() - before <= solver.RESOURCE_LIMIT * 1.01  # stopped by the work done, not the clock


def test_a_collection_written_out_has_the_truth_and_size_of_its_items():
    assert satisfiable("not (a, )") is False and satisfiable("not {'k': v}") is False
    assert satisfiable("len((a, b, )) > 2") is False and satisfiable("len({'k': v}) == 1") is True
    assert satisfiable("not []") is True and satisfiable("not (*rest, )") is not False  # its size is not written


def test_an_object_whose_length_is_taken_is_true_exactly_when_it_holds_something():
    assert satisfiable("len(self.caches) != 0 and not self.caches") is False
    assert satisfiable("not self.caches", "len(self.caches) > 2") is False  # whichever comes first
    assert satisfiable("self.caches and len(self.caches) == 0") is False
    assert satisfiable("len(self.caches) != 0 and not self.other") is True


def test_a_conjunction_is_the_term_z3_makes_of_its_parts():
    a, b = z3.Bools("a b")
    parts = [a, b == a, z3.Int("n") > 0]
    assert _conjunction(parts).get_id() == z3.And(parts).get_id()
