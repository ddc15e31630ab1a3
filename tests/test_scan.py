from pathlib import Path

from conftest import FIXTURES
from errscan.profiles.vllm import VLLM
from errscan.scan import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


def scan_patterns(jobs=1):
    source = FolderSource(FIXTURES / "patterns", VLLM)
    return scan(source, ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=jobs))


def test_identical_twins_get_distinct_ids_and_ids_are_unique():
    catalog = scan_patterns()
    twins = [e for e in catalog.errors if e.function == "twins"]
    assert len(twins) == 2 and twins[0].id != twins[1].id
    assert len({e.id for e in catalog.errors}) == len(catalog.errors)


def test_ids_survive_a_move(tmp_path):
    source = (FIXTURES / "patterns" / "literals.py").read_text()
    (tmp_path / "literals.py").write_text(source)
    before = {e.message: e.id for e in scan(FolderSource(tmp_path, VLLM), ScanOptions("o/r", Scope(("**",)))).errors}
    (tmp_path / "literals.py").write_text("\n\n# moved down\n" + source)
    after = scan(FolderSource(tmp_path, VLLM), ScanOptions("o/r", Scope(("**",)))).errors
    assert {e.message: e.id for e in after} == before
    assert all(e.line > 3 for e in after)


def test_exception_bases_follow_classes_in_the_tree():
    catalog = scan_patterns()
    (timeout,) = [e for e in catalog.errors if e.message == "timed out"]
    assert timeout.exception_qualname == "errors.KVTimeoutError"
    assert timeout.exception_bases == ("errors.KVTransferError", "builtins.RuntimeError")


def test_enclosing_function_docstring_is_kept(tmp_path):
    (tmp_path / "d.py").write_text(
        'def f():\n    """Pick the group.\n\n    Exactly one must match.\n    """\n    raise ValueError("m")\n'
        "raise KeyError('top')\n"
    )
    inner, top = scan(FolderSource(tmp_path, VLLM), ScanOptions("o/r", Scope(("**",)))).errors
    assert inner.docstring == "Pick the group.\n\nExactly one must match."
    assert top.docstring is None
