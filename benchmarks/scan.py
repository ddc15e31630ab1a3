"""How long errscan takes on a vLLM release, as ratios to reading and `ast.parse`-ing every file.

Run from the repository root: `python -m benchmarks.scan` (options: --release, --jobs). Every
measurement is a fresh process, timed on the wall clock as a user would see it, with the peak memory
of its whole process tree (pool workers included) sampled from /proc. Prints the figures and whether
each meets its target (issue 7's for memory and the warm scan, issue 12's for the cold ones);
BENCHMARKS.md records them. Never run as a test: timings vary with load.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib.metadata import version as package_version
from pathlib import Path

from errscan.profiles.vllm import VLLM
from errscan.runtime.cachedir import default_cache_dir
from errscan.sources.release import fetch_release

BASELINE = """
import ast, sys, warnings
from pathlib import Path
warnings.simplefilter("ignore")
for path in sorted(Path(sys.argv[1]).rglob("*.py")):
    ast.parse(path.read_bytes())
"""
TARGETS = {"default cold": 2.5, "whole vllm/ cold": 7.0}  # at most this many times the baseline
WARM_TARGET = 0.1  # a warm re-scan at most this fraction of the cold one
MEMORY_TARGET_MB = 1536
SAMPLE_SECONDS = 0.05  # the shortest wait between two samples of the memory
_STAGES = re.compile(r"([0-9.]+)s \(([^)]*)\) -> ")  # the summary line's "25.8s (read 0.1s, ...) ->"


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float  # user + system time of the whole process tree
    peak_mb: float
    stages: str  # the stages as errscan reports them, writing the site included; the rest of `seconds` starts up


def measure(command: list[str]) -> Run:
    """Run `command`, sampling the memory of its process tree (PSS) until it ends."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            began = time.perf_counter()
            peak[0] = max(peak[0], _tree_pss(process.pid))
            # Reading a process's PSS walks its page tables (about 7 ms per GB here), on a core the
            # scan would use: the sampler waits nine times as long as it read, so that it takes at
            # most a tenth of one core (every 50 ms while the processes are small).
            done.wait(max(SAMPLE_SECONDS, 9 * (time.perf_counter() - began)))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        sys.exit(f"benchmark: {' '.join(command)} failed ({process.returncode}):\n{stderr}")
    match = _STAGES.search(stdout)
    stages = f"{match.group(1)}s: {match.group(2)}" if match else ""
    return Run(seconds, _children_cpu() - cpu_before, peak[0] / 2**20, stages)


def _children_cpu() -> float:
    """CPU seconds of every descendant waited for so far (pool workers count through their parent)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_pss(pid: int) -> int:
    """Proportional resident bytes (PSS) of `pid` and all its descendants (0 for any that ended).

    PSS splits a page shared by forked workers among them, so the sum is the memory the tree
    really holds; summed RSS would count every copy-on-write page once per process.
    """
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            total += next(int(line.split()[1]) for line in rollup if line.startswith("Pss:")) * 1024
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            total += sum(_tree_pss(int(child)) for child in children.read().split())
    except (OSError, ValueError, IndexError, StopIteration):
        pass
    return total


def machine() -> str:
    model = "unknown CPU"
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
        mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal"))
        memory = f"{mem_kb / 2**20:.0f} GB"
    except (OSError, StopIteration):
        memory = "unknown memory"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{model}, {os.cpu_count()} cores, {memory}; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, libcst {package_version('libcst')}; load average {load}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default="0.27.1", help="vLLM release to scan [0.27.1]")
    parser.add_argument("--jobs", default="0", help="errscan --jobs [0: one process per core]")
    args = parser.parse_args()

    tree = fetch_release(args.release, profile=VLLM, cache_dir=default_cache_dir())
    package = tree / VLLM.package
    files = list(package.rglob("*.py"))
    size_mb = sum(f.stat().st_size for f in files) / 2**20
    print(f"machine: {machine()}")
    print(f"vLLM {args.release}: {len(files)} files, {size_mb:.0f} MB in {VLLM.package}/; errscan --jobs {args.jobs}\n")

    with tempfile.TemporaryDirectory(prefix="errscan-bench-") as tmp:
        work = Path(tmp)

        def errscan(name: str, cache: str, *extra: str) -> list[str]:
            return [
                sys.executable, "-m", "errscan", "scan", str(tree), "--jobs", args.jobs,
                "--cache-dir", str(work / cache), "--out", str(work / name), *extra,
            ]

        runs: dict[str, Run | None] = {}
        runs["baseline: read + ast.parse, 1 process"] = measure([sys.executable, "-c", BASELINE, str(package)])
        runs["default cold"] = measure(errscan("default", "cache-default"))
        cache_written = any((work / "cache-default").rglob("*"))
        runs["default warm"] = measure(errscan("default", "cache-default")) if cache_written else None
        runs["whole vllm/ cold"] = measure(errscan("whole", "cache-whole", "--include", f"{VLLM.package}/**"))

    report(runs)


def report(runs: dict[str, Run | None]) -> None:
    baseline = next(iter(runs.values()))
    assert baseline is not None
    print(f"{'':38} {'seconds':>7} {'x baseline':>10} {'CPU s':>6} {'peak MB':>7}  target")
    for name, run in runs.items():
        if run is None:
            print(f"{name:38} not measured yet: this errscan writes no extraction cache")
            continue
        ratio = run.seconds / baseline.seconds
        verdict = ""
        if name in TARGETS:
            verdict = f"<= {TARGETS[name]:g}x: {'met' if ratio <= TARGETS[name] else 'MISSED'}"
        if name == "default warm":
            cold = runs["default cold"]
            share = run.seconds / cold.seconds
            verdict = f"{share:.3f} of cold, <= {WARM_TARGET:g}: {'met' if share <= WARM_TARGET else 'MISSED'}"
        print(f"{name:38} {run.seconds:7.1f} {ratio:10.2f} {run.cpu_seconds:6.1f} {run.peak_mb:7.0f}  {verdict}")
        if run.stages:
            print(f"{'':40}scan {run.stages}")
    peak = max(r.peak_mb for r in runs.values() if r is not None)
    print(f"\npeak memory {peak:.0f} MB, <= {MEMORY_TARGET_MB} MB: {'met' if peak <= MEMORY_TARGET_MB else 'MISSED'}")
    print("seconds: wall clock of the whole command, of which `scan` is errscan's own stages, writing the")
    print("site included (the rest starts Python and opens the source); CPU s: user + system time of all its processes")


if __name__ == "__main__":
    main()
