"""Nothing scanned reaches the terminal as a control character: escapes, carriage returns, newlines."""

import subprocess
import sys

from errscan.terminal import printable


def test_control_characters_are_shown_escaped():
    hostile = "a\x1b]0;owned\x07b\x1b[2Jc\rd\x9b31me\u202ef\udcff"
    assert printable(hostile) == "a\\x1b]0;owned\\x07b\\x1b[2Jc\\rd\\x9b31me\\u202ef\\udcff"
    assert printable("one\ntwo\tthree") == "one\\ntwo\tthree"
    assert printable("one\ntwo", lines=True) == "one\ntwo"


def test_a_hostile_file_name_cannot_reach_the_terminal_or_split_a_line(tmp_path):
    package = tmp_path / "vllm"
    package.mkdir()
    (package / "ok.py").write_text("raise ValueError('fine')\n")
    (package / "x\x1b]0;owned\x07\nraise.py").write_text("def broken(:\n")
    done = subprocess.run([sys.executable, "-m", "errscan", "scan", str(tmp_path), "--include", "**", "--no-cache",
                           "--out", str(tmp_path / "site")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr + done.stdout and "\x07" not in done.stderr
    assert done.stderr.splitlines() == ["vllm/x\\x1b]0;owned\\x07\\nraise.py:1: syntax error: invalid syntax"]


def test_a_colored_diff_keeps_its_colors_and_escapes_the_rest():
    from errscan.compare.formats import format_diff
    from errscan.model import CatalogDiff, ErrorRef

    added = ErrorRef(id="0" * 16, path="m.py", line=1, function="f", exception="ValueError", message="bad \x1b[8mhidden")
    diff = CatalogDiff(old="a", new="b", added=(added,), removed=(), changed=(), unchanged=0)
    text = format_diff(diff, "text", color=True)
    assert "bad \\x1b[8mhidden" in text and "\x1b[8m" not in text and "\x1b[32m" in text
