"""How many real vLLM messages `errscan lookup` puts at their right site first, by subsystem.

    python -m benchmarks.lookup_messages --site SITE [--in-process] [--jobs N]   (from the repo root)

SITE is a whole-package site of vLLM 0.27.1 (`errscan scan --release 0.27.1 --include 'vllm/**'`).
Each message of tests/fixtures/lookup/whole_package_messages.json is looked up as a user does it,
one `errscan lookup --site SITE --format json TEXT` process each (or, with --in-process, with one
matcher in this process: the same answers, sooner); the first candidate printed is the answer.
Prints the hits per subsystem (top-level package under vllm/) and every miss; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "lookup" / "whole_package_messages.json"


def cases() -> list[dict]:
    data = json.loads(FIXTURE.read_text())
    return data["from_issues"] + data["from_tests"]


def subsystem(path: str) -> str:
    """`vllm/v1/core/x.py` -> `v1`; a module at the top (`vllm/envs.py`) is its own subsystem."""
    parts = path.split("/")
    return parts[1].removesuffix(".py")


def first_by_cli(site: Path, text: str) -> tuple[str, int] | None:
    done = subprocess.run(
        [sys.executable, "-m", "errscan", "lookup", "--site", str(site), "--format", "json", text],
        capture_output=True, text=True,
    )
    found = json.loads(done.stdout or "[]")
    return (found[0]["path"], found[0]["line"]) if found else None


def in_process(site: Path):
    from errscan.api.read import read_site
    from errscan.lookup import CatalogMatcher
    from errscan.lookup.logs import find_errors

    matcher = CatalogMatcher.of_catalog(read_site(site))

    def first(text: str) -> tuple[str, int] | None:
        for finding in (matcher.find(logged) for logged in find_errors(text)):
            if finding.candidates:
                return finding.candidates[0].error["path"], finding.candidates[0].error["line"]
        return None

    return first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    all_cases = cases()
    if args.in_process:
        first = in_process(args.site)
        answers = [first(case["text"]) for case in all_cases]
    else:
        with ThreadPoolExecutor(args.jobs) as pool:
            answers = list(pool.map(lambda case: first_by_cli(args.site, case["text"]), all_cases))
    seen, hit = Counter(), Counter()
    for case, answer in zip(all_cases, answers):
        name = subsystem(case["path"])
        seen[name] += 1
        if answer == (case["path"], case["line"]):
            hit[name] += 1
        else:
            print(f"miss: {case['path']}:{case['line']} <- {answer}  {case['text'][:90]!r}")
    for name in sorted(seen, key=lambda n: (-seen[n], n)):
        print(f"{name:20} {hit[name]:3}/{seen[name]}")
    total = sum(hit.values())
    print(f"first: {total}/{len(all_cases)} = {total / len(all_cases):.1%} over {len(seen)} subsystems")


if __name__ == "__main__":
    main()
