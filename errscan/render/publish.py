"""What a static host needs beside the pages: `.nojekyll` (GitHub Pages then serves every file as
it is), a 404 page, and with `--site-url` a sitemap.xml."""

from __future__ import annotations

from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

import jinja2

from errscan.errors import UsageError
from errscan.model import Catalog

Write = Callable[[Path, str], None]


def site_url_option(text: str) -> str:
    """An absolute http(s) URL of the site's root, ending in `/` so that page paths join it."""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise UsageError(f"--site-url must be the http(s) address of the site's root, such as https://owner.github.io/repo/, not {text!r}")
    return text if text.endswith("/") else text + "/"


def write_publishing_files(catalog: Catalog, root: Path, env: jinja2.Environment, site_url: str | None, write: Write) -> None:
    """After the pages: the sitemap lists the pages written (redirects and the 404 page aside)."""
    write(root / ".nojekyll", "")
    common = {"catalog": catalog, "short_commit": (catalog.commit or "")[:10], "site_url": site_url}
    # Served for any missing address, at any depth: only absolute links work from it everywhere.
    write(root / "404.html", env.get_template("404.html").render(root=site_url or "", **common))
    if site_url is None:
        return
    redirects = {f"errors/{alias}/index.html" for alias in catalog.aliases}
    pages = sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*.html")
        if path.name != "404.html"
    )
    urls = [site_url + _pretty(page) for page in pages if page not in redirects]
    write(root / "sitemap.xml", _sitemap(urls))


def _pretty(page: str) -> str:
    """`errors/x/index.html` as `errors/x/`, the address a host serves it at."""
    return page[: -len("index.html")] if page == "index.html" or page.endswith("/index.html") else page


def _sitemap(urls: list[str]) -> str:
    entries = "".join(f"  <url><loc>{escape(url)}</loc></url>\n" for url in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}</urlset>\n"
    )
