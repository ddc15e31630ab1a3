"""What a call passes and what a function defaults to, as the chains carry them (`bindings.py`)."""

import ast

from errscan.extract.collect import collect_facts

SOURCE = '''
def f(a, b=1, /, c=-2, *rest, d=True, e=NAME, g=None):
    a = 2
    h(a, 'x', -3, *rest, k=(1, b), **extra)
'''


def test_calls_carry_constants_names_and_tuples_and_mark_what_is_unknown():
    facts = collect_facts(ast.parse(SOURCE), "m", False)
    (call,) = [c for c in facts.calls if c.kind == "call"]
    assert call.arguments == ("a", "'x'", "-3", "*")
    assert call.keywords == (("k", "(1, b, )"), ("**", "extra"))


def test_functions_record_constant_defaults_positional_count_and_rebound_parameters():
    (fact,) = collect_facts(ast.parse(SOURCE), "m", False).functions
    assert fact.positional == 3
    assert fact.defaults == (("b", "1"), ("c", "-2"), ("d", "True"), ("g", "None"))  # `e=NAME` is no constant
    assert fact.rebound == ("a",)


def test_an_item_of_a_held_value_by_a_name_or_constant_is_carried():
    """`self.kv_caches[layer_name]` is what the callee's checks of its parameter are about (vLLM's
    moriio `iter_layer_registration_regions`); an item by a computed key stays unknown."""
    source = "def f(self, name):\n    g(self.caches[name], table['k'], table[name.upper()], (x for x in y)[0])\n"
    (call,) = [c for c in collect_facts(ast.parse(source), "m", False).calls if c.callee == "g"]
    assert call.arguments == ("self.caches[name]", "table['k']", "...", "...")


def test_functions_record_the_parameters_typed_with_a_plain_name_and_no_default():
    source = ("def f(a: Layout, b: 'cfg.Layout', c: Layout | None, d: 'Layout | None', e: Optional[Layout],\n"
              "      g: list[Layout], h: Layout = None, *, k: Layout, m: Layout = LAYOUT):\n    pass\n")
    (fact,) = collect_facts(ast.parse(source), "m", False).functions
    assert fact.typed == (("a", "Layout"), ("b", "cfg.Layout"), ("k", "Layout"))
