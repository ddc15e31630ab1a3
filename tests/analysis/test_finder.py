import ast
from dataclasses import replace

from errscan.analysis.finder import SettingFinder
from errscan.analysis.knobs import KnobCatalog
from errscan.profiles import PeerValue
from errscan.profiles.vllm import VLLM

_ANYTHING = replace(VLLM, peer_values=(PeerValue(r".*tp_size.*", "--tensor-parallel-size", "the other instance"),))


def _peer(code: str):
    finder = SettingFinder(KnobCatalog({}, {}, {}, (), "", {}), _ANYTHING)
    return finder.setting_at(ast.parse(code, mode="eval").body, {})


def test_a_peer_value_is_a_name_or_an_attribute():
    assert _peer("remote_tp_size").knob.name == "--tensor-parallel-size"
    assert _peer("self.tp_size").side == "the other instance"


def test_a_condition_or_call_that_reads_one_is_no_peer_value_even_when_its_code_matches():
    for code in ("remote_tp_size > 1", "f(tp_size)", "sizes[tp_size]", "a.tp_size and b", "lambda remote_tp_size: 0"):
        assert _peer(code) is None
