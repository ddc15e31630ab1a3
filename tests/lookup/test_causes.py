"""The cause a concrete message shows, among the parts an accumulated message is built from."""

import msgspec

from errscan.lookup.causes import causes
from errscan.model import Excerpt, ErrorSite, Explanation, Fix

FIXES = (
    Fix("", None, "Use a model without cross-attention layers.", part="group {g_idx}: CrossAttentionSpec"),
    Fix("--prefill-context-parallel-size", "1", "Pass both set to 1.", part="PCP/DCP > 1 (pcp={pcp}, dcp={dcp}) with hybrid attention"),
    Fix("--mamba-cache-mode", "align", "Pass `--mamba-cache-mode align`.", part="group {g_idx}: MambaSpec (mamba_cache_mode != 'align')"),
)


def error(fixes):
    """The error's document, as lookup reads it."""
    return msgspec.to_builtins(ErrorSite(
        id="0" * 16, kind="raise", level=None, exception="ValueError", exception_qualname=None, exception_bases=(),
        message="Store does not support: {unsupported}", placeholders=(), path="p.py", line=1, end_line=1,
        function="f", comments=(), excerpt=Excerpt(1, ("raise",)), url="",
        explanation=Explanation("s", "configuration", fixes=fixes),
    ))


def test_the_parts_the_message_shows_are_the_causes_that_fired():
    found = causes(error(FIXES), "Store does not support: PCP/DCP > 1 (pcp=2, dcp=1) with hybrid attention")
    assert [(c.shown, [f["setting"] for f in c.fixes]) for c in found] == [
        ("PCP/DCP > 1 (pcp=2, dcp=1) with hybrid attention", ["--prefill-context-parallel-size"])]


def test_several_parts_each_with_their_fixes():
    found = causes(error(FIXES), "Store does not support: group 0: CrossAttentionSpec; group 2: MambaSpec (mamba_cache_mode != 'align')")
    assert [c.part for c in found] == ["group {g_idx}: CrossAttentionSpec", "group {g_idx}: MambaSpec (mamba_cache_mode != 'align')"]


def test_a_message_without_parts_gets_its_whole_fixes():
    whole = (Fix("--block-size", "16", "Pass `--block-size 16`."),)
    assert [c.fixes for c in causes(error(whole), "Store does not support: anything")] == [tuple(msgspec.to_builtins(whole))]
