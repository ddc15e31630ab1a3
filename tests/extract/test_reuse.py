"""Function bodies remembered across versions of one file give the facts a fresh walk gives."""

from __future__ import annotations

import ast

import pytest

from conftest import FIXTURES

from errscan.runtime.cachedir import default_cache_dir
from errscan.extract import extract_file
from errscan.extract.collect import collect_facts
from errscan.extract.reuse import BodyMemo, collect_facts_reusing, collect_facts_with_memo
from errscan.extract.astutil import source_lines
from errscan.profiles.vllm import VLLM
from errscan.sources import SourceFile, blob_digest
from errscan.sources.release import fetch_release

VERSIONS = FIXTURES / "versions"


def facts(name: str, memo: BodyMemo | None = None):
    text = (VERSIONS / name).read_text()
    if memo is None:
        return collect_facts(ast.parse(text), "pkg.functions", False)
    return collect_facts_with_memo(ast.parse(text), "pkg.functions", False, source_lines(text), memo)


def test_a_later_version_walked_with_the_memo_has_the_facts_of_a_fresh_walk():
    memo = BodyMemo()
    facts("functions_v1.py", memo)
    assert facts("functions_v2.py", memo) == facts("functions_v2.py")
    # moved, Store.__init__ and the first `twice` are unchanged and were replayed; the others not
    assert memo.bodies_replayed == 3


def test_a_replayed_body_moves_its_lines_and_notes():
    memo = BodyMemo()
    before = facts("functions_v1.py", memo)
    after = facts("functions_v2.py", memo)
    (old,) = [s for s in before.statements if s.partial]
    (new,) = [s for s in after.statements if s.partial]
    assert new.line - old.line == 8 and new.partial == (f"line {new.line - 4}: for-else",)


def test_the_same_text_in_another_class_is_walked_again():
    memo = BodyMemo()
    facts("functions_v1.py", memo)
    reads = facts("functions_v2.py", memo).attribute_reads
    assert [(r.class_scope, r.attribute) for r in reads] == [("Store", "config"), ("Store", "limit"), ("NewName", "value")]


@pytest.mark.integration
@pytest.mark.releases
def test_every_file_vllm_changed_from_0260_to_0271_has_the_facts_of_a_fresh_walk():
    old, new = (fetch_release(v, profile=VLLM, cache_dir=default_cache_dir()) for v in ("0.26.0", "0.27.1"))
    changed = bodies = statements = 0
    for path in sorted(new.rglob("vllm/**/*.py")):
        relative = path.relative_to(new).as_posix()
        before, after = old / relative, path.read_bytes()
        if not before.is_file() or before.read_bytes() == after:
            continue
        catalogued = relative.startswith("vllm/distributed/kv_transfer/")
        memo = BodyMemo()
        extract_file(source(relative, before.read_bytes()), catalogued, memo)
        assert extract_file(source(relative, after), catalogued, memo) == extract_file(source(relative, after), catalogued), relative
        changed, bodies, statements = changed + 1, bodies + memo.bodies_replayed, statements + memo.statements_replayed
    # The memo did its work: most definitions were not parsed again, and most bodies of the rest
    # were not walked again.
    assert changed > 500 and statements > 3 * changed and bodies + statements > 10 * changed


def source(path: str, data: bytes) -> SourceFile:
    return SourceFile(path, data, blob_digest(data))


def reusing(text: str, memo: BodyMemo):
    return collect_facts_reusing(source_lines(text), "pkg.functions", False, memo)


def fresh(text: str):
    return collect_facts(ast.parse(text), "pkg.functions", False)


def test_unchanged_top_level_definitions_are_neither_parsed_nor_walked_again():
    memo = BodyMemo()
    facts("functions_v1.py", memo)
    text = (VERSIONS / "functions_v2.py").read_text()
    assert reusing(text, memo) == fresh(text)
    assert memo.statements_replayed == 2  # moved and the first twice; Store changed, NewName is new


def test_a_definition_inside_a_string_is_not_taken_for_one():
    memo = BodyMemo()
    first = "def f(x):\n    return g(x)\n"
    collect_facts_with_memo(ast.parse(first), "pkg.functions", False, source_lines(first), memo)
    quoted = 'SOURCE = """\n' + first + '"""\n'
    assert reusing(quoted, memo) is None  # a statement spans the blanked lines: parse it all
    assert reusing("x = 1\n\n" + first, memo) == fresh("x = 1\n\n" + first) and memo.statements_replayed == 1


def test_a_definition_reading_a_module_name_bound_no_more_is_walked_again():
    memo = BodyMemo()
    before = "handler = make()\n\n@register(handler)\ndef f():\n    pass\n"
    collect_facts_with_memo(ast.parse(before), "pkg.functions", False, source_lines(before), memo)
    after = "@register(handler)\ndef f():\n    pass\n"  # `handler` is now an import's name elsewhere, say
    assert reusing(after, memo) is None
    assert reusing("handler = other()\n" + after, memo) == fresh("handler = other()\n" + after)


def test_a_long_signature_closing_at_column_0_is_one_definition():
    memo = BodyMemo()
    first = "def f(\n    a: int,\n) -> None:\n    g(a)\n"
    collect_facts_with_memo(ast.parse(first), "pkg.functions", False, source_lines(first), memo)
    later = "import os\n\n\n" + first
    assert reusing(later, memo) == fresh(later) and memo.statements_replayed == 1


_GUARDED = '''
def register(tensor):
    try:
        meta = tensor.register()
    except (OSError, ValueError) as e:
        logger.error("failed: %s", e)
        raise EngineError(f"Failed: {e}") from e
    return meta
'''


def test_a_replayed_body_moves_its_try_and_handlers():
    memo = BodyMemo()
    first = collect_facts_with_memo(ast.parse(_GUARDED), "pkg.g", False, source_lines(_GUARDED), memo)
    moved_text = "import os\n\n\n" + _GUARDED
    fresh = collect_facts(ast.parse(moved_text), "pkg.g", False)
    replayed = collect_facts_with_memo(ast.parse(moved_text), "pkg.g", False, source_lines(moved_text), memo)
    assert memo.bodies_replayed == 1 and replayed.tries == fresh.tries
    (guarded,) = fresh.tries
    (handler,) = guarded.handlers
    assert guarded.line - first.tries[0].line == 3
    assert handler.types == ("OSError", "ValueError") and handler.name == "e"
    assert [(a.kind, a.name) for a in handler.actions] == [("log", "error"), ("raise", "EngineError")]
    assert handler.actions[1].message == "f'Failed: {e}'"
