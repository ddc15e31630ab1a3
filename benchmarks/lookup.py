"""How long `errscan lookup` takes on a built site, as a ratio to `python -c "import errscan"`.

Run from the repository root: `python -m benchmarks.lookup --site /tmp/whole-site` (a site of the
whole package: `errscan scan --release 0.27.1 --include 'vllm/**' --out /tmp/whole-site`). Both
commands are fresh processes, timed on the wall clock as a user sees them, taken in turns so that
the machine's load weighs on both alike; the ratio of their medians (and of their fastest runs)
is printed against issue 16's target. The lookup runs as a user runs it, through the `errscan`
command installed beside this Python (`python -m errscan` would add `runpy`, which the command does not
load). Never run as a test: timings vary with load.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.sites import site_options

TARGET = 3.0  # lookup at most this many times the bare import
MESSAGES = (  # one message each run, as a user pastes it
    "AssertionError: patch_grid_length 7 is not divisible by hidden_stride 2",
    "ValueError: At least one text_pair element must be given",
)


def timed(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"benchmark: {' '.join(command[:4])}... failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    args = site_options(__doc__, 15, "api/matcher/index.json")
    baseline = [sys.executable, "-c", "import errscan"]
    command = Path(sys.executable).with_name("errscan")
    if not command.exists():
        sys.exit(f"benchmark: no errscan command beside {sys.executable}: install errscan in this environment (pip install -e .)")
    lookups = [[str(command), "lookup", "--site", str(args.site), m] for m in MESSAGES]
    base: list[tuple[float, float]] = []
    looked: list[tuple[float, float]] = []
    for run in range(args.runs):
        base.append(timed(baseline))
        looked.append(timed(lookups[run % len(lookups)]))
    for name, runs in (("import errscan", base), ("errscan lookup", looked)):
        wall, cpu = (statistics.median(r[k] for r in runs) * 1000 for k in (0, 1))
        print(f"{name}: median {wall:.1f} ms wall, {cpu:.1f} ms CPU; fastest {min(r[0] for r in runs) * 1000:.1f} ms wall ({args.runs} runs)")
    ratios = {
        "median wall": statistics.median(r[0] for r in looked) / statistics.median(r[0] for r in base),
        "fastest wall": min(r[0] for r in looked) / min(r[0] for r in base),
        "median CPU": statistics.median(r[1] for r in looked) / statistics.median(r[1] for r in base),
    }
    verdict = "meets" if ratios["median wall"] <= TARGET else "misses"
    print("ratio: " + ", ".join(f"{value:.2f}x by {name}" for name, value in ratios.items()) + f"; {verdict} the target of {TARGET:.0f}x")


if __name__ == "__main__":
    main()
