"""The built site: every error page has its sections, every JSON file validates, nothing escapes."""

from __future__ import annotations

import json
import re
import jsonschema
import msgspec
import pytest

from errscan.model import Trigger
from errscan.render.pages import EXCERPT_AFTER, EXCERPT_BEFORE
from errscan.render.site import write_site
from errscan.render.search import script_json
from sitebuild import SECTIONS, Page, catalog, error_named, site, words  # noqa: F401 (fixtures)

def pages(site):
    return sorted(site.rglob("*.html"))


def test_every_error_page_has_all_sections_in_order(site, catalog):
    for error in catalog.errors:
        page = Page((site / "errors" / error.id / "index.html").read_text())
        assert page.sections == SECTIONS, error.function


def test_error_page_explains_the_analysed_condition(site, catalog):
    error = error_named(catalog, "GroupLookupConnector._find_group")
    html = (site / "errors" / error.id / "index.html").read_text()
    text = words(html)
    assert "vllm-project" not in text and "example/kv · ValueError" in text
    assert "It is raised when group_ids does not have exactly 1 item." in text
    assert text.index("For vLLM developers") < text.index("The condition as code: len(group_ids) != 1")
    assert text.index("How to avoid it") < text.index("Source")
    assert "Index of the group holding the hidden states." in text  # the docstring, for developers
    assert "More than one match, or none among several groups: ambiguous." in text
    assert "GitHub (pinned to 0123456789)" in text
    assert f"https://github.com/example/kv/blob/{catalog.commit}/{error.path}#L{error.line}" in html
    # each chain step links to its pinned line
    assert f"https://github.com/example/kv/blob/{catalog.commit}/vllm/distributed/kv_transfer/group_lookup.py#L12" in html
    assert "How the engine gets there: 1 call chain" in text
    assert "KVConnectorFactory.create_connector (connector-init), when kv_cache_config is not None" in text
    assert "GroupLookupConnector._find_group group_lookup.py:12" in text
    assert text.count("len(group_ids) != 1") == 1  # the condition as code, once, for developers
    assert "--kv-transfer-config" in text and "GroupLookupConnector" in text
    assert f'href="../../api/errors/{error.id}.json"' in html
    assert "release 9.9.9" in text
    # the raise line and its continuation lines are marked, with their numbers
    marked = re.findall(r'<span class="hll"><span class="linenos">\s*(\d+)</span>', html)
    assert [int(n) for n in marked] == list(range(error.line, error.end_line + 1))
    numbered = re.findall(r'<span class="linenos">\s*(\d+)</span>(.*)', html)
    # a few lines around the statement, numbered as in the file (the JSON keeps the whole excerpt)
    start = max(error.excerpt.start_line, error.line - EXCERPT_BEFORE)
    assert [int(n) for n, _ in numbered] == list(range(start, error.end_line + EXCERPT_AFTER + 1))
    assert "raise" in dict(numbered)[str(error.line)]


def test_sections_without_data_say_so(site, catalog):
    error = error_named(catalog, "GroupLookupConnector.__init__")
    text = words((site / "errors" / error.id / "index.html").read_text())
    assert "Not analysed yet for this site" in text
    assert "In code terms" not in text and "The condition as code" not in text


def test_contributions_are_listed_with_their_conditions(site, catalog):
    error = error_named(catalog, "StoreConnector._validate")
    text = words((site / "errors" / error.id / "index.html").read_text())
    assert "PCP > 1 (pcp={config.pcp}): when config.pcp is greater than 1" in text


def test_code_level_advice_is_not_a_fix(site, catalog):
    error = error_named(catalog, "GroupLookupConnector.start_load", "NotImplementedError")
    text = words((site / "errors" / error.id / "index.html").read_text())
    assert "Turn use_layerwise off" not in text  # code-level advice stays in the JSON, for tools
    assert text.index("For vLLM developers") < text.index("Related errors")
    assert "Settings read on the way: use_layerwise" in text


