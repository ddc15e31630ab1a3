"""How much the extraction cache saves: prints timings and ratios, asserts nothing.

    python -m benchmarks.history [--releases 0.24.0,0.25.1,0.26.0,0.27.1]   (from the repo root)

1. a cold scan of the latest release (empty cache) against a warm re-scan (the whole scan
   cached): the warm/cold ratio should be at most 0.1; and against a re-scan with only the
   per-file entries (what any edit leaves: nothing is parsed, the whole-package analysis is redone);
2. the releases scanned one after another into one cache (as `scan --release A --release B ...`
   does) against the sum of scanning each alone with an empty cache.
Releases are fetched with pip into the user's cache on first use (not timed).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from errscan.cache import ScanCache
from errscan.cachedir import default_cache_dir
from errscan.profiles.vllm import VLLM
from errscan.history import Revision, scan_revision
from errscan.progress import Progress
from errscan.scan import ScanOptions
from errscan.scope import Scope
from errscan.sources.folder import FolderSource
from errscan.sources.release import fetch_release


def timed_scan(release: Path, cache_dir: Path) -> float:
    """One scan as the CLI runs it."""
    options = ScanOptions(repo=VLLM.repo, scope=Scope(VLLM.default_include), cache=ScanCache(cache_dir))
    started = time.perf_counter()
    scan_revision(Revision(release.name, lambda: FolderSource(release, VLLM)), options, Progress(quiet=True))
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
        singles, shared = [], []
        for i, tree in enumerate(trees):  # interleaved, so a change in the machine's load hits both
            singles.append(timed_scan(tree, root / f"alone-{i}"))
            shared.append(timed_scan(tree, root / "together"))
        together = sum(shared)
        print(
            f"{len(trees)} releases: one shared cache {together:.2f}s ({' + '.join(f'{s:.1f}' for s in shared)}), "
            f"each alone {sum(singles):.2f}s ({' + '.join(f'{s:.1f}' for s in singles)}), "
            f"shared/alone {together / sum(singles):.3f}"
        )


if __name__ == "__main__":
    main()
