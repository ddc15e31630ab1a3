"""Conditions in plain words, and their exact negation."""

from __future__ import annotations

import pytest

from errscan.analysis.plain import condition_words, negated_code, plain_words


@pytest.mark.parametrize(
    "code, words, negated_words",
    [
        ("x is None", "`x` is None (not set)", "`x` is set (not None)"),
        ("cfg.path is not None", "`cfg.path` is set (not None)", "`cfg.path` is None (not set)"),
        ("len(group_ids) != 1", "`group_ids` does not have exactly 1 item", "`group_ids` has exactly 1 item"),
        ("len(blocks) > 4", "`blocks` has more than 4 items", "`blocks` has at most 4 items"),
        ("len(blocks) == 0", "`blocks` is empty", "`blocks` is not empty"),
        # a set filled in a loop (`extract/filled.py`): a count of the values its items give
        ("len({c.layout for c in conns if c.layout is not None}) > 1",
         "over `c` in `conns` with `c.layout is not None`, `c.layout` takes more than 1 different value",
         "over `c` in `conns` with `c.layout is not None`, `c.layout` takes at most 1 different value"),
        ("not blocks", "`blocks` is false or empty", "`blocks` is true (set, non-empty)"),
        ("self.use_layerwise", "`self.use_layerwise` is true (set, non-empty)", "`self.use_layerwise` is false or empty"),
        ("pcp > 1", "`pcp` is greater than `1`", "`pcp` is at most `1`"),
        ("mode not in ('a', 'b')", "`mode` is not one of `('a', 'b')`", "`mode` is one of `('a', 'b')`"),
        ("isinstance(spec, FullSpec)", "`spec` is a `FullSpec`", "`spec` is not a `FullSpec`"),
        ("not isinstance(spec, (A, B))", "`spec` is not one of `A`, `B`", "`spec` is one of `A`, `B`"),
        ("use_mla and cfg.use_layerwise", "`use_mla` is true (set, non-empty) and `cfg.use_layerwise` is true (set, non-empty)",
         "`use_mla` is false or empty or `cfg.use_layerwise` is false or empty"),
        ("hasattr(m, 'kv')", "`m` has an attribute `kv`", "`m` has no attribute `kv`"),
        ("tp % remote != 0", "`tp` is not a multiple of `remote`", "`tp` is a multiple of `remote`"),
        ("this is ( not code", "this is ( not code", "not (this is ( not code)"),
        # `while True:` on the path: the constant says nothing
        ("True and sent and retries >= 3", "`sent` is true (set, non-empty) and `retries` is at least `3`",
         "`sent` is false or empty or `retries` is less than `3`"),
        ("True and failed", "`failed` is true (set, non-empty)", "`failed` is false or empty"),
        # a handler's way in: every call of the `try` that may raise, and what earlier handlers catch
        ("raises(Exception, sock.send(data), other_than=OSError)",
         "`sock.send(data)` raises `Exception` other than `OSError` (an earlier handler catches that)",
         "`sock.send(data)` does not raise `Exception` other than `OSError` (an earlier handler catches that)"),
        ("raises(Exception, a(...), b(...))", "one of `a(...)`, `b(...)` raises `Exception`",
         "none of `a(...)`, `b(...)` raises `Exception`"),
        ("raises(ImportError, 'import lmcache')", "`import lmcache` raises `ImportError`",
         "`import lmcache` does not raise `ImportError`"),
    ],
)
def test_plain_words_for_common_forms(code, words, negated_words):
    assert plain_words(code) == words
    assert plain_words(code, negate=True) == negated_words


@pytest.mark.parametrize(
    "code, negated",
    [
        ("a - b <= 1", "a - b > 1"),
        ("x is None", "x is not None"),
        ("not ready", "ready"),
        ("a and b > 2", "not a or b <= 2"),
        ("f(x)", "not f(x)"),
    ],
)
def test_negated_code_stays_exact(code, negated):
    assert negated_code(code) == negated


def test_analysis_words_are_kept_and_code_is_explained_otherwise():
    assert condition_words("x is None", "no x given") == "no x given"
    assert condition_words("x is None", "x is None") == "`x` is None (not set)"
    assert condition_words("x is None", None) == "`x` is None (not set)"


def test_loop_quantifier_in_words():
    code = "any(isinstance(g.spec, Cross) for g in groups)"
    assert plain_words(code) == "for some `g` in `groups`, `g.spec` is a `Cross`"
    assert plain_words(code, negate=True) == "for every `g` in `groups`, `g.spec` is not a `Cross`"


def test_a_count_named_by_the_vocabulary_is_tested_as_a_number():
    from errscan.analysis.wording import user_words
    from errscan.profiles import Phrase

    groups = (Phrase(r"len\(.*groups\)", "the number of groups", noun=True),)
    assert user_words("len(self.config.groups)", lambda node: None, groups) == "the number of groups is not 0"
    assert user_words("not len(self.config.groups)", lambda node: None, groups) == "the number of groups is 0"


def test_a_vocabulary_phrase_names_only_its_own_value_not_a_comparison_around_it():
    from errscan.analysis.wording import user_words
    from errscan.profiles.vllm import VLLM

    # `len(b) == len(a) == len(groups)`: `b` and `a` have no words, so the part has none
    assert user_words("len(b) == len(a) == len(self.kv_cache_config.kv_cache_groups)", lambda node: None, VLLM.vocabulary) is None