def test_related_errors_say_why(site, catalog):
    error = error_named(catalog, "GroupLookupConnector._find_group")
    html = (site / "errors" / error.id / "index.html").read_text()
    init = error_named(catalog, "GroupLookupConnector.__init__")
    load = error_named(catalog, "GroupLookupConnector.start_load", "NotImplementedError")
    assert f'href="../{init.id}/index.html"' in html  # same class in the file
    assert f'href="../{load.id}/index.html"' in html  # same connector
    text = words(html)
    assert "same exception ValueError in the same file" in text
    assert "same connector GroupLookupConnector" in text
    assert error.id not in re.findall(r'href="\.\./([0-9a-f]{16})/index.html"', html)


def test_every_json_file_validates_against_the_schema(site, catalog):
    schema = json.loads((site / "api" / "schema.json").read_text())
    assert schema["schema_version"] == catalog.schema_version
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted((site / "api").rglob("*.json"))
    matcher = {path.relative_to(site / "api" / "matcher").parts[0] for path in (site / "api" / "matcher").rglob("*.json")}
    assert matcher == {"index.json", "frames.json", "keys", "rows"}
    assert len(files) == len(catalog.errors) + 3 + len(list((site / "api" / "matcher").rglob("*.json")))  # index, schema, callgraph
    for path in files:
        if path.name != "schema.json":
            validator.validate(json.loads(path.read_text()))


def test_schema_rejects_what_the_model_does_not_write(site):
    schema = json.loads((site / "api" / "schema.json").read_text())
    doc = json.loads(next((site / "api" / "errors").glob("*.json")).read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, "surprise": 1}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, "line": "12"}, schema)


def test_hostile_text_is_escaped_everywhere(site, catalog):
    error = error_named(catalog, "render_banner")
    assert "</script><script>alert(1)</script>" in error.message
    for path in pages(site):
        page = Page(path.read_text())
        for script in page.scripts:
            assert "alert" not in script, path
    html = (site / "errors" / error.id / "index.html").read_text()
    text = "".join(Page(html).text)
    assert "</script><script>alert(1)</script> and <img src=x onerror=alert(2)>" in text
    assert "<img src=x onerror=\"alert('comment')\"> must show as text" in text
    assert "alert('doc')" in text
    for path in sorted((site / "data").glob("*.js")):
        body = path.read_text()
        assert "<" not in body and ">" not in body, path


def test_script_json_cannot_close_a_script_element():
    text = script_json({"m": "</script><!-- \u2028 & >"})
    assert "</" not in text and "<!--" not in text and "\u2028" not in text
    assert json.loads(text) == {"m": "</script><!-- \u2028 & >"}


def test_links_are_relative_and_resolve(site):
    for path in pages(site):
        page = Page(path.read_text())
        for target in page.links + [s for s in page.scripts if not s.startswith("inline:")]:
            if target.startswith("https://github.com/"):
                continue
            assert not re.match(r"^[a-z]+:|^/", target), (path, target)
            assert (path.parent / target.split("?")[0]).resolve().exists(), (path, target)


def test_search_index_holds_the_shared_patterns(site, catalog):
    from errscan.match import compile_template

    entries = []
    for path in sorted((site / "data").glob("errors-*.js")):
        body = path.read_text()
        entries += json.loads(body[body.index("[") : body.rindex("]") + 1])
    assert [e["id"] for e in entries] == [e.id for e in catalog.errors]
    for entry, error in zip(entries, catalog.errors):
        compiled = compile_template(error.message)
        assert entry["pattern"] == compiled.pattern and "prefix_pattern" not in entry  # the page makes it from `pattern`
        assert (entry["literal_chars"], entry["words"]) == (compiled.literal_chars, list(compiled.words))


def test_browse_groups_by_connector_and_file_with_counts(site, catalog):
    html = (site / "index.html").read_text()
    text = words(html)
    assert "GroupLookupConnector (2)" in text and "StoreConnector (1)" in text
    assert "no connector determined (7)" in text  # nixl_connector.py and passthrough.py: registered nowhere in the fixture
    assert "vllm/distributed/kv_transfer/group_lookup.py (4)" in text
    for error in catalog.errors:
        assert f'href="errors/{error.id}/index.html"' in html


def test_build_is_deterministic(catalog, tmp_path):
    write_site(catalog, tmp_path / "a")
    write_site(catalog, tmp_path / "b")
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a == b


