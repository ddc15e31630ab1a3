"""Headless Debian chromium driven by Playwright, and a local web server for `search/?q=` URLs.

Chromium comes from the system (`apt-get install chromium`, see .ci/run); Playwright never
downloads a browser here. Screenshots go to test-artifacts/ at the repository root (git-ignored).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import quote

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")  # per module: two live Playwright instances cannot share a thread
def browser():
    """Skipped where no browser is installed, except under ERRSCAN_REQUIRE_BROWSER=1 (CI): then it fails."""
    missing = pytest.fail if os.environ.get("ERRSCAN_REQUIRE_BROWSER") == "1" else pytest.skip
    try:
        from playwright import sync_api
    except ImportError:
        missing("no playwright: pip install '.[test]'")
    if not Path(CHROMIUM).exists():
        missing("no chromium: apt-get install chromium (see .ci/run)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh page that fails the test on any dialog (alert) or script error, and any request off disk/localhost."""
    context = browser.new_context(viewport={"width": 1100, "height": 1300})
    opened = context.new_page()
    problems: list[str] = []
    opened.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    opened.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    opened.on("request", lambda r: None if r.url.startswith(("file://", "http://127.0.0.1")) else problems.append(f"request: {r.url}"))
    opened.problems = problems
    yield opened
    context.close()
    assert problems == []


@pytest.fixture(scope="session")
def served():
    """Serve folders over http://127.0.0.1 so that `search/?q=` resolves to search/index.html."""
    servers = []

    def serve(folder: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def search_url(base: str, query: str) -> str:
    return f"{base}search/?q={quote(query)}"


def search_results(page) -> list[str]:
    """Result links' targets, best first, once the search has run (keyword matches come second)."""
    page.wait_for_selector("#search-results[data-done] li a")
    return [a.get_attribute("href") for a in page.locator("#search-results li a").all()]


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """The page into test-artifacts/: the whole of it, or only what the viewport shows first."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=full_page)
    return path
