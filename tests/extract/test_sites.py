"""Raise-site extraction, table-driven: each fixture line that raises says `# expect: <template>`."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import FIXTURES, extract_fixture, reraises

PATTERNS = sorted(p.name for p in (FIXTURES / "patterns").glob("*.py"))
EXPECT = re.compile(r"# expect: ?(.*)$")


def expectations(name: str) -> dict[int, str]:
    lines = (FIXTURES / "patterns" / name).read_text().splitlines()
    return {i: m.group(1) for i, line in enumerate(lines, 1) if (m := EXPECT.search(line))}


@pytest.mark.parametrize("name", PATTERNS)
def test_templates_match_expectations(name):
    result = extract_fixture(name)
    assert result.failure is None
    found = {site.line: site.message for site in result.sites}
    assert found == expectations(name)


@pytest.mark.parametrize("name", PATTERNS)
def test_every_site_that_ast_finds_is_found(name):
    tree = ast.parse((FIXTURES / "patterns" / name).read_text())
    raises = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Raise) and not reraises(n)]
    asserts = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert) and n.msg is not None]
    bare = [n for n in ast.walk(tree) if isinstance(n, ast.Raise) and reraises(n)]
    result = extract_fixture(name)
    assert sorted(s.line for s in result.sites if s.kind == "raise") == sorted(raises)
    assert sorted(s.line for s in result.sites if s.kind == "assert") == sorted(asserts)
    assert result.reraises == len(bare)


def sites_by_line(name):
    return {s.line: s for s in extract_fixture(name).sites}


def test_exception_resolved_through_imports_and_aliases():
    sites = sites_by_line("statements.py")
    assert sites[10].exception == "KVError"
    assert sites[10].exception_qualname == "errors.KVTransferError"
    assert sites[13].exception == "errs.KVTransferError"
    assert sites[13].exception_qualname == "errors.KVTransferError"
    assert sites[26].exception_qualname == "builtins.RuntimeError"


def test_an_exception_object_raised_again_counts_as_a_reraise():
    assert 34 not in sites_by_line("statements.py")
    assert extract_fixture("statements.py").reraises == 2  # `raise err` and the bare `raise`


def test_enclosing_function_names_follow_qualname_rules():
    sites = sites_by_line("statements.py")
    assert sites[10].function == "Connector.check"
    assert sites[17].function == "Connector.nested.<locals>.inner"
    assert sites[62].function == "<module>"


def test_comments_directly_above_are_kept():
    assert sites_by_line("statements.py")[10].comments == ()
    source = (FIXTURES / "patterns" / "statements.py").read_text().splitlines()
    assert source[6].strip().startswith("# The connector")


def test_comment_block_above_a_statement(tmp_path):
    from conftest import source_file
    from errscan.extract import extract_file

    path = tmp_path / "c.py"
    path.write_text("def f():\n    x = 1\n\n    # unrelated\n\n    # why it fails\n    # and more\n    raise ValueError('m')\n")
    (site,) = extract_file(source_file(path), catalogued=True).sites
    assert site.comments == ("why it fails", "and more")


def test_multiline_statement_has_end_line_and_cause():
    sites = sites_by_line("fstrings.py")
    assert sites[26].end_line == 30
    assert sites[34].end_line == 39
    assert sites_by_line("statements.py")[26].cause == "exc"


def test_assert_keeps_its_test():
    site = sites_by_line("statements.py")[39]
    assert (site.kind, site.exception, site.assert_test) == ("assert", "AssertionError", "x")


def test_placeholders_record_how_they_were_found():
    sites = sites_by_line("operators.py")
    assert [(p.expr, p.source) for p in sites[26].placeholders] == [("unsupported", "join")]
    assert [(p.expr, p.conversion) for p in sites[10].placeholders] == [("a", ""), ("b", "r")]


def test_unparsable_file_is_a_failure_not_a_crash(tmp_path):
    from conftest import source_file
    from errscan.extract import extract_file

    path = tmp_path / "broken.py"
    path.write_text("def f(:\n    pass\n")
    result = extract_file(source_file(path), catalogued=True)
    assert result.failure is not None and result.failure.line == 1 and result.sites == ()
    path.write_bytes(b"x = 1\ny = '\xff\xfe'\n")
    result = extract_file(source_file(path), catalogued=True)
    assert result.failure.line == 2 and "decode" in result.failure.reason


def test_functions_read_one_at_a_time_give_what_the_whole_module_gives(monkeypatch):
    """libcst reads only the functions that hold sites; the sites must not change for it."""
    from errscan.extract import sites

    for name in PATTERNS:
        by_function = extract_fixture(name)
        with monkeypatch.context() as patched:
            patched.setattr(sites, "_regions", lambda tree, lines: None)  # always the whole module
            whole = extract_fixture(name)
        assert by_function == whole, name


def test_a_site_outside_every_function_makes_libcst_read_the_whole_module():
    from errscan.extract.sites import _regions

    def regions(source: str):
        tree = ast.parse(source)
        lines = sorted(n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Raise, ast.Assert)))
        return _regions(tree, lines)

    assert regions("if x:\n    raise ValueError('module level')\n") is None
    assert regions("class C:\n    assert X, 'class body'\n") is None
    found = regions("class C:\n    @d\n    def f(self):\n        raise E('m')\n\ndef g():\n    pass\n")
    assert [(r.start, r.end, r.classes) for r in found] == [(2, 4, ("C",))]


def test_a_form_feed_line_does_not_shift_the_functions_libcst_reads(monkeypatch):
    """Cut at a form feed too, the lines after it would be one off and libcst would read the whole module."""
    from conftest import source_file
    from errscan.extract import extract_file, sites

    parsed: list[str] = []
    parse = sites.cst.parse_module
    monkeypatch.setattr(sites.cst, "parse_module", lambda text: parsed.append(text) or parse(text))
    result = extract_file(source_file(FIXTURES / "lines" / "form_feed.py"), catalogued=True)
    assert [s.line for s in result.sites] == [7, 13]
    assert [text.split("\n", 1)[0] for text in parsed] == ["def check(path):", "if True:"]