def test_pages_written_in_parallel_are_the_same(tmp_path, monkeypatch):
    from conftest import FIXTURES
    from errscan.profiles.vllm import VLLM
    from errscan.render import pages
    from errscan.runtime.runner import ScanOptions, scan as run_scan
    from errscan.scope import Scope
    from errscan.sources.folder import FolderSource

    catalog = run_scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions("o/r", Scope(("**",)), jobs=1))
    monkeypatch.setattr(pages, "_PAGES_PER_TASK", 3)  # several tasks even for a small catalog
    write_site(catalog, tmp_path / "one", jobs=1)
    write_site(catalog, tmp_path / "two", jobs=2)

    def files(root):
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    one = files(tmp_path / "one")
    assert len([p for p in one if p.startswith("errors/")]) == len(catalog.errors) > 6
    assert one == files(tmp_path / "two")


def test_unchanged_catalog_leaves_the_site_untouched(tmp_path):
    from conftest import FIXTURES
    from errscan.profiles.vllm import VLLM
    from errscan.runtime.runner import ScanOptions, scan as run_scan
    from errscan.scope import Scope
    from errscan.sources.folder import FolderSource

    def build(source):
        return run_scan(FolderSource(source, VLLM), ScanOptions("o/r", Scope(("**",)), jobs=1))

    out = tmp_path / "site"
    write_site(build(FIXTURES / "patterns"), out, jobs=1)
    index = out / "index.html"
    before = index.stat().st_mtime_ns
    write_site(build(FIXTURES / "patterns"), out, jobs=1)
    assert index.stat().st_mtime_ns == before and (out / ".errscan-build").is_file()
    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / "m.py").write_text("raise ValueError('new')\n")
    write_site(build(changed), out, jobs=1)
    assert index.stat().st_mtime_ns != before


def test_another_process_finds_the_same_fingerprint(tmp_path):
    """The fingerprint must not depend on the process: string hashing differs from one to the next."""
    import os
    import subprocess
    import sys

    from conftest import FIXTURES

    out = tmp_path / "site"
    for seed in ("1", "2"):
        command = [sys.executable, "-m", "errscan", "scan", str(FIXTURES / "patterns"), "--include", "**",
                   "--no-cache", "--out", str(out), "-q"]
        done = subprocess.run(command, env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        if seed == "1":
            before = (out / "index.html").stat().st_mtime_ns
    assert (out / "index.html").stat().st_mtime_ns == before


def test_the_site_folder_gets_the_permissions_of_a_plain_folder(catalog, tmp_path):
    """Built in a temporary folder, the site must still be readable by a web server's user."""
    import os

    previous = os.umask(0o022)
    try:
        write_site(catalog, tmp_path / "site")
    finally:
        os.umask(previous)
    assert (tmp_path / "site").stat().st_mode & 0o777 == 0o755


def test_an_interrupt_during_the_swap_waits_until_both_folders_are_in_order(tmp_path, monkeypatch):
    """Where folders cannot be exchanged in one call, the swap takes two renames: a Ctrl-C between them waits."""
    import os
    import signal

    from errscan.runtime import fsutil

    old, built = tmp_path / "site", tmp_path / "built"
    old.mkdir()
    (old / "old.txt").write_text("old")
    built.mkdir()
    (built / "new.txt").write_text("new")
    real_replace = os.replace
    calls = []

    def replace_then_interrupt(source, target):
        calls.append(target)
        real_replace(source, target)
        if len(calls) == 1:  # between moving the old site aside and moving the new one in
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(fsutil, "_exchange", lambda first, second: False)
    monkeypatch.setattr(fsutil.os, "replace", replace_then_interrupt)
    # Ctrl-C as an interactive Python takes it, even where the tests were started with it ignored
    # (a background job of a shell script inherits SIG_IGN, and Python keeps it).
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            fsutil.swap_in_folder(built, old)
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert (old / "new.txt").read_text() == "new" and (built / "old.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built", "site"]  # nothing else left behind


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="renameat2 is Linux's")
def test_the_swap_never_leaves_the_site_missing(tmp_path, monkeypatch):
    """One exchange, no rename: a SIGKILL at any instant leaves the old site or the new one at --out."""
    import os

    from errscan.runtime import fsutil

    old, built = tmp_path / "site", tmp_path / "built"
    old.mkdir()
    (old / "old.txt").write_text("old")
    built.mkdir()
    (built / "new.txt").write_text("new")

    def no_rename(*args):
        raise AssertionError("a rename would leave a moment with no site")

    monkeypatch.setattr(fsutil.os, "replace", no_rename)
    monkeypatch.setattr(fsutil.os, "rename", no_rename)
    fsutil.swap_in_folder(built, old)
    assert (old / "new.txt").read_text() == "new" and (built / "old.txt").read_text() == "old"


