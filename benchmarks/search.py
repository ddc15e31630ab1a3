"""How soon the site's search page shows its first result, in headless Chromium, on a built site.

Run from the repository root: `python -m benchmarks.search --site /tmp/whole-site` (a site of the
whole package, for issue 16: `errscan scan --release 0.27.1 --include 'vllm/**' --out ...`). Each
run opens `search/?q=MESSAGE` in a fresh browser context (nothing cached) from a local web server;
a script installed before the page's own records `performance.now()` when the first result is put
in the list, when the list is complete (keyword matches come second), and when the page's `load` event fired (the baseline: the page with its index scripts
loaded, before any matching). Prints the medians, their ratio, whether the first result is the one
`errscan lookup` puts first, and issue 16's target (under a second). Needs Playwright and Chromium
as the browser tests do (tests/render/browser.py). Never run as a test: timings vary with load.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import statistics
import subprocess
import sys
import threading
from pathlib import Path

from benchmarks.sites import site_options
from urllib.parse import quote

TARGET_MS = 1000.0
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
MESSAGES = (  # as a user pastes them
    "AssertionError: patch_grid_length 7 is not divisible by hidden_stride 2",
    "ValueError: At least one text_pair element must be given",
    "ERROR 08-14 12:00:01 [core.py:123] HTTPException: Invalid request format: need 'rank' and 'keys'",
)
WATCH = """
window.__firstResult = null; window.__done = null;
new MutationObserver(function (changes, observer) {
  var list = document.getElementById("search-results");
  if (window.__firstResult === null && list && list.querySelector("li a")) window.__firstResult = performance.now();
  if (list && list.hasAttribute("data-done")) { window.__done = performance.now(); observer.disconnect(); }
}).observe(document, {childList: true, subtree: true, attributes: true});
window.addEventListener("load", function () { window.__loaded = performance.now(); });
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def lookup_first(site: Path, message: str) -> str | None:
    """The id `errscan lookup` ranks first for `message`."""
    done = subprocess.run([sys.executable, "-m", "errscan", "lookup", "--site", str(site), "--format", "json", message],
                          capture_output=True, text=True)
    records = json.loads(done.stdout or "[]")
    return records[0].get("id") if records else None


def main() -> None:
    args = site_options(__doc__, 5, "search/index.html")
    from playwright.sync_api import sync_playwright

    manifest = (args.site / "data" / "manifest.js").read_text()
    total = json.loads(manifest[manifest.index("(") + 1 : manifest.rindex(")")])["total"]
    chunks = len(list((args.site / "data").glob("errors-*.js")))
    index_bytes = sum(p.stat().st_size for p in (args.site / "data").glob("*.js"))
    server, base = serve(args.site)
    firsts: list[float] = []
    loads: list[float] = []
    dones: list[float] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for message in MESSAGES:
                expected = lookup_first(args.site, message)
                for _ in range(args.runs):
                    context = browser.new_context()
                    page = context.new_page()
                    page.add_init_script(WATCH)
                    page.goto(f"{base}search/?q={quote(message)}")
                    page.wait_for_function("window.__done !== null && window.__loaded !== undefined", timeout=60_000)
                    first, loaded, done = page.evaluate("[window.__firstResult, window.__loaded, window.__done]")
                    shown = page.locator("#search-results li a").first.get_attribute("href").split("/")[-2]
                    context.close()
                    firsts.append(first)
                    loads.append(loaded)
                    dones.append(done)
                agree = "agrees with" if shown == expected else f"differs from ({shown} against {expected})"
                print(f"{message[:70]!r}: first result {first:.0f} ms in the last run; it {agree} errscan lookup")
            browser.close()
    finally:
        server.shutdown()
    first, loaded = statistics.median(firsts), statistics.median(loads)
    print(f"site: {total} errors in {chunks} index chunks, {index_bytes / 1e6:.1f} MB of index scripts")
    print(f"page loaded (baseline): median {loaded:.0f} ms; first result: median {first:.0f} ms, slowest {max(firsts):.0f} ms "
          f"({len(firsts)} runs); with the keyword matches: median {statistics.median(dones):.0f} ms")
    verdict = "meets" if first < TARGET_MS else "misses"
    print(f"ratio first result / page loaded: {first / loaded:.2f}x; {verdict} the target of {TARGET_MS:.0f} ms")


if __name__ == "__main__":
    main()
