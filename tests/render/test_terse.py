import ast
import re

import pytest

from errscan.model import Knob
from errscan.render.terse import _named, terse


@pytest.mark.parametrize("marks", [{"a", "ab"}, {"tp_size"}, {"x.y", "-flag", "b c"}, {""}, {"kv_role", "role"}])
@pytest.mark.parametrize("term", ["ab == 1", "a.ab", "abc", "tp_size > 1", "x.y.z", "--flag", "b c d", "", "kv_role != 'x'", "role"])
def test_one_pattern_finds_a_name_where_one_search_per_name_would(marks, term):
    each = any(re.search(rf"\b{re.escape(m)}\b", term) for m in marks)
    assert (_named(frozenset(marks)).search(term) is not None) is each


def test_the_terms_that_name_a_setting_are_kept_first():
    knob = Knob("config_field", "KVTransferConfig.kv_role", "")
    condition = "engine is not None and self.kv_role == 'kv_producer' and n > 1"
    assert terse(condition, [knob]) == ("self.kv_role == 'kv_producer'", True)
