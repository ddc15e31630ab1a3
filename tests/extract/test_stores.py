"""Writes of attributes and the first call on a new object (`extract/stores.py`)."""

import ast

import pytest

from errscan.extract.stores import first_call, set_by_call, stored


@pytest.mark.parametrize("code, written", [
    ("self.a, (x.b, y) = 1, (2, 3)", [("self", "a", ""), ("x", "b", "")]),
    ("self.engine = engine", [("self", "engine", "engine")]),
    ("del self.c", [("self", "c", "")]),
    ("for self.i in r: pass", [("self", "i", "")]),
    ("with f() as self.h: pass", [("self", "h", "")]),
    ("x.a += 1", [("x", "a", "")]),
    ("self.__dict__['k'] = 1", [("self", "*", "")]),
])
def test_every_statement_that_writes_an_attribute_says_so(code, written):
    assert stored(ast.parse(code).body[0]) == written


@pytest.mark.parametrize("code, written", [
    ("setattr(self.w, 'engine', e)", ("self.w", "engine")),
    ("setattr(x, name, e)", ("x", "*")),
    ("super().__setattr__('a', 1)", ("self", "a")),
    ("obj.__setattr__('a', 1)", ("obj", "a")),
    ("vars(x).update(d)", ("x", "*")),
    ("print(x)", None),
])
def test_a_call_that_writes_an_attribute_says_so(code, written):
    call = ast.parse(code).body[0].value
    callee = ast.unparse(call.func).replace("vars(x)", "vars()")
    assert set_by_call(callee, call) == written


def test_the_first_call_on_a_new_object_is_the_very_next_statement_with_plain_arguments():
    made, then = ast.parse("w = C(1)\nw.set(e, k=self.x)").body
    assert first_call(made, then) == (1, "C", 2, "set")
    assert first_call(*ast.parse("w = C(1)\nw.set(make())").body) is None  # `make()` runs first
    assert first_call(*ast.parse("w = C(1)\nv.set(e)").body) is None
