"""Uses of attributes that may fill them, and stores of empty collections (extract/fills.py)."""

import ast

import pytest

from errscan.extract.collect import collect_facts

_CLASS = '''
class W:
    shared: list = []
    def __init__(self):
        self.a = []
        self.b = self.c = []
    def go(self, x):
        if len(self.a) > 0 and not self.a or x in self.a:
            self.a = dict()
        for item in self.a:
            pass
        y = self.a.get(x), self.a[x], f"{self.a}"
        {code}
    @property
    def prop(self):
        return 1
'''


def _fills(code: str) -> set[tuple[str, str]]:
    facts = collect_facts(ast.parse(_CLASS.replace("{code}", code)), "m", False)
    return {(f.attribute, f.empty) for f in facts.attribute_fills}


def test_reads_fill_nothing_and_empty_stores_say_what_they_store():
    assert _fills("pass") == {("a", "[]"), ("a", "dict()"), ("b", ""), ("c", ""), ("shared", "[]"), ("__init__", ""),
                              ("go", ""), ("prop", "")}


@pytest.mark.parametrize("code", [
    "self.a.append(x)", "self.a[x] = 1", "self.a += [x]", "f(self.a)", "return self.a", "z = self.a",
    "g = lambda: self.a.update(x)", "C(a=[x])", "setattr(self, 'a', [x])", "z = self.a or []", "self.a = [x]",
])
def test_a_use_that_may_fill_the_attribute_or_hand_it_on_is_one(code):
    assert ("a", "") in _fills(code)


def test_a_computed_name_may_be_any_attribute():
    assert ("*", "") in _fills("setattr(self, x, [1])") and ("*", "") in _fills("self.__dict__.update(x)")
