"""The per-file extraction cache: hits, misses after an edit, corrupt entries, analyzer bumps, races."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, run_cli

from errscan.profiles.vllm import VLLM
from errscan.request import Revision
from errscan.runtime.cache import ScanCache, analyzer_key
from errscan.runtime.progress import Progress
from errscan.runtime.runner import ScanOptions, scan, scan_each
from errscan.scope import Scope
from errscan.sources.folder import FolderSource


FILES = len(list((FIXTURES / "patterns").glob("*.py")))  # the fixture package's modules


@pytest.fixture
def tree(tmp_path):
    """The extraction fixtures as a package of their own, free to edit."""
    target = tmp_path / "src"
    shutil.copytree(FIXTURES / "patterns", target)
    return target


def scan_with(tree, cache):
    """A scan that uses the per-file entries: any whole-scan entry is dropped first."""
    if cache is not None:
        shutil.rmtree(cache.catalog_folder, ignore_errors=True)
    return scan(FolderSource(tree, VLLM), ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1, cache=cache))


def entries(cache):
    return sorted(p for p in cache.folder.rglob("*") if p.is_file())


def test_second_scan_takes_every_file_from_the_cache(tree, tmp_path):
    first = ScanCache(tmp_path / "cache")
    cold = scan_with(tree, first)
    assert (first.stats.hits, first.stats.misses) == (0, FILES)
    second = ScanCache(tmp_path / "cache")
    warm = scan_with(tree, second)
    assert (second.stats.hits, second.stats.misses) == (FILES, 0)
    assert warm.errors == cold.errors
    assert warm.errors == scan_with(tree, None).errors


def test_an_edited_file_is_parsed_again_and_only_it(tree, tmp_path):
    scan_with(tree, ScanCache(tmp_path / "cache"))
    edited = tree / "errors.py"
    edited.write_text(edited.read_text() + '\n\ndef late():\n    raise KeyError("added after the first scan")\n')
    cache = ScanCache(tmp_path / "cache")
    catalog = scan_with(tree, cache)
    assert (cache.stats.hits, cache.stats.misses) == (FILES - 1, 1)
    assert "added after the first scan" in [e.message for e in catalog.errors]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]),  # one flipped byte: the checksum fails
        lambda data: b"",
    ],
    ids=["truncated", "flipped-byte", "empty"],
)
def test_a_corrupt_entry_is_recomputed_reported_and_rewritten(tree, tmp_path, damage):
    cold = scan_with(tree, ScanCache(tmp_path / "cache"))
    victim = entries(ScanCache(tmp_path / "cache"))[0]
    victim.write_bytes(damage(victim.read_bytes()))
    cache = ScanCache(tmp_path / "cache")
    assert scan_with(tree, cache).errors == cold.errors
    assert cache.stats.corrupt == [victim] and cache.stats.hits == FILES - 1
    healed = ScanCache(tmp_path / "cache")
    scan_with(tree, healed)
    assert (healed.stats.hits, healed.stats.corrupt) == (FILES, [])


def test_the_cli_reports_corruption_once(tree, tmp_path):
    args = ["scan", str(tree), "--include", "**", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "site"), "-q"]
    assert run_cli(*args).returncode == 0
    for kind in ("extract", "catalog"):
        for entry in (tmp_path / "cache" / kind).rglob("*"):
            if entry.is_file():
                entry.write_bytes(b"garbage")
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "corrupt cache entries" in line]
    # The whole-scan entry first, then each file's entry.
    assert len(warnings) == 1 and warnings[0].startswith(f"errscan: warning: {FILES + 1} corrupt cache entries")
    assert "corrupt" not in run_cli(*args).stderr


def test_a_new_analyzer_reads_nothing_an_old_one_wrote(tree, tmp_path, monkeypatch):
    scan_with(tree, ScanCache(tmp_path / "cache"))
    monkeypatch.setattr("errscan.__version__", "999.0")
    assert analyzer_key() != analyzer_key("0.1.0") and analyzer_key().startswith("999.0-")
    bumped = ScanCache(tmp_path / "cache")
    scan_with(tree, bumped)
    assert (bumped.stats.hits, bumped.stats.misses) == (0, FILES)


def test_the_analyzer_key_follows_the_extraction_code(tmp_path, monkeypatch):
    """Editing any file under errscan/extract changes the key (checked on a copy of the package)."""
    import errscan

    copy = tmp_path / "errscan"
    shutil.copytree(errscan.__file__.rsplit("/", 1)[0], copy)
    monkeypatch.setattr(errscan, "__file__", str(copy / "__init__.py"))
    before = analyzer_key()
    names = copy / "extract" / "names.py"
    names.write_text(names.read_text() + "\n# an edit\n")
    assert analyzer_key() != before


def scan_revision_with(tree, cache, include=("**",)):
    options = ScanOptions(repo="o/r", scope=Scope(include), jobs=1, cache=cache)
    return scan_each([Revision("tree", lambda: FolderSource(tree, VLLM))], options, Progress(quiet=True))[0][1]


def test_an_unchanged_tree_takes_its_whole_scan_from_the_cache(tree, tmp_path):
    cold = scan_revision_with(tree, ScanCache(tmp_path / "cache"))
    again = ScanCache(tmp_path / "cache")
    warm = scan_revision_with(tree, again)
    assert warm == cold and warm.errors == cold.errors
    assert (again.stats.hits, again.stats.misses) == (FILES, 0)
    assert not list(again.folder.parent.glob("*/*/*.tmp"))


def test_other_options_or_one_edited_file_redo_the_whole_package_analysis(tree, tmp_path):
    scan_revision_with(tree, ScanCache(tmp_path / "cache"))
    narrower = ScanCache(tmp_path / "cache")
    scan_revision_with(tree, narrower, include=("errors.py",))
    # Not the whole-scan entry (that would be FILES hits): only errors.py is catalogued as before.
    assert (narrower.stats.hits, narrower.stats.misses) == (1, FILES - 1)
    (tree / "literals.py").write_text((tree / "literals.py").read_text() + "\n# edited\n")
    edited = ScanCache(tmp_path / "cache")
    scan_revision_with(tree, edited)
    assert (edited.stats.hits, edited.stats.misses) == (FILES - 1, 1)


def test_no_cache_writes_nothing(tree, tmp_path):
    done = run_cli("scan", str(tree), "--include", "**", "--no-cache", "--cache-dir", str(tmp_path / "cache"),
                   "--out", str(tmp_path / "site"), "-q")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "cache" / "extract").exists()


def test_two_scans_at_once_share_the_cache_safely(tree, tmp_path):
    for n in range(40):  # enough files for the process pool
        (tree / f"copy_{n}.py").write_text((FIXTURES / "patterns" / "operators.py").read_text() + f"\n# copy {n}\n")
    cache_dir = tmp_path / "cache"
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "errscan", "scan", str(tree), "--include", "**", "--cache-dir", str(cache_dir),
             "--out", str(tmp_path / f"site{i}"), "-q", "-j", "2"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i in range(2)
    ]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
        assert "corrupt" not in err
    assert (tmp_path / "site0" / "api" / "index.json").read_bytes() == (tmp_path / "site1" / "api" / "index.json").read_bytes()
    after = ScanCache(cache_dir)
    scan_with(tree, after)
    assert (after.stats.hits, after.stats.misses, after.stats.corrupt) == (FILES + 40, 0, [])
    assert not [p for p in cache_dir.rglob("*.tmp")]


def entry_with(entry, payload: bytes) -> bytes:
    """An entry as errscan frames it (magic, key hash, checksum), around any payload."""
    import hashlib

    return b"errscan-cache-2\n" + bytes.fromhex(entry.parent.name + entry.name) + hashlib.sha256(payload).digest() + payload


class _Planted:
    def __reduce__(self):
        return (exec, ("open(__import__('os').environ['PLANTED'], 'w').write('ran')",))


def test_an_entry_can_never_run_code(tree, tmp_path, monkeypatch):
    import pickle

    cold = scan_with(tree, ScanCache(tmp_path / "cache"))
    victim = entries(ScanCache(tmp_path / "cache"))[0]
    monkeypatch.setenv("PLANTED", str(tmp_path / "ran"))
    victim.write_bytes(entry_with(victim, pickle.dumps(_Planted())))
    cache = ScanCache(tmp_path / "cache")
    assert scan_with(tree, cache).errors == cold.errors
    assert not (tmp_path / "ran").exists() and cache.stats.corrupt == [victim]


def test_another_keys_entry_in_its_place_is_a_miss(tree, tmp_path):
    """Whole-scan entries: another scan's catalog copied over this one's must not make its site."""
    cache_root = tmp_path / "cache"
    scan_revision = lambda include: scan(FolderSource(tree, VLLM), ScanOptions(repo="o/r", scope=Scope(include), jobs=1, cache=ScanCache(cache_root)))
    full = scan_revision(("**",))
    narrow = scan_revision(("exceptions.py",))
    assert len(narrow.errors) < len(full.errors)
    catalogs = sorted((p for p in ScanCache(cache_root).catalog_folder.rglob("*") if p.is_file()), key=lambda p: p.stat().st_mtime_ns)
    full_entry, narrow_entry = catalogs
    full_entry.write_bytes(narrow_entry.read_bytes())
    cache = ScanCache(cache_root)
    again = scan(FolderSource(tree, VLLM), ScanOptions(repo="o/r", scope=Scope(("**",)), jobs=1, cache=cache))
    assert again.errors == full.errors and cache.stats.corrupt == [full_entry]


def test_an_entry_replaced_by_a_folder_is_a_miss(tree, tmp_path):
    cold = scan_with(tree, ScanCache(tmp_path / "cache"))
    victim = entries(ScanCache(tmp_path / "cache"))[0]
    victim.unlink()
    victim.mkdir()
    cache = ScanCache(tmp_path / "cache")
    assert scan_with(tree, cache).errors == cold.errors
    assert cache.stats.write_error is not None  # its result could not be stored back


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_full_cache_disk_costs_only_the_cache_with_one_warning(tree, tmp_path, monkeypatch, jobs):
    import errno

    from click.testing import CliRunner

    from errscan import cli
    from errscan.runtime import cache as cache_module

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_module, "atomic_write_bytes", full)
    done = CliRunner().invoke(
        cli.cli, ["scan", str(tree), "--include", "**", "--cache-dir", str(tmp_path / "cache"),
                  "--out", str(tmp_path / "site"), "-j", str(jobs), "-q"])
    assert done.exit_code == 0, done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("errscan: warning: cannot write to the cache in ") and "No space left on device" in done.stderr
    assert (tmp_path / "site" / "index.html").is_file()
