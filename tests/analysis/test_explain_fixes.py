"""Fixes (`analysis/explain.py`): a plugin's name that any registered name could stand for is an example."""

from errscan.analysis.commands import Setting
from errscan.analysis.explain import Explainer
from errscan.analysis.knobs import KnobCatalog
from errscan.analysis.ways import Way
from errscan.model import Knob
from errscan.profiles.vllm import VLLM

CONNECTOR = Setting("name", Knob("config_field", "KVTransferConfig.kv_connector"), "kv_connector", "--kv-transfer-config",
                    ("kv_connector",))
REACHING = ("MooncakeConnector", "NixlConnector")


def _fix(condition: str):
    (fix,) = Explainer(KnobCatalog({}, {}, {}, (), "", {}), VLLM)._fixes(Way(condition, (CONNECTOR,)), (), REACHING)
    return fix


def test_a_name_only_needed_set_is_one_of_any():
    fix = _fix("name is None")
    assert fix.value == "MooncakeConnector"
    assert fix.text.endswith("(or any other registered connector: the check only needs one named).")


def test_a_name_the_check_refuses_is_no_example_of_any():
    fix = _fix("name == 'NixlConnector'")  # only naming another one avoids it
    assert fix.value == "MooncakeConnector" and "any other registered connector" not in fix.text
