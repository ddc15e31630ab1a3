"""What the benchmarks over a built site share: the options that name the site and the runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def site_options(doc: str, runs: int, needs: str) -> argparse.Namespace:
    """`--site` (a built site that holds `needs`, else the benchmark stops) and `--runs`."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--site", type=Path, required=True, help="a built site (of the whole package, for issue 16)")
    parser.add_argument("--runs", type=int, default=runs, help=f"runs of each measurement (default {runs})")
    args = parser.parse_args()
    if not (args.site / needs).is_file():
        sys.exit(f"benchmark: {args.site} is no site of this errscan (no {needs})")
    return args
