"""The scan command as a user meets it: outputs, determinism, one-line errors, atomic replacement."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import errscan
from conftest import FIXTURES, children_of, run_cli, wait_until_gone
from errscan.model import SCHEMA_VERSION

MINIREPO = FIXTURES / "minirepo"


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_scan_writes_api_and_pages(tmp_path):
    out = tmp_path / "site"
    done = run_cli("scan", str(MINIREPO), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "catalogued 2 files: 2 raises, 1 asserts" in done.stdout
    index = json.loads((out / "api" / "index.json").read_text())
    assert {k: index[k] for k in ("schema_version", "repo", "commit", "version")} == {
        "schema_version": SCHEMA_VERSION, "repo": "vllm-project/vllm", "commit": "abc1234def", "version": "0.0.1"}
    for error in index["errors"]:
        record = json.loads((out / "api" / "errors" / f"{error['id']}.json").read_text())
        assert record["url"].startswith("https://github.com/vllm-project/vllm/blob/abc1234def/")
        assert record["url"].endswith(f"{record['path']}#L{record['line']}")
        assert (out / "errors" / error["id"] / "index.html").is_file()
    assert (out / "index.html").is_file()


def test_two_scans_are_byte_identical(tmp_path):
    for name, jobs in (("a", "1"), ("b", "2")):
        assert run_cli("scan", str(MINIREPO), "--out", str(tmp_path / name), "-j", jobs).returncode == 0
    assert tree_bytes(tmp_path / "a") == tree_bytes(tmp_path / "b")


def test_include_and_exclude_choose_catalogued_files(tmp_path):
    out = tmp_path / "site"
    done = run_cli("scan", str(MINIREPO), "--out", str(out), "--include", "vllm/**", "--exclude", "vllm/config/**")
    assert "read 7 files, catalogued 6" in done.stdout
    paths = {e["path"] for e in json.loads((out / "api" / "index.json").read_text())["errors"]}
    assert paths == {"vllm/distributed/kv_transfer/connector.py"}


@pytest.mark.parametrize(
    "args, code, fragment",
    [
        (["scan", "/no/such/dir"], 2, "no such file or folder"),
        (["scan"], 2, "give a SRC"),
        (["scan", ".", "--commit", "HEAD"], 2, "needs a git repository"),
        (["scan", "--release", "not a version"], 2, "not a release version"),
        (["scan", str(MINIREPO), "--include", "nothing/**"], 1, "no file under"),
        (["scan", str(MINIREPO), "--repo", "noslash"], 2, "OWNER/NAME"),
        (["scan", "--bogus"], 2, "No such option"),
    ],
)
def test_bad_inputs_get_one_line_and_exit_code(tmp_path, args, code, fragment):
    done = run_cli(*args, "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == code
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("errscan: ") and fragment in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "site").exists()


def test_unknown_commit_in_a_git_repo(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "m.py").write_text("x = 1\n")
    done = run_cli("scan", str(tmp_path), "--commit", "nope")
    assert done.returncode == 2 and "unknown commit 'nope'" in done.stderr


def test_unparsable_file_is_reported_and_skipped(tmp_path):
    pkg = tmp_path / "vllm" / "distributed" / "kv_transfer"
    pkg.mkdir(parents=True)
    (pkg / "bad.py").write_text("x = 1\ndef f(:\n")
    (pkg / "good.py").write_text("raise ValueError('fine')\n")
    done = run_cli("scan", str(tmp_path), "--out", str(tmp_path / "site"))
    assert done.returncode == 0
    assert "vllm/distributed/kv_transfer/bad.py:2: syntax error" in done.stderr
    assert "1 raises" in done.stdout and "1 parse failures" in done.stdout


def test_an_out_folder_that_cannot_be_made_is_a_usage_error_before_the_scan(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    cache = tmp_path / "cache"
    done = run_cli("scan", str(MINIREPO), "--out", str(tmp_path / "a-file" / "site"), "--cache-dir", str(cache))
    assert done.returncode == 2
    assert done.stderr.startswith("errscan: cannot write the site to ") and done.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # not even the cache was opened


def test_a_failed_scan_leaves_no_folder_made_for_its_out(tmp_path):
    done = run_cli("scan", str(MINIREPO), "--include", "nothing/**", "--out", str(tmp_path / "new" / "site"), "--no-cache")
    assert done.returncode == 1 and "matches --include" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_cache_folder_that_cannot_be_made_is_a_usage_error(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    done = run_cli("scan", str(MINIREPO), "--out", str(tmp_path / "site"), "--cache-dir", str(tmp_path / "a-file" / "c"))
    assert done.returncode == 2
    assert done.stderr.startswith("errscan: cannot use the cache folder ") and done.stderr.count("\n") == 1
    assert not (tmp_path / "site").exists()


def test_existing_folder_that_is_not_a_site_is_never_replaced(tmp_path):
    precious = tmp_path / "docs"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    done = run_cli("scan", str(MINIREPO), "--out", str(precious))
    assert done.returncode == 2 and "refusing to replace" in done.stderr
    assert (precious / "notes.txt").read_text() == "keep me"


def test_failed_scan_leaves_previous_site_untouched(tmp_path):
    out = tmp_path / "site"
    assert run_cli("scan", str(MINIREPO), "--out", str(out)).returncode == 0
    before = tree_bytes(out)
    assert run_cli("scan", str(MINIREPO), "--out", str(out), "--include", "none/**").returncode == 1
    assert tree_bytes(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_bare_command_prints_help():
    done = run_cli()
    assert done.returncode == 0 and "scan" in done.stdout and done.stderr == ""


def test_short_version_and_complete_short_help():
    assert run_cli("-V").stdout == run_cli("--version").stdout == f"errscan, version {errscan.__version__}\n"
    commands = run_cli("--help").stdout.partition("Commands:")[2].strip().splitlines()
    assert {line.split()[0] for line in commands} == {"diff", "lookup", "scan", "show"}
    assert all(line.rstrip().endswith(".") and not line.rstrip().endswith("...") for line in commands), commands


@pytest.mark.parametrize("args, hint", [
    (["scan", "--bogus"], "; see 'errscan scan --help'\n"),
    (["diff", "only-one"], "; see 'errscan diff --help'\n"),
    (["nosuchcommand"], "; see 'errscan --help'\n"),
    (["lookup", "--site", "s", "--src", "s", "text"], "; see 'errscan lookup --help'\n"),  # errscan's own usage error
])
def test_a_usage_error_is_one_line_that_points_to_the_help(args, hint):
    done = run_cli(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("errscan: ") and done.stderr.endswith(hint) and done.stderr.count("\n") == 1


def test_a_failure_that_is_no_usage_error_gets_no_help_hint(tmp_path):
    done = run_cli("scan", str(MINIREPO), "--include", "nothing/**", "--out", str(tmp_path / "s"))
    assert done.returncode == 1 and "--help" not in done.stderr


def test_summary_is_not_an_error_line(tmp_path):
    done = run_cli("scan", str(MINIREPO), "--out", str(tmp_path / "s"))
    assert done.stdout.startswith("scanned commit abc1234def: ")


def stage_times(summary: str) -> tuple[float, dict[str, float]]:
    total, stages = re.search(r"; ([0-9.]+)s \(([^)]*)\) -> ", summary).groups()
    return float(total), {name: float(seconds[:-1]) for name, _, seconds in (s.rpartition(" ") for s in stages.split(", "))}


def test_the_summary_times_each_stage_writing_the_site_included(tmp_path):
    args = ("scan", str(MINIREPO), "--cache-dir", str(tmp_path / "cache"))
    cold = run_cli(*args, "--out", str(tmp_path / "a"))
    total, stages = stage_times(cold.stdout)
    assert list(stages) == ["read", "extract", "catalog", "graph", "analysis", "write"]
    assert total >= sum(stages.values()) - 0.05 * len(stages)  # each rounded to a tenth
    warm = run_cli(*args, "--out", str(tmp_path / "b"))
    assert "s (catalog from the cache, write " in warm.stdout
    assert "stage_seconds" not in (tmp_path / "b" / "api" / "index.json").read_text()


def test_the_summary_time_is_the_whole_commands_opening_and_writing_included(tmp_path, monkeypatch):
    """Opening the source (a release: fetching it) and writing the site, each made to take at least
    DELAY, are both in the total, and writing in its own stage."""
    import time

    from click.testing import CliRunner

    import errscan.render.site
    import errscan.sources
    from errscan.cli import cli

    delay = 0.6

    def slowed(function):
        def slow(*args, **kwargs):
            time.sleep(delay)
            return function(*args, **kwargs)
        return slow

    monkeypatch.setattr(errscan.render.site, "write_site", slowed(errscan.render.site.write_site))
    monkeypatch.setattr(errscan.sources, "open_source", slowed(errscan.sources.open_source))  # read when the scan starts
    done = CliRunner().invoke(cli, ["scan", str(MINIREPO), "--out", str(tmp_path / "s"), "--cache-dir", str(tmp_path / "c")])
    assert done.exit_code == 0, done.output
    total, stages = stage_times(done.output)
    assert stages["write"] >= delay
    # Opening the source is in no stage, yet in the total (each figure rounded to a tenth).
    assert total >= sum(stages.values()) + delay - 0.05 * (len(stages) + 1)


def test_changed_work_tree_is_not_pinned_to_head(tmp_path):
    pkg = tmp_path / "vllm" / "distributed" / "kv_transfer"
    pkg.mkdir(parents=True)
    (pkg / "m.py").write_text("raise ValueError('x')\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "c"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    clean = run_cli("scan", str(tmp_path), "--out", str(tmp_path / "a"))
    assert clean.stderr == "" and "commit not known" not in clean.stdout
    (pkg / "m.py").write_text("\n\nraise ValueError('x')\n")
    dirty = run_cli("scan", str(tmp_path), "--out", str(tmp_path / "b"))
    assert dirty.returncode == 0 and dirty.stderr.startswith("note: the work tree differs from HEAD")
    index = json.loads((tmp_path / "b" / "api" / "index.json").read_text())
    assert index["commit"] is None and "/blob/HEAD/" in index["errors"][0]["url"]


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_terminated_or_killed_scan_stops_its_workers(tmp_path, how):
    package = tmp_path / "vllm"
    package.mkdir()
    body = "".join(f"def f{i}(x):\n    if x > {i}:\n        raise ValueError(f'{{x}} > {i}')\n" for i in range(400))
    for n in range(300):
        (package / f"m{n}.py").write_text(body)
    process = subprocess.Popen([sys.executable, "-m", "errscan", "scan", str(tmp_path), "--include", "**",
                                "--out", str(tmp_path / "s"), "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children = children_of(process.pid, 2, seconds=20)
    assert children, "the scan started no worker processes"
    process.send_signal(how)
    assert process.wait(timeout=30) == (128 + how if how == signal.SIGTERM else -how)
    left = wait_until_gone(children, 10)
    for pid in left:  # so that a failure leaves nothing running
        os.kill(pid, signal.SIGKILL)
    assert left == []


def _process_limit(kind: str):
    """Limits for a child: few open files, or few processes (not enforced for root)."""
    import resource

    def apply() -> None:
        if kind == "open files":
            resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))
        else:
            running = len(subprocess.run(["ps", "-u", str(os.getuid()), "-o", "pid="], capture_output=True, text=True).stdout.split())
            resource.setrlimit(resource.RLIMIT_NPROC, (running + 4, running + 4))

    return apply


@pytest.mark.parametrize("kind", ["open files", "processes"])
def test_more_jobs_than_the_system_allows_go_on_with_fewer(tmp_path, kind):
    if kind == "processes" and os.geteuid() == 0:
        pytest.skip("a process limit does not hold for root")
    package = tmp_path / "src" / "vllm"
    package.mkdir(parents=True)
    for n in range(60):
        (package / f"m{n}.py").write_text(f"def f(x):\n    if x:\n        raise ValueError('bad {n}')\n")
    args = [sys.executable, "-m", "errscan", "scan", str(tmp_path / "src"), "--include", "**", "--no-cache"]
    limited = subprocess.run([*args, "--out", str(tmp_path / "many"), "-j", "500"], preexec_fn=_process_limit(kind),
                             capture_output=True, text=True)
    assert limited.returncode == 0, limited.stderr
    assert "internal error" not in limited.stderr
    assert limited.stderr.count("could be started") == 1
    alone = run_cli("scan", str(tmp_path / "src"), "--include", "**", "--no-cache", "--out", str(tmp_path / "one"), "-j", "1")
    assert alone.returncode == 0
    assert tree_bytes(tmp_path / "many") == tree_bytes(tmp_path / "one")


def test_a_file_name_that_reads_as_part_of_a_url_is_percent_encoded_in_its_link(tmp_path):
    package = tmp_path / "vllm" / "odd dir"
    package.mkdir(parents=True)
    (package / "#frag?q=1%.py").write_text("raise ValueError('x')\n")
    done = run_cli("scan", str(tmp_path), "--include", "**", "--out", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    (error,) = json.loads((tmp_path / "s" / "api" / "index.json").read_text())["errors"]
    assert error["path"] == "vllm/odd dir/#frag?q=1%.py"
    assert error["url"] == "https://github.com/vllm-project/vllm/blob/HEAD/vllm/odd%20dir/%23frag%3Fq%3D1%25.py#L1"
