"""Path conditions, table-driven: each raise in the fixtures says `# when: <condition>`."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import FIXTURES
from errscan.extract.conditions import render
from errscan.extract.collect import collect_facts

WHEN = re.compile(r"# when: (.*)$")
FILES = sorted(p.name for p in (FIXTURES / "conditions").glob("*.py"))


def statements(name):
    source = (FIXTURES / "conditions" / name).read_text()
    facts = collect_facts(ast.parse(source), name[:-3], False)
    return source.splitlines(), facts


@pytest.mark.parametrize("name", FILES)
def test_raw_conditions_match_the_fixture(name):
    lines, facts = statements(name)
    expected = {i: m.group(1) for i, line in enumerate(lines, 1) if (m := WHEN.search(line))}
    found = {s.line: render(s.condition, "raw") for s in facts.statements if s.line in expected}
    raw_expected = {line: text for line, text in expected.items()}
    # The fixture states the substituted (`code`) form; compare that, and raw where they agree.
    code = {s.line: render(s.condition) for s in facts.statements if s.line in expected}
    assert code == raw_expected, found


def test_substitution_keeps_the_raw_form():
    _, facts = statements("dataflow.py")
    (site,) = [s for s in facts.statements if s.line == 4]
    assert render(site.condition, "raw") == "use_mla and lmcache_config.use_layerwise"


def test_deep_form_follows_aliases_for_knobs():
    _, facts = statements("dataflow.py")
    (site,) = [s for s in facts.statements if s.line == 10]
    assert render(site.condition, "deep") == "vllm_config.parallel_config.prefill_context_parallel_size > 1"


def test_appends_carry_their_guards():
    _, facts = statements("dataflow.py")
    appends = [(a.target, render(a.condition), a.argument) for a in facts.appends]
    assert appends == [
        ("problems", "any(g.cross for g in groups)", "f'group {g.id}: cross'"),
        ("problems", "pcp > 1", "'pcp'"),
    ]


def test_for_else_is_reported_as_partial():
    source = "def f(xs):\n    for x in xs:\n        pass\n    else:\n        raise ValueError('m')\n"
    (site,) = collect_facts(ast.parse(source), "m", False).statements
    assert site.partial == ("line 2: for-else",)


def test_call_after_an_exit_nested_in_with_carries_its_guard():
    """A chain step through the call states that the nested `continue` was not taken."""
    _, facts = statements("exit_in_with.py")
    (call,) = [c for c in facts.calls if c.callee == "self.read_blocks"]
    assert render(call.condition) == (
        "any(not (meta.dp0 not in self.agents and meta.engine not in self.agents) for (req_id, meta) in reqs)"
    )


def test_deep_text_is_the_deep_form_of_make_term():
    from errscan.extract.conditions import Binding, deep_text, make_term

    value = ast.parse("config.get('kv_role')", mode="eval").body
    filled = ast.parse("[x for x in xs if x.ok]", mode="eval").body
    envs = [{}, {"role": Binding(value, False)}, {"role": Binding(value, False, itself=True)},
            {"found": Binding(filled, True, filled=True)}, {"role": Binding(value, False, reassigned=True)}]
    for text in ("role == 'producer'", "len(found) > 0", "not found and role", "f(role)[0] + other"):
        node = ast.parse(text, mode="eval").body
        for env in envs:
            assert deep_text(node, env) == make_term(node, env).deep
    assert deep_text(ast.parse("role", mode="eval").body, envs[1]) == "config.get('kv_role')"
