"""The settings catalog (`analysis/knobs.py`) of tests/fixtures/explain_pkg's config classes."""

from conftest import FIXTURES, package_graph
from errscan.analysis.knobs import KnobCatalog
from errscan.profiles.vllm import VLLM


def test_a_field_the_constructor_does_not_take_is_a_setting_only_where_the_class_derives_it():
    fields = KnobCatalog.build(package_graph(FIXTURES / "explain_pkg"), VLLM).config_fields
    assert "block_size" in fields["CacheConfig"]
    assert "num_gpu_blocks" not in fields["CacheConfig"]  # `field(init=False)`, set by the engine
    assert "world_size" in fields["ParallelConfig"]  # `field(init=False)`, set by `__post_init__` from the settings
