"""How much the extraction cache saves: prints timings and ratios, asserts nothing.

    python -m benchmarks.history [--releases 0.24.0,0.25.1,0.26.0,0.27.1]   (from the repo root)

1. a cold scan of the latest release (empty cache) against a warm re-scan (every file cached):
   the warm/cold ratio should be at most 0.1;
2. the releases scanned one after another into one cache (as `scan --release A --release B ...`
   does) against the sum of scanning each alone with an empty cache.
Releases are fetched with pip into the user's cache on first use (not timed).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from errscan.cache import ExtractCache
from errscan.cachedir import default_cache_dir
from errscan.profiles.vllm import VLLM
from errscan.scan import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource
from errscan.sources.release import fetch_release


def timed_scan(release: Path, cache_dir: Path) -> float:
    options = ScanOptions(repo=VLLM.repo, scope=Scope(VLLM.default_include), cache=ExtractCache(cache_dir))
    started = time.perf_counter()
    scan(FolderSource(release, VLLM), options)
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
        print(f"{versions[-1]}: cold scan {cold:.2f}s, warm re-scan {warm:.2f}s, warm/cold {warm / cold:.3f} (target <= 0.1)")
        singles = [timed_scan(tree, root / f"alone-{i}") for i, tree in enumerate(trees)]
        together = sum(timed_scan(tree, root / "together") for tree in trees)
        print(
            f"{len(trees)} releases: one shared cache {together:.2f}s, each alone {sum(singles):.2f}s "
            f"({' + '.join(f'{s:.1f}' for s in singles)}), shared/alone {together / sum(singles):.3f}"
        )


if __name__ == "__main__":
    main()
