"""What a static host needs: `.nojekyll`, a 404 page, `browse/index.html`, and with `--site-url`
canonical links and a sitemap listing every page but redirects."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from conftest import build_git_history, run_cli

URL = "https://owner.github.io/errors/"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Over two revisions, so the site holds a redirect (an earlier id) that the sitemap leaves out."""
    root = tmp_path_factory.mktemp("publish")
    repo = build_git_history(root, "v1", "v2")
    out = root / "site"
    done = run_cli("scan", str(repo), "--commit", "1.0", "--commit", "2.0", "--include", "pkg/**", "--out", str(out),
                   "--cache-dir", str(root / "cache"), "--site-url", URL.rstrip("/"), "-q")
    assert done.returncode == 0, done.stderr
    return out


def canonical(page) -> str | None:
    found = re.search(r'<link rel="canonical" href="([^"]*)">', page.read_text())
    return found and found.group(1)


def test_the_sitemap_lists_every_page_at_its_canonical_address(site):
    locs = [loc.text for loc in ET.parse(site / "sitemap.xml").getroot().iter(f"{SITEMAP}loc")]
    redirects = {f"errors/{alias}/index.html" for alias in __import__("json").loads((site / "api" / "index.json").read_text())["aliases"]}
    assert redirects
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")} - {"404.html"} - redirects
    assert len(locs) == len(set(locs)) == len(pages)
    for page in pages:
        address = URL + re.sub(r"(^|/)index\.html$", r"\1", page)
        assert address in locs and canonical(site / page) == address, page
    assert all(canonical(site / page) is None for page in redirects)


def test_a_site_for_any_host_has_nojekyll_and_a_404_page_with_absolute_links(site):
    assert (site / ".nojekyll").read_text() == ""
    page = (site / "404.html").read_text()
    assert f'href="{URL}search/index.html"' in page and f'href="{URL}assets/style.css"' in page


def test_browse_index_links_every_group_page(site):
    page = (site / "browse" / "index.html").read_text()
    linked = set(re.findall(r'<a href="([^"/]+\.html)"', page))
    assert linked == {p.name for p in (site / "browse").glob("*.html")} - {"index.html"} and linked


def test_without_a_site_url_no_canonical_link_and_no_sitemap(tmp_path):
    out = tmp_path / "site"
    assert run_cli("scan", str(build_git_history(tmp_path, "v1")), "--include", "pkg/**", "--out", str(out), "-q").returncode == 0
    assert not (out / "sitemap.xml").exists() and canonical(out / "index.html") is None
    assert (out / ".nojekyll").is_file() and 'href="search/index.html"' in (out / "404.html").read_text()


def test_another_site_url_rebuilds_the_pages(site, tmp_path):
    repo = build_git_history(tmp_path, "v1")
    out = tmp_path / "site"
    for url in ("https://a.example/", "https://b.example/x/"):
        assert run_cli("scan", str(repo), "--include", "pkg/**", "--out", str(out), "--site-url", url, "-q").returncode == 0
        assert canonical(out / "index.html") == url


@pytest.mark.parametrize("url", ["owner.github.io/errors", "ftp://host/", "https://host/?q=1", "/errors/"])
def test_a_site_url_that_is_no_http_address_is_a_usage_error(tmp_path, url):
    done = run_cli("scan", str(tmp_path), "--site-url", url, "--out", str(tmp_path / "site"))
    assert done.returncode == 2 and "--site-url must be the http(s) address of the site's root" in done.stderr