def test_a_folder_holding_only_an_index_is_not_a_site(catalog, tmp_path):
    from errscan.errors import UsageError

    out = tmp_path / "out"
    (out / "api").mkdir(parents=True)
    (out / "api" / "index.json").write_text("{}")
    (out / "thesis.tex").write_text("years of work")
    with pytest.raises(UsageError, match="not an errscan site"):
        write_site(catalog, out)
    assert (out / "thesis.tex").read_text() == "years of work"


@pytest.mark.parametrize("foreign", [".git/HEAD", "CNAME", "errors/notes.txt"])
def test_a_site_holding_files_errscan_did_not_write_is_not_replaced(catalog, tmp_path, foreign):
    from errscan.errors import UsageError

    out = tmp_path / "site"
    write_site(catalog, out)
    (out / foreign).parent.mkdir(parents=True, exist_ok=True)
    (out / foreign).write_text("the user's")
    changed = msgspec.structs.replace(catalog, errors=catalog.errors[1:])
    with pytest.raises(UsageError, match=f"errscan did not write {foreign.split('/')[0] if foreign.startswith('.git') else foreign}"):
        write_site(changed, out)
    assert (out / foreign).read_text() == "the user's"


def test_a_site_whose_marker_lists_no_files_is_replaced_unless_it_holds_more(catalog, tmp_path):
    """Sites written before the marker listed its files: only errscan's own top-level names."""
    from errscan.errors import UsageError
    from errscan.model import SCHEMA_VERSION
    from errscan.render.site import MARKER

    out = tmp_path / "site"
    write_site(catalog, out)
    (out / MARKER).write_text('{"build": "0"}')
    for newer in (".nojekyll", "404.html"):  # written since markers list files
        (out / newer).unlink()
    (out / ".git").mkdir()
    with pytest.raises(UsageError, match="errscan did not write .git"):
        write_site(catalog, out)
    (out / ".git").rmdir()
    write_site(catalog, out)
    assert json.loads((out / MARKER).read_text())["schema_version"] == SCHEMA_VERSION


