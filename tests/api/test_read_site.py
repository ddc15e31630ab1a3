"""A built site read back is the catalog it was built from, but for what it keeps in other files."""

from __future__ import annotations

import json

import msgspec
import pytest

from conftest import FIXTURES, build_git_history
from errscan.api.read import read_site
from errscan.errors import ErrscanError, UsageError
from errscan.model import SCHEMA_VERSION
from errscan.compare.history import scan_revisions
from errscan.request import Revision
from errscan.profiles.vllm import VLLM
from errscan.runtime.progress import Progress
from errscan.render.site import write_site
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource
from errscan.sources.git import GitSource


def read_back(catalog, out):
    write_site(catalog, out, jobs=1)
    return read_site(out)


def as_published(catalog):
    """What a site holds of a catalog: the call graph and the diffs are files of their own."""
    return msgspec.structs.replace(catalog, callgraph=None, changes=())


def test_a_scan_survives_its_site(tmp_path):
    catalog = scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions("o/r", Scope(("**",)), jobs=1))
    assert catalog.errors and catalog.callgraph is not None
    assert read_back(catalog, tmp_path / "site") == as_published(catalog)


def test_a_history_survives_its_site(tmp_path):
    repo = build_git_history(tmp_path, "v1", "v2", "v3")
    options = ScanOptions(repo="o/r", scope=Scope(("pkg/**",)), jobs=1)
    revisions = [Revision(tag, lambda tag=tag: GitSource(repo, tag, VLLM)) for tag in ("1.0", "2.0", "3.0")]
    catalog = scan_revisions(revisions, options, Progress(quiet=True))
    assert catalog.retired and catalog.aliases and catalog.changes  # the fixture has each
    assert read_back(catalog, tmp_path / "site") == as_published(catalog)


@pytest.fixture
def site(tmp_path):
    catalog = scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions("o/r", Scope(("**",)), jobs=1))
    write_site(catalog, tmp_path / "site", jobs=1)
    return tmp_path / "site", catalog


def test_a_document_of_the_wrong_shape_is_one_line(site):
    root, catalog = site
    document = root / "api" / "errors" / f"{catalog.errors[0].id}.json"
    document.write_text(document.read_text().replace(f'"line":{catalog.errors[0].line},', '"line":"twelve",', 1))
    with pytest.raises(ErrscanError, match=r"cannot read the site at .*: ValidationError: Expected `int`, got `str` - at `\$.line`"):
        read_site(root)


def test_another_schema_version_is_refused(site):
    root, _ = site
    index = root / "api" / "index.json"
    index.write_text(json.dumps({**json.loads(index.read_text()), "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(UsageError, match=f"its api/ has schema version {SCHEMA_VERSION + 1}, this errscan reads {SCHEMA_VERSION}"):
        read_site(root)


def test_a_folder_without_an_index_is_no_site(tmp_path):
    with pytest.raises(UsageError, match="not an errscan site"):
        read_site(tmp_path)


def test_an_id_that_is_not_one_is_never_made_a_path(site, tmp_path):
    root, _ = site
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    index = root / "api" / "index.json"
    document = json.loads(index.read_text())
    document["errors"][0]["id"] = "../../../outside"
    index.write_text(json.dumps(document))
    with pytest.raises(ErrscanError, match=r"Expected `str` matching regex '\^\[0-9a-f\]\{16\}\$' - at `\$.errors\[0\].id`"):
        read_site(root)


@pytest.mark.parametrize("body", ["[" * 100_000 + "]" * 100_000, '{"schema_version": 1, "errors": 7}', "[1, 2]"])
def test_a_deeply_nested_or_mistyped_index_is_one_line(site, body):
    root, _ = site
    (root / "api" / "index.json").write_text(body)
    with pytest.raises(ErrscanError, match="cannot read the site at|schema version"):
        read_site(root)


def test_the_call_graph_reads_back_from_its_file(site):
    from errscan.model import CallGraphDocument

    root, catalog = site
    document = msgspec.json.decode((root / "api" / "callgraph.json").read_bytes(), type=CallGraphDocument)
    assert document == catalog.callgraph and document.edges == catalog.callgraph.edges
