"""`[tool.errscan]` in pyproject.toml: scan defaults found from the current folder upward."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli

MINIREPO = FIXTURES / "minirepo"


def catalogued_paths(site):
    return {e["path"] for e in json.loads((site / "api" / "index.json").read_text())["errors"]}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.errscan]\ninclude = ["vllm/**"]\nexclude = ["vllm/config/**"]\n'
        'out = "public"\njobs = 1\n'
    )
    (tmp_path / "deep" / "er").mkdir(parents=True)
    return tmp_path


def test_defaults_come_from_the_nearest_pyproject_above(project):
    done = run_cli("scan", str(MINIREPO), cwd=project / "deep" / "er")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"-> {project / 'public'}")  # out: beside the pyproject.toml
    assert catalogued_paths(project / "public") == {"vllm/distributed/kv_transfer/connector.py"}


def test_options_win_over_the_file(project):
    done = run_cli("scan", str(MINIREPO), "--include", "vllm/config/**", "--exclude", "nothing", "--out", "here", cwd=project)
    assert done.returncode == 0, done.stderr
    assert catalogued_paths(project / "here") == {"vllm/config/__init__.py"}


def test_a_pyproject_without_the_table_is_passed_over(project):
    (project / "deep" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    done = run_cli("scan", str(MINIREPO), cwd=project / "deep" / "er")
    assert done.returncode == 0 and (project / "public").is_dir()


@pytest.mark.parametrize("table, message", [
    ('incude = ["vllm/**"]', "[tool.errscan] has no key 'incude'; it takes include, exclude, repo, jobs, out, site_url"),
    ('include = "vllm/**"', "[tool.errscan] include must be a list of strings, not 'vllm/**'"),
    ("jobs = true", "[tool.errscan] jobs must be an integer, not True"),
    ("include = [", "cannot be read: "),
])
def test_a_wrong_table_is_a_usage_error_naming_the_file(tmp_path, table, message):
    (tmp_path / "pyproject.toml").write_text(f"[tool.errscan]\n{table}\n")
    done = run_cli("scan", str(MINIREPO), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith(f"errscan: {tmp_path / 'pyproject.toml'}: ")
    assert message in done.stderr and not (tmp_path / "site").exists()


def test_lookup_and_diff_take_the_scope_too(project):
    config = {"include": ("vllm/**",), "exclude": ("vllm/config/**",), "jobs": 1}
    from errscan.config import command_defaults

    defaults = command_defaults(project / "deep")
    assert defaults["lookup"] == defaults["diff"] == config
    assert defaults["scan"] == {**config, "out": str(project / "public")}
