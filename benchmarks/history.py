"""How much the extraction cache saves: prints timings and ratios, asserts nothing.

    python -m benchmarks.history [--releases 0.24.0,0.25.1,0.26.0,0.27.1]   (from the repo root)

1. a cold scan of the latest release (empty cache) against a warm re-scan (the whole scan
   cached): the warm/cold ratio should be at most 0.1; and against a re-scan with only the
   per-file entries (what any edit leaves: nothing is parsed, the whole-package analysis is redone);
2. the releases scanned together into one empty cache (as `scan --release A --release B ...`
   does: shared files parsed once, function bodies shared between versions of a file walked once,
   analyses side by side) against the sum of scanning each alone with an empty cache;
3. the same as a user runs it: one `errscan scan --release A --release B ...` process (one site,
   with history) against one `errscan scan --release X` process per release, each cold, all
   timed on the wall clock from start to exit (site writing and interpreter start included).
Releases are fetched with pip into the user's cache on first use (not timed).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from errscan.compare.history import scan_revisions
from errscan.profiles.vllm import VLLM
from errscan.request import Revision
from errscan.runtime.cache import ScanCache
from errscan.runtime.cachedir import default_cache_dir
from errscan.runtime.progress import Progress
from errscan.runtime.runner import ScanOptions, scan_each
from errscan.scope import Scope
from errscan.sources.folder import FolderSource
from errscan.sources.release import fetch_release


def timed_scan(release: Path, cache_dir: Path) -> float:
    """One scan as the CLI runs it."""
    options = ScanOptions(repo=VLLM.repo, scope=Scope(VLLM.default_include), cache=ScanCache(cache_dir))
    started = time.perf_counter()
    scan_each([Revision(release.name, lambda: FolderSource(release, VLLM))], options, Progress(quiet=True))
    return time.perf_counter() - started


def timed_scans(releases: list[Path], cache_dir: Path) -> float:
    """The releases scanned as one history scan, without writing the site."""
    options = ScanOptions(repo=VLLM.repo, scope=Scope(VLLM.default_include), cache=ScanCache(cache_dir))
    revisions = [Revision(r.name, lambda r=r: FolderSource(r, VLLM)) for r in releases]
    started = time.perf_counter()
    scan_revisions(revisions, options, Progress(quiet=True))
    return time.perf_counter() - started


def timed_command(trees: list[Path], versions: list[str], cache_dir: Path, out: Path) -> float:
    """`errscan scan --release ...` in a process of its own, with its own cache folder: empty but
    for links to the releases already unpacked, so that fetching is not timed."""
    (cache_dir / "releases").mkdir(parents=True)
    for tree in trees:
        (cache_dir / "releases" / tree.name).symlink_to(tree)
    releases = [a for v in versions for a in ("--release", v)]
    command = [sys.executable, "-m", "errscan", "scan", *releases, "--cache-dir", str(cache_dir), "--out", str(out), "-q"]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", default="0.24.0,0.25.1,0.26.0,0.27.1")
    versions = parser.parse_args().releases.split(",")
    trees = [fetch_release(v, profile=VLLM, cache_dir=default_cache_dir()) for v in versions]
    with tempfile.TemporaryDirectory(prefix="errscan-bench-") as scratch:
        root = Path(scratch)
        cold = timed_scan(trees[-1], root / "one")
        warm = timed_scan(trees[-1], root / "one")
        shutil.rmtree(root / "one" / "catalog")
        per_file = timed_scan(trees[-1], root / "one")
        print(f"{versions[-1]}: cold scan {cold:.2f}s, warm re-scan {warm:.2f}s, warm/cold {warm / cold:.3f} (target <= 0.1)")
        print(f"{versions[-1]}: re-scan from per-file entries only {per_file:.2f}s, per-file/cold {per_file / cold:.3f}")
        half = len(trees) // 2  # singles before and after, so a change in the machine's load hits both
        singles = [timed_scan(tree, root / f"alone-{i}") for i, tree in enumerate(trees[:half])]
        together = timed_scans(trees, root / "together")
        singles += [timed_scan(tree, root / f"alone-{i}") for i, tree in enumerate(trees[half:], half)]
        print(
            f"{len(trees)} releases: scanned together {together:.2f}s, "
            f"each alone {sum(singles):.2f}s ({' + '.join(f'{s:.1f}' for s in singles)}), "
            f"together/alone {together / sum(singles):.3f}"
        )
        alone = [timed_command([t], [v], root / f"cli-alone-{i}", root / f"site-{i}")
                 for i, (t, v) in enumerate(zip(trees, versions))]
        history = timed_command(trees, versions, root / "cli-together", root / "site-history")
        print(
            f"{len(versions)} releases as commands: one `scan --release ...` with history {history:.2f}s, "
            f"one command per release {sum(alone):.2f}s ({' + '.join(f'{s:.1f}' for s in alone)}), "
            f"together/alone {history / sum(alone):.3f}"
        )


if __name__ == "__main__":
    main()
