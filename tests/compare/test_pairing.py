"""The similarity pass pairs a renamed file's errors, never a gone file's with any new file's."""

from __future__ import annotations

import msgspec

from conftest import FIXTURES

from errscan.compare.pairing import match_errors
from errscan.model import Excerpt
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


BASE = scan(FolderSource(FIXTURES / "twins", VLLM), ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1)).errors[0]


def error(path, function, message, id, exception="ValueError"):
    """An error at line 10 whose surrounding code is its own (so only the template can pair it)."""
    code = Excerpt(7, (f"a_{id} = 1", f"b_{id} = 2", f"if c_{id}:", "raise", f"d_{id} = 3", f"e_{id} = 4", f"f_{id} = 5"))
    return msgspec.structs.replace(BASE, id=id, path=path, function=function, message=message, exception=exception,
                               line=10, end_line=10, excerpt=code)


def test_errors_of_a_gone_file_and_an_unrelated_new_file_do_not_pair():
    # vLLM 0.20.0 -> 0.27.1: p2p's "Port cannot be 0" once paired with Mooncake's "Size cannot be empty."
    old = error("pkg/p2p/engine.py", "Engine.connect", "Port cannot be 0", "a")
    new = error("pkg/mooncake/utils.py", "parse_size", "Size cannot be empty.", "b")
    assert match_errors([old], [new]) == []


def test_a_file_moved_to_another_folder_keeps_its_errors():
    old = error("pkg/p2p/engine.py", "Engine.connect", "Port cannot be 0", "a")
    new = error("pkg/transfer/engine.py", "Engine.open", "Port cannot be zero", "b")
    (match,) = match_errors([old], [new])
    assert (match.old.id, match.new.id, match.rule) == ("a", "b", "renamed-path")


def test_a_renamed_file_whose_function_raises_still_keeps_its_errors():
    old = error("pkg/p2p/engine.py", "Engine.connect", "Port cannot be 0", "a")
    new = error("pkg/p2p/nccl_engine.py", "Engine.connect", "Port cannot be 0 here", "b")
    other = error("pkg/p2p/nccl_engine.py", "Engine.close", "Port closed twice", "c")
    matches = match_errors([old], [new, other])
    assert [(m.old.id, m.new.id) for m in matches] == [("a", "b")]


def test_two_words_in_common_do_not_make_a_short_message_the_same():
    old = error("pkg/p2p.py", "init", "Port cannot be 0", "a")
    new = error("pkg/store/worker.py", "init", "Keys cannot be empty.", "b")
    assert match_errors([old], [new], ["pkg/p2p.py"], ["pkg/store/worker.py"]) == []
    reworded = error("pkg/store/worker.py", "init", "Port must not be 0", "c")
    assert [m.new.id for m in match_errors([old], [reworded])] == ["c"]


def test_empty_messages_are_not_alike():
    old = error("pkg/a/base.py", "Base.recv", "", "a", "NotImplementedError")
    new = error("pkg/b/base.py", "Other.finish", "", "b", "NotImplementedError")
    assert match_errors([old], [new], ["pkg/a/base.py"], ["pkg/b/base.py"]) == []


def test_a_file_still_catalogued_was_not_renamed():
    old = error("pkg/a/base.py", "Base.recv", "Port cannot be zero here", "a")
    new = error("pkg/b/base.py", "Base.send", "Port cannot be zero there", "b")
    both = ["pkg/a/base.py", "pkg/b/base.py"]
    assert match_errors([old], [new], both, both) == []
    assert [m.rule for m in match_errors([old], [new], ["pkg/a/base.py"], ["pkg/b/base.py"])] == ["renamed-path"]


def test_the_same_message_moved_to_another_class_and_file_pairs():
    # vLLM 0.23.0 -> 0.24.0: NixlConnectorWorker (worker.py) -> NixlBaseConnectorWorker (base_worker.py)
    old = error("pkg/nixl/worker.py", "NixlConnectorWorker.__init__", "NIXL is not available", "a", "RuntimeError")
    new = error("pkg/nixl/base_worker.py", "NixlBaseConnectorWorker.__init__", "NIXL is not available", "b", "RuntimeError")
    files = (["pkg/nixl/worker.py"], ["pkg/nixl/worker.py", "pkg/nixl/base_worker.py"])
    assert [(m.old.id, m.new.id, m.rule) for m in match_errors([old], [new], *files)] == [("a", "b", "message")]
    short = error("pkg/nixl/base_worker.py", "X.f", "not ready", "c", "RuntimeError")  # too little text alone
    assert match_errors([msgspec.structs.replace(old, message="not ready")], [short], *files) == []
