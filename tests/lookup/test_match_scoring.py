"""The scoring rules of errscan.match, one behaviour per test."""

from __future__ import annotations

import re

import pytest

from errscan.match import FUZZY_MIN, compile_template, evidence, score_message, words

TEMPLATE = "Rank {rank} not initialized for {name!r}"


def test_exact_match_binds_values_and_scores_the_explained_share():
    match = score_message(compile_template(TEMPLATE), "Rank 3 not initialized for 'kv'")
    assert (match.rule, match.bindings, match.pinned) == ("exact", {"rank": "3", "name!r": "'kv'"}, True)
    assert match.score == round(21 / (21 + 1 + 4), 4)  # "Rank not initialized for": 21


def test_whitespace_runs_and_line_breaks_match_each_other():
    match = score_message(compile_template(TEMPLATE), "Rank 3 not\n   initialized  for x")
    assert match.rule == "exact"


def test_cut_message_matches_a_template_prefix_and_leaves_unreached_fields_unbound():
    match = score_message(compile_template(TEMPLATE), "Rank 3 not initia")
    assert (match.rule, match.bindings, match.pinned) == ("truncated", {"rank": "3"}, True)
    assert 0 < match.score < 1


def test_cut_inside_the_first_field_shows_no_literal_and_is_no_match():
    assert score_message(compile_template("{name} is not supported."), "ValueErr") is None


def test_cut_showing_fewer_than_ten_literal_characters_is_no_truncated_match():
    match = score_message(compile_template(TEMPLATE), "Rank 3 not")
    assert match is None or match.rule == "fuzzy"


def test_template_opening_with_a_placeholder_does_not_take_any_text_with_its_first_literal():
    compiled = compile_template("{len(errors)}/{len(transfers)} transfers failed: {errors}")
    assert score_message(compiled, "No such file or directory: '/models/llama/config.json'") is None


def test_last_placeholder_swallowing_most_of_the_message_does_not_pin():
    compiled = compile_template("hash mismatch. Local: {local}, Remote: {remote}. Configs differ. Set {flag} to skip.")
    reworded = "hash mismatch. Local: 3c4d, Remote: " + "9f1e" * 40 + ". Prefill and decode configurations are different here"
    match = score_message(compiled, reworded)
    assert match.rule == "truncated" and not match.pinned


def test_reworded_message_falls_back_to_word_similarity():
    compiled = compile_template("Remote tensor parallel size {tp} is not divisible by local size {n}.")
    match = score_message(compiled, "remote tensor parallel size 4 must be divisible by the local size 3")
    shared = {"remote", "tensor", "parallel", "size", "divisible", "by", "local"}
    expected = 2 * len(shared) / (len(compiled.words) + len(words("remote tensor parallel size must be divisible by the local size")))
    assert (match.rule, match.pinned, match.bindings) == ("fuzzy", False, {})
    assert match.score == round(expected, 4) >= FUZZY_MIN


def test_unrelated_message_is_no_match():
    assert score_message(compile_template(TEMPLATE), "CUDA out of memory. Tried to allocate 2 GiB") is None


def test_template_with_little_literal_text_never_pins():
    assert not score_message(compile_template("Size {n}"), "Size 3").pinned


def test_words_skip_bare_numbers_and_fold_case():
    assert words("Rank 3 of RANK_2, x1") == ("of", "rank", "rank_2", "x1")


@pytest.mark.parametrize("template", [TEMPLATE, "a (b) [c] {x} $d ^e | f? g* h+ i.j / k\\l {{m}}"])
def test_patterns_use_only_syntax_javascript_shares(template):
    """No lookbehind, named groups, possessive or \\A/\\Z anchors: the site's search runs these."""
    compiled = compile_template(template)
    for pattern in (compiled.pattern, compiled.prefix_pattern):
        assert not re.search(r"\(\?(<|P)|\\[AZ]|[*+?]\+", pattern)
        re.compile(pattern)


def test_literal_braces_and_regex_characters_match_literally():
    compiled = compile_template("a (b) [c] {x} $d ^e | f? {{m}}")
    assert score_message(compiled, "a (b) [c] 7 $d ^e | f? {m}").rule == "exact"


def test_a_placeholder_that_printed_nothing_between_two_spaces_leaves_one():
    compiled = compile_template("Free memory on device {device} ({free}/{total} GiB) on startup")
    match = score_message(compiled, "Free memory on device (3.1/4.0 GiB) on startup")
    assert (match.rule, match.bindings["device"]) == ("exact", "")
    assert score_message(compiled, "Free memory on device cuda:0 (3.1/4.0 GiB) on startup").bindings["device"] == "cuda:0"


def test_evidence_prefers_the_template_a_message_shows_more_of():
    cut = "Failed to load the tokenizer. Set `trust_remote_code=True` in LL"
    short = score_message(compile_template("Failed to load {filename}"), cut)
    long = score_message(compile_template("Failed to load the tokenizer. Set `trust_remote_code=True` in LLM or pass {flag}."), cut)
    assert (short.rule, short.pinned, long.rule, long.pinned) == ("exact", True, "truncated", True)
    assert evidence(long) > evidence(short)


def test_evidence_puts_a_sliver_of_literal_text_below_shared_words():
    message = "default chat template is no longer allowed, so you must provide one. None"
    sliver = score_message(compile_template("{log_msg} {e}"), message) or score_message(compile_template("{a}, {b}"), message)
    reworded = score_message(compile_template("default chat template is no longer allowed, so you must provide a chat template."), message)
    assert (sliver.rule, sliver.pinned, reworded.rule) == ("exact", False, "fuzzy")
    assert evidence(reworded) > evidence(sliver)


def test_evidence_keeps_a_whole_message_with_the_template_it_completes():
    message = "Unsupported K/V cache shape for layer attn: (8, 4, 2, 3)"
    whole = score_message(compile_template("Unsupported {kind} cache shape for layer {name}: {shape}"), message)
    cut = score_message(compile_template("Unsupported K/V cache shape for layer {name}: {shape} lacks block size {n}"), message)
    assert (whole.rule, cut.rule) == ("exact", "truncated") and cut.shown > whole.shown
    assert evidence(whole) > evidence(cut)


def test_a_placeholder_printed_twice_counts_both_values():
    """As the site's search counts them: every group's characters are bound ones."""
    match = score_message(compile_template("{name} and {name} clash in the registry"), "alpha and alpha clash in the registry")
    assert match.rule == "exact" and match.score == round(21 / (21 + 10), 4)  # not 21 / (21 + 5)
