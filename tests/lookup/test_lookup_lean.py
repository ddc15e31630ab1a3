"""`errscan lookup` in a site runs without click (errscan/lookup/command.py): it loads none of the
heavy modules, and says exactly what the click command says, answers and errors alike."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import PurePosixPath

import pytest

from errscan.lookup.command import _path_text

HEAVY = ("click", "msgspec", "dataclasses", "inspect", "libcst", "networkx", "jinja2", "pygments", "typing", "ast", "pathlib")
# The click command line, as `errscan` ran every command before the lean path.
CLICK = "import sys; sys.argv[0] = 'errscan'; from errscan.cli import main; main()"
# The entry point, then the modules it loaded (on stderr, after what lookup wrote); its os._exit
# becomes a SystemExit so that this script outlives it.
LOADED = (
    "import os, sys; sys.argv = ['errscan', *sys.argv[1:]]; from errscan.__main__ import main\n"
    "def _exit(code):\n    raise SystemExit(code)\nos._exit = _exit\n"
    "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
    f"sys.stderr.write('\\nloaded: ' + ' '.join(m for m in {HEAVY!r} if m in sys.modules)); sys.exit(code)"
)


@pytest.fixture(scope="module")
def site(patterns_site):
    return patterns_site


def run(code: str, *args: str, stdin: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, input=stdin, cwd=cwd)


def a_message(catalog) -> str:
    error = next(e for e in catalog.errors if e.kind == "raise" and e.message and "{" not in e.message and len(e.message) > 15)
    return f"{error.exception}: {error.message}"


def a_traceback(catalog) -> str:
    error = next(e for e in catalog.errors if e.kind == "raise" and "{" in e.message)
    return (
        "Traceback (most recent call last):\n"
        f'  File "/venv/lib/python3.12/site-packages/{error.path}", line {error.line}, in {error.function.rsplit(".", 1)[-1]}\n'
        f"    raise {error.exception}(...)\n{error.exception}: something else entirely\n"
    )


def test_the_lean_path_loads_no_heavy_module(site):
    root, catalog = site
    for args in (["--format", "json", a_message(catalog)], [a_traceback(catalog)], ["ValueError: qqq zzz"]):
        result = run(LOADED, "lookup", "--site", str(root), *args)
        answer, loaded = result.stderr.rsplit("\nloaded: ", 1)
        assert result.returncode in (0, 1) and (result.stdout or answer.startswith("errscan: nothing in the input"))
        assert loaded == "", args


def test_other_commands_and_options_still_load_click(site):
    root, _ = site
    result = run(LOADED, "lookup", "--site", str(root), "--src", "/nowhere", "ValueError: x")
    assert "click" in result.stderr.rsplit("\nloaded: ", 1)[1]


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_the_lean_path_says_what_the_click_command_says(site, tmp_path, output_format):
    root, catalog = site
    no_matcher = tmp_path / "no-matcher"
    shutil.copytree(root, no_matcher)
    shutil.rmtree(no_matcher / "api" / "matcher")
    cases = [
        (str(root), a_message(catalog), None),
        (str(root), a_traceback(catalog), None),
        (str(root), "ValueError: qqq zzz", None),  # nothing matches: exit 1 (and `[]` for JSON)
        (str(root), "-", a_message(catalog)),  # standard input
        (str(root), "   ", None),  # empty: a usage error
        (f"{root}/./", a_message(catalog), None),  # printed as pathlib prints it
        (str(tmp_path / "nothing"), "ValueError: x", None),  # no site there
        (str(no_matcher), "ValueError: x", None),
    ]
    for where, text, stdin in cases:
        args = ("lookup", "--site", where, "--format", output_format, text)
        lean, click = run(LOADED, *args, stdin=stdin), run(CLICK, *args, stdin=stdin)
        answer, loaded = lean.stderr.rsplit("\nloaded: ", 1)
        assert "click" not in loaded, (where, text)
        assert (lean.stdout, answer, lean.returncode) == (click.stdout, click.stderr, click.returncode), (where, text)


def test_the_site_in_the_current_folder_is_read_the_same_way(site, tmp_path):
    root, catalog = site
    shutil.copytree(root, tmp_path / "site")
    lean = run(LOADED, "lookup", a_message(catalog), cwd=tmp_path)
    click = run(CLICK, "lookup", a_message(catalog), cwd=tmp_path)
    answer, loaded = lean.stderr.rsplit("\nloaded: ", 1)
    assert loaded == "" and (lean.stdout, answer, lean.returncode) == (click.stdout, click.stderr, click.returncode)
    assert "site/errors/" in lean.stdout


def test_a_tool_errscan_table_is_left_to_the_click_command(site, tmp_path):
    root, catalog = site
    (tmp_path / "pyproject.toml").write_text("[tool.errscan]\nsurprise = 1\n")
    result = run(LOADED, "lookup", "--site", str(root), a_message(catalog), cwd=tmp_path)
    assert result.returncode == 2 and "has no key 'surprise'" in result.stderr


@pytest.mark.parametrize("path", ["site", "./site", "site/", "a//b/./c/", "/tmp/x", "/", ".", "./", "../x", "///x"])
def test_a_site_folder_is_printed_as_pathlib_prints_it(path):
    assert _path_text(path) == str(PurePosixPath(path))
