"""The command line: parses options, calls the library, prints one line per problem.

Scanning and writing a site load libcst, networkx, jinja2 and pygments: what scans, fetches or
writes is imported in the functions that do it, so that `errscan lookup --site` starts fast.
"""

from __future__ import annotations

import os
import signal
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from errscan import __version__
from errscan.api.read import read_site
from errscan.cachedir import default_cache_dir
from errscan.diff import GATE_KINDS, diff_catalogs, kinds_found
from errscan.errors import EXIT_DIFFERENCES, EXIT_FAILURE, EXIT_USAGE, ErrscanError, UsageError
from errscan.lookup import lookup as find_in_log
from errscan.lookup.output import as_json, as_text
from errscan.model import Catalog
from errscan.profiles.vllm import VLLM
from errscan.progress import Progress
from errscan.render.diff import FORMATS, format_diff
from errscan.scope import Scope

if TYPE_CHECKING:
    from errscan.cache import ScanCache
    from errscan.history import Revision
    from errscan.scan import ScanOptions

DEFAULT_SITE = Path("site")  # scan writes here, lookup reads here, unless told otherwise
PROFILE = VLLM


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(__version__, prog_name="errscan")
@click.pass_context
def cli(context: click.Context) -> None:
    """Catalog the errors a Python codebase can raise, pinned to a commit."""
    if context.invoked_subcommand is None:
        click.echo(context.get_help())


def source_options(multiple: bool):
    """The options that say what to scan: `scan` may take several commits or releases (for
    history), `lookup` one. Then `scan_options`."""
    again = "; repeat for history, oldest first" if multiple else ""
    options = [
        click.option("--commit", multiple=multiple, metavar="REV", help=f"Read SRC's git repository at this commit (sha or tag), not the work tree{again}."),
        click.option("--release", multiple=multiple, metavar="X.Y.Z", help=f"Fetch this vLLM release with pip and scan it (no SRC){again}."),
    ]
    if multiple:
        options.append(click.option("--releases", metavar="A..B", help="Every release pip lists from A to B: one site with history."))
    return _decorator(options + _SCAN_OPTIONS)


_SCAN_OPTIONS = [
    click.option("--repo", default=PROFILE.repo, show_default=True, metavar="OWNER/NAME", help="GitHub repository that links point to."),
    click.option("--include", multiple=True, metavar="GLOB", help=f"Catalogue files matching GLOB (repeatable). [default: {', '.join(PROFILE.default_include)}]"),
    click.option("--exclude", multiple=True, metavar="GLOB", help="Leave out files matching GLOB (repeatable)."),
    click.option("--jobs", "-j", default=0, type=click.IntRange(min=0), help="Processes to use; 0 means one per core."),
    click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="Cache folder. [default: $ERRSCAN_CACHE_DIR, else $XDG_CACHE_HOME/errscan, else ~/.cache/errscan]"),
    click.option("--no-cache", is_flag=True, help="Parse every file; neither read nor write cached results."),
]


def _decorator(options):
    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def scan_source(
    src, commits, releases, release_range, repo, include, exclude, jobs, cache_dir, no_cache, quiet
) -> Catalog:
    """Scan what the source options name (several revisions give history); parse failures and a
    corrupt cache go to stderr, one line each."""
    from errscan.history import scan_revisions
    from errscan.sources.git import order_notes

    if "/" not in repo or repo.count("/") != 1:
        raise click.BadParameter("expected OWNER/NAME", param_hint="--repo")
    cache_dir = cache_dir or default_cache_dir()
    options, scope = _scan_options(repo, include, exclude, jobs, cache_dir, no_cache)
    revisions = _revisions(src, commits, releases, release_range, cache_dir)
    progress = Progress(quiet=quiet)
    if src is not None and len(commits) > 1:
        for note in order_notes(Path(src), list(dict.fromkeys(commits))):
            progress.note(note)
    catalog = scan_revisions(revisions, options, progress)
    for failure in catalog.summary.parse_failures:
        click.echo(f"{failure.path}:{failure.line}: {failure.reason}", err=True)
    _report_corrupt_cache(options.cache)
    if not catalog.summary.files_catalogued:
        raise ErrscanError(f"no file under {revisions[-1].name} matches --include {' '.join(scope.include)}")
    return catalog


