"""The similarity pass pairs a renamed file's errors, never a gone file's with any new file's."""

from __future__ import annotations

import dataclasses

from conftest import FIXTURES

from errscan.diff import match_errors
from errscan.profiles.vllm import VLLM
from errscan.scan import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


def error(path, function, message, id):
    base = scan(FolderSource(FIXTURES / "twins", VLLM), ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1)).errors[0]
    return dataclasses.replace(base, id=id, path=path, function=function, message=message, exception="ValueError")


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