def test_a_symlinked_out_is_written_through_and_kept(catalog, tmp_path):
    real = tmp_path / "real"
    link = tmp_path / "site"
    link.symlink_to(real)
    write_site(catalog, link)
    assert link.is_symlink() and (real / "index.html").is_file()
    write_site(msgspec.structs.replace(catalog, errors=catalog.errors[1:]), link)
    assert link.is_symlink() and (real / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real", "site"]


def test_a_symlink_to_a_missing_folder_makes_that_folder(catalog, tmp_path):
    link = tmp_path / "site"
    link.symlink_to(tmp_path / "later")
    write_site(catalog, link)
    assert link.is_symlink() and (tmp_path / "later" / "index.html").is_file()


def test_a_symlink_loop_is_one_usage_error(catalog, tmp_path):
    from errscan.errors import UsageError

    (tmp_path / "site").symlink_to(tmp_path / "loop")
    (tmp_path / "loop").symlink_to(tmp_path / "site")
    with pytest.raises(UsageError, match="leads nowhere"):
        write_site(catalog, tmp_path / "site")
    assert (tmp_path / "site").is_symlink()


def test_browse_groups_by_subsystem_with_counts(site, catalog):
    from collections import Counter

    from errscan.render.browse import Group, subsystem

    html = (site / "browse" / "index.html").read_text()
    counts = Counter("/".join(e.path.split("/")[:2]) for e in catalog.errors)
    assert counts  # the fixture's files lie under vllm/distributed
    for name, count in counts.items():
        assert f"{name}</code></a> <span class=\"count\">({count})</span>" in html
        page = site / "browse" / Group("subsystem", name, ()).page_name(1)
        assert page.is_file() and all(f"{e.id}/index.html" in page.read_text() for e in catalog.errors if subsystem(e.path) == name)
    assert subsystem("pkg/sub/x/y.py") == "pkg/sub" and subsystem("pkg/x.py") == "pkg/x.py"


def test_a_short_message_is_the_heading_once_and_a_lone_log_goes_on(catalog, tmp_path):
    """A condition that is a value the message shows appears once in the heading and once in the words."""
    (error,) = [e for e in catalog.errors if e.message.startswith("too many blocks")]
    trigger = Trigger(condition="len(block_ids)", conjuncts=("len(block_ids)",), raw_condition="len(block_ids)")
    logged = msgspec.structs.replace(error, kind="log", level="error", exception="", trigger=trigger)
    write_site(msgspec.structs.replace(catalog, errors=(logged,)), tmp_path / "site")
    html = (tmp_path / "site" / "errors" / error.id / "index.html").read_text()
    page = Page(html)
    assert "<title>ERROR: too many blocks: …" in html  # the tab shows the message's own words
    assert re.search(r'<h1 class="message">too many blocks: <span class="placeholder">\{len\(block_ids\)\}</span></h1>', html)
    assert 'pre class="message"' not in html and "not raised: the program goes on." in " ".join(" ".join(page.text).split())
    assert " ".join(page.outside_source().split()).count("len(block_ids)") == 2


def test_the_fix_box_shows_the_configuration_and_the_check_and_the_phase_is_said_once(catalog, tmp_path):
    from errscan.model import Explanation, Fix

    error = error_named(catalog, "GroupLookupConnector._find_group")
    told = Explanation(
        "GroupLookupConnector logs this at engine start-up (when the KV connector is created) when a file operation failed.",
        "environment", "at engine start-up (when the KV connector is created)", "each worker",
        (Fix("", None, "Check the path."),), reproduce="vllm serve MODEL --kv-transfer-config '{}'", check="ls -ld <path>")
    untold = msgspec.structs.replace(told, summary="An internal consistency check fails.", kind="internal", check="vllm collect-env")
    for explanation, phase in ((told, False), (untold, True)):
        write_site(msgspec.structs.replace(catalog, errors=(msgspec.structs.replace(error, explanation=explanation),)), tmp_path / "site")
        page = Page((tmp_path / "site" / "errors" / error.id / "index.html").read_text())
        fix = " ".join(t for section, _, t in page.placed if section == "fix")
        summary = " ".join(" ".join(t for section, _, t in page.placed if section == "summary").split())
        assert explanation.reproduce in fix and explanation.check in fix
        assert ("Attach the output of:" in fix) == (explanation.kind == "internal") and ("To check it:" in fix) != phase
        assert ("When:" in summary) == phase and "Where: each worker" in summary


def test_a_log_with_a_raise_further_down_its_function_does_not_say_the_program_goes_on(catalog, tmp_path):
    """Logged, then raised after: the page names the raise instead of "the program goes on"."""
    (error,) = [e for e in catalog.errors if e.message.startswith("too many blocks")]
    logged = msgspec.structs.replace(error, kind="log", level="error", exception="", id="1" * 16)
    raised = msgspec.structs.replace(error, line=error.line + 2, end_line=error.line + 2, id="2" * 16)
    write_site(msgspec.structs.replace(catalog, errors=(logged, raised)), tmp_path / "site")
    text = " ".join(" ".join(Page((tmp_path / "site" / "errors" / logged.id / "index.html").read_text()).text).split())
    assert "the program goes on" not in text
    assert f"not raised; but {error.function} raises {error.exception} further down (line {error.line + 2})" in text


def test_chains_print_shared_steps_and_conditions_once(catalog):
    from errscan.model import Chain, ChainStep
    from errscan.render.pages import shown_chains

    def step(caller, callee, line):
        return ChainStep(caller, callee, "a.py", line, None)

    inner = Chain("connector-init", ("C.__init__", "C.f"), (step("C.__init__", "C.f", 5),), "x is not None", None)
    outer = Chain("core-call", ("make", "C.__init__", "C.f"), (step("make", "C.__init__", 9), step("C.__init__", "C.f", 5)),
                  "y and x is not None", None)

    class Pin:
        commit = "0" * 40

    first, second = shown_chains(catalog, Pin, [inner, outer])
    assert [s.callee for s, _ in first.steps] == ["C.f"] and first.condition == "x is not None"
    assert [s.callee for s, _ in second.steps] == ["C.__init__"] and (second.joins, second.join_at) == (1, "C.f")
    assert (second.condition, second.same_condition) == ("y", 1)


def test_an_edit_to_the_rendering_code_rebuilds_the_site(catalog, monkeypatch):
    from errscan.render import site as rendering
    from errscan.runtime.cache import analyzer_key

    before = rendering.build_fingerprint(catalog)
    # the same version with other code to render: as after an edit of render/
    monkeypatch.setattr(rendering, "analyzer_key", lambda sources: analyzer_key(sources=(*sources, "cli.py")))
    assert rendering.build_fingerprint(catalog) != before


def test_a_long_chain_condition_keeps_the_terms_on_settings(catalog):
    """A page prints of a step's condition the terms that read a setting the trigger names, short;
    the JSON keeps the whole condition."""
    from errscan.model import Chain, ChainStep, Knob
    from errscan.render.pages import shown_chains

    condition = ("config.kv_transfer_config is not None and (not (not config.scheduler_config.disable_hybrid_kv_cache_manager) "
                 "or cls.supports_hma_config(config.kv_transfer_config)) and role != KVConnectorRole.SCHEDULER and "
                 "os.getenv('STORE_CONFIG_PATH') and True")
    chain = Chain("core-call", ("make", "C.f"), (ChainStep("make", "C.f", "a.py", 3, None),), condition, None)

    class Pin:
        commit = "0" * 40

    (shown,) = shown_chains(catalog, Pin, [chain], (Knob("env", "STORE_CONFIG_PATH", "os.getenv('STORE_CONFIG_PATH')"),))
    assert shown.condition == "os.getenv('STORE_CONFIG_PATH')" and shown.shortened
    (plain,) = shown_chains(catalog, Pin, [chain])  # no setting named: those that read like one, cut short
    assert len(plain.condition) <= 140 and plain.shortened and "is not None" not in plain.condition
    assert plain.condition.startswith("(not not config.scheduler_config")  # an `or` inside stays one term
    unnamed = Chain("core-call", ("make", "C.f"), (ChainStep("make", "C.f", "a.py", 3, None),),
                    "role != Role.SCHEDULER and vllm_config.kv_transfer_config is not None and os.getenv('X_PATH')", None)
    (read,) = shown_chains(catalog, Pin, [unnamed])  # a term that reads like a setting, not a presence check
    assert read.condition == "os.getenv('X_PATH')"
    either = "(os.environ.get('UPSTREAM') or (not os.environ.get('UPSTREAM') and raises(ImportError, 'from lmcache.integration import Connector')))"
    again = [Chain("core-call", (f"m{i}", "C.f"), (ChainStep(f"m{i}", "C.f", "a.py", i, None),), either, None) for i in (1, 2)]
    first, second = shown_chains(catalog, Pin, again)
    assert first.condition == "(os.environ.get('UPSTREAM') or …)"  # a long `or`: its first way
    assert (second.condition, second.same_condition) == ("", 1)  # printed once


def test_an_unreachable_page_neither_offers_a_way_to_avoid_it_nor_calls_its_chains_the_way_there(catalog, tmp_path):
    from msgspec.structs import replace

    from errscan.model import Explanation

    error = error_named(catalog, "GroupLookupConnector._find_group")
    dead = replace(error, explanation=Explanation("This error cannot fire at this commit: the check before it rules it out.", "unreachable"))
    write_site(replace(catalog, errors=tuple(dead if e is error else e for e in catalog.errors)), tmp_path / "site")
    text = words((tmp_path / "site" / "errors" / error.id / "index.html").read_text())
    assert "Nothing to avoid: it cannot fire at this commit" in text
    assert "Calls that reach this code, though the error cannot fire there: 1 call chain" in text
    assert "How the engine gets there" not in text and "No setting is known to avoid it" not in text