@cli.command()
@click.argument("src", required=False)
@source_options(multiple=True)
@click.option("--out", default=str(DEFAULT_SITE), show_default=True, type=click.Path(file_okay=False, path_type=Path), help="Folder the site is written to (replaced atomically).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def scan(src, commit, release, releases, repo, include, exclude, jobs, cache_dir, no_cache, out, quiet) -> None:
    """Scan SRC (a folder, or a git repo with --commit) or --release(s) into a site at --out.

    Several --release or --commit values (or --releases A..B) make one site whose pages carry
    each error's history; the latest is the main content.
    """
    from errscan.render.site import check_site_target, write_site

    check_site_target(out)  # before the scan, which can take minutes
    catalog = scan_source(src, commit, release, releases, repo, include, exclude, jobs, cache_dir, no_cache, quiet)
    write_site(catalog, out, jobs)
    if not quiet:
        click.echo(summary_line(catalog, out))


@cli.command()
@click.argument("text", required=False)
@click.option("--site", type=click.Path(file_okay=False, path_type=Path), help="Look up in this built site (its api/ folder); default: ./site when it holds one.")
@click.option("--src", metavar="SRC", help="Scan SRC on the fly, as `scan` does, and look up in it.")
@source_options(multiple=False)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def lookup(text, site, src, commit, release, repo, include, exclude, jobs, cache_dir, no_cache, output_format) -> None:
    """Say which catalogued error TEXT (a message, a traceback, a log; `-` or none: stdin) shows."""
    if site is not None and (src or release or commit):
        raise UsageError("--site reads a built site; give no --src, --release or --commit with it")
    if site is None and src is None and release is None:
        if not (DEFAULT_SITE / "api" / "index.json").is_file():
            raise UsageError("give a catalog to look up in: --site DIR, --release X.Y.Z or --src SRC")
        site = DEFAULT_SITE  # where `errscan scan` writes by default
    if text in (None, "-"):
        if sys.stdin.isatty():
            raise UsageError("give TEXT, or pipe a log into standard input")
        text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the input is empty")
    if site is None and sys.stderr.isatty():
        click.echo("note: scanning the source first (a built site, --site DIR, answers at once)", err=True)
    catalog = read_site(site) if site is not None else scan_source(
        src, _one(commit), _one(release), None, repo, include, exclude, jobs, cache_dir, no_cache, quiet=True
    )
    findings = find_in_log(text, catalog)
    if not any(finding.candidates for finding in findings):
        if output_format == "json":
            click.echo("[]")  # still a JSON document for `| jq`; the hint goes to stderr
        read = f"{len(findings)} message{'' if len(findings) == 1 else 's'} read"
        raise ErrscanError(
            f"nothing in the input matches the {len(catalog.errors)} catalogued errors "
            f"({read}); paste the whole `SomeError: message` line or the traceback"
        )
    click.echo(as_json(findings) if output_format == "json" else as_text(findings, f"{site}/" if site else None), nl=False)


@cli.command()
@click.argument("old")
@click.argument("new")
@click.option("--git", "git_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="OLD and NEW are revisions of this git repository.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="text (colored on a terminal), markdown, or json.")
@click.option("--fail-on", metavar="KINDS", help=f"Exit with status {EXIT_DIFFERENCES} if any of these are found: comma-separated added, removed, changed (beyond moved lines), moved (lines alone).")
@_decorator(_SCAN_OPTIONS)
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def diff(old, new, git_dir, fmt, fail_on, repo, include, exclude, jobs, cache_dir, no_cache, quiet) -> None:
    """Compare the errors of OLD and NEW: each a site folder (or its api/index.json), vllm==X.Y.Z,
    or with --git DIR a git revision. Prints added, removed and changed errors.
    """
    from errscan.sides import load_sides

    gates = _fail_on(fail_on)
    cache_dir = cache_dir or default_cache_dir()
    options, _ = _scan_options(repo, include, exclude, jobs, cache_dir, no_cache)
    progress = Progress(quiet=quiet)
    sides = load_sides([old, new], git_dir=git_dir, profile=PROFILE, options=options, cache_dir=cache_dir, progress=progress)
    _report_corrupt_cache(options.cache)
    (old_label, old_catalog), (new_label, new_catalog) = sides
    for spec, (_, catalog) in zip((old, new), sides):
        if not catalog.summary.files_catalogued:
            raise ErrscanError(f"no file of {spec} matches --include {' '.join(options.scope.include)}")
    if (old_catalog.include, old_catalog.exclude) != (new_catalog.include, new_catalog.exclude):
        progress.note(
            f"the sides catalogue different files ({_scope_text(old_catalog)} against {_scope_text(new_catalog)}): "
            "errors outside one side's scope show as added or removed"
        )
    result = diff_catalogs(old_catalog, new_catalog, old_label, new_label)
    click.echo(format_diff(result, fmt, color=fmt == "text" and sys.stdout.isatty()), nl=False)
    if kinds_found(result) & gates:
        sys.exit(EXIT_DIFFERENCES)


def _scan_options(repo, include, exclude, jobs, cache_dir: Path, no_cache: bool) -> tuple[ScanOptions, Scope]:
    from errscan.cache import open_cache
    from errscan.scan import ScanOptions

    scope = Scope(tuple(include) or PROFILE.default_include, tuple(exclude))
    cache = None if no_cache else open_cache(cache_dir)
    return ScanOptions(repo=repo, scope=scope, jobs=jobs, cache=cache), scope


def _revisions(src, commits, releases, release_range, cache_dir: Path) -> list[Revision]:
    """What to scan, oldest first: releases sorted by version, commits in the order given."""
    from errscan.history import Revision
    from errscan.sources import open_source
    from errscan.sources.release import releases_between, sort_versions

    if release_range is not None:
        if releases:
            raise UsageError("give either --release or --releases, not both")
        first, dots, last = release_range.partition("..")
        if not dots or not first or not last:
            raise click.BadParameter("expected FIRST..LAST, e.g. 0.24.0..0.27.1", param_hint="--releases")
        releases = releases_between(first, last, profile=PROFILE)
    if releases:
        if src is not None or commits:
            raise UsageError("--release reads the package index; give no SRC and no --commit with it")
        return [
            Revision(v, partial(open_source, None, profile=PROFILE, release=v, cache_dir=cache_dir))
            for v in sort_versions(list(releases))
        ]
    if not commits:
        return [Revision(src or "", partial(open_source, src, profile=PROFILE, cache_dir=cache_dir))]
    return [
        Revision(rev, partial(open_source, src, profile=PROFILE, commit=rev, cache_dir=cache_dir))
        for rev in dict.fromkeys(commits)
    ]


def _scope_text(catalog: Catalog) -> str:
    excluded = f" --exclude {' '.join(catalog.exclude)}" if catalog.exclude else ""
    return f"--include {' '.join(catalog.include)}{excluded}"


def _fail_on(text: str | None) -> set[str]:
    if text is None:
        return set()
    kinds = [k.strip() for k in text.split(",")]
    unknown = [k for k in kinds if k not in GATE_KINDS]
    if unknown:
        raise click.BadParameter(f"unknown kind {unknown[0]!r}; expected {', '.join(GATE_KINDS)}", param_hint="--fail-on")
    return set(kinds)


def _report_corrupt_cache(cache: ScanCache | None) -> None:
    """Once per run however many entries were bad; they have been recomputed and rewritten."""
    if cache is not None and cache.stats.corrupt:
        bad = cache.stats.corrupt
        click.echo(
            f"errscan: warning: {len(bad)} corrupt cache entries ignored, recomputed and rewritten (first: {bad[0]})",
            err=True,
        )


def _one(value: str | None) -> tuple[str, ...]:
    return (value,) if value else ()


def summary_line(catalog, out: Path) -> str:
    s = catalog.summary
    commit = f"commit {catalog.commit[:12]}" if catalog.commit else "commit not known"
    stages = s.stage_seconds
    timing = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in stages.items() if name != "total")
    timing = timing or "all from the cache"
    return (
        f"scanned {commit}: read {s.files_read} files, catalogued {s.files_catalogued} files: "
        f"{s.raises} raises, {s.asserts} asserts with a message, {s.reraises} re-raises, "
        f"{len(s.parse_failures)} parse failures; graph of {s.graph_files} files: {s.graph_edges} edges, "
        f"{s.unresolved_calls} unresolved calls; chains for {s.errors_with_chain}/{s.raises + s.asserts} errors; "
        f"{stages.get('total', 0):.1f}s ({timing}) -> {out}"
    )


def main() -> None:
    """Entry point: every expected failure is one line on stderr with its exit status."""
    # A terminated scan unwinds like an interrupted one, so its worker processes are stopped too.
    signal.signal(signal.SIGTERM, _terminated)
    try:
        cli.main(standalone_mode=False)
    except ErrscanError as exc:
        click.echo(f"errscan: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"errscan: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("errscan: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug in errscan: still one line, with the way to see more
        if os.environ.get("ERRSCAN_DEBUG"):
            raise
        click.echo(f"errscan: internal error: {type(exc).__name__}: {exc} (ERRSCAN_DEBUG=1 shows the traceback)", err=True)
        sys.exit(EXIT_FAILURE)
    sys.exit(0)


def _terminated(number: int, frame: object) -> None:
    click.echo("errscan: terminated", err=True)
    sys.exit(128 + number)


assert EXIT_USAGE == click.UsageError.exit_code  # click's usage errors and ours share status 2
