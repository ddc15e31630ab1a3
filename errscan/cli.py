"""The command line: gathers the options into a `ScanRequest`, calls the library, prints one line
per problem.

What parses, analyses or renders is imported by the command that uses it, so that `errscan
lookup` in a built site loads none of it.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from errscan import __version__
from errscan.api.layout import INDEX
from errscan.api.read import check_error_id, read_error
from errscan.config import command_defaults
from errscan.errors import EXIT_DIFFERENCES, EXIT_FAILURE, EXIT_USAGE, ErrscanError, UsageError
from errscan.lookup import CatalogMatcher
from errscan.lookup.command import DEFAULT_SITE as DEFAULT_SITE_NAME, input_text, internal_error, report
from errscan.model import Catalog
from errscan.profiles.vllm import VLLM
from errscan.request import ScanRequest
from errscan.runtime.progress import Progress
from errscan.terminal import printable

if TYPE_CHECKING:
    from errscan.runtime.cache import ScanCache

DEFAULT_SITE = Path(DEFAULT_SITE_NAME)
PROFILE = VLLM
DIFF_FORMATS = ("text", "markdown", "json", "github", "sarif")  # what errscan.compare.formats.format_diff writes
SHOW_FORMATS = ("text", "json", "markdown")  # what errscan.lookup.show.format_error writes
COMMENT_CHARS = 65_000  # diff's markdown stays under it: a GitHub comment holds 65,536 characters


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(__version__, "-V", "--version", prog_name="errscan")
@click.pass_context
def cli(context: click.Context) -> None:
    """Catalog the errors a Python codebase can raise, pinned to a commit.

    Defaults for scan, lookup and diff (include, exclude, repo, jobs, out, site_url) can be set in
    [tool.errscan] of pyproject.toml, in this folder or one above; options still win.

    \b
    errscan scan --release 0.27.1                 a vLLM release into site/
    errscan lookup "ValueError: Rank 3 ..."       which error a message or log shows
    errscan show 0123456789abcdef                 one error, by its id
    errscan diff vllm==0.26.0 vllm==0.27.1        what changed between two releases
    """
    if context.invoked_subcommand is None:
        click.echo(context.get_help())
    else:
        context.default_map = command_defaults(Path.cwd())


def request_options(revisions: str | None):
    """The options that say what to scan, handed to the command as one `request` (a ScanRequest).

    `revisions`: "several" (`scan`: commits or releases, for history), "one" (`lookup`), or None
    (`diff`, whose sides name them). A SRC argument or option given above it joins the request too.
    """
    options = []
    if revisions is not None:
        multiple = revisions == "several"
        again = "; repeat for history, oldest first" if multiple else ""
        options += [
            click.option("--commit", "commits", multiple=multiple, metavar="REV", help=f"Read SRC's git repository at this commit (sha or tag), not the work tree{again}."),
            click.option("--release", "releases", multiple=multiple, metavar="X.Y.Z", help=f"Fetch this vLLM release with pip and scan it (no SRC){again}."),
        ]
        if multiple:
            options.append(click.option("--releases", "release_range", metavar="A..B", callback=_release_range, help="Every release pip lists from A to B: one site with history."))
    options += [
        click.option("--repo", default=PROFILE.repo, show_default=True, metavar="OWNER/NAME", callback=_owner_name, help="GitHub repository that links point to."),
        click.option("--include", multiple=True, metavar="GLOB", help=f"Catalogue files matching GLOB (repeatable). [default: {', '.join(PROFILE.default_include)}]"),
        click.option("--exclude", multiple=True, metavar="GLOB", help="Leave out files matching GLOB (repeatable)."),
        click.option("--jobs", "-j", default=0, type=click.IntRange(min=0), help="Processes to use; 0 means one per core, 1 runs everything in this process."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="Cache folder. [default: $ERRSCAN_CACHE_DIR, else $XDG_CACHE_HOME/errscan, else ~/.cache/errscan]"),
        click.option("--no-cache", is_flag=True, help="Parse every file; neither read nor write cached results."),
    ]

    def decorate(command):
        @functools.wraps(command)
        def with_request(**values):
            given = {name: values.pop(name) for name in _REQUEST_FIELDS if name in values}
            for name in ("commits", "releases"):  # one value, or none, where only one is taken
                if name in given and not isinstance(given[name], tuple):
                    given[name] = (given[name],) if given[name] else ()
            return command(request=ScanRequest(profile=PROFILE, **given), **values)

        for option in reversed(options):
            with_request = option(with_request)
        return with_request

    return decorate


_REQUEST_FIELDS = ("src", "commits", "releases", "release_range", "repo", "include", "exclude", "jobs", "cache_dir", "no_cache")


def _owner_name(context: click.Context, param: click.Parameter, value: str) -> str:
    if value.count("/") != 1:
        raise click.BadParameter("expected OWNER/NAME")
    return value


def _release_range(context: click.Context, param: click.Parameter, value: str | None) -> tuple[str, str] | None:
    if value is None:
        return None
    first, dots, last = value.partition("..")
    if not dots or not first or not last:
        raise click.BadParameter("expected FIRST..LAST, e.g. 0.24.0..0.27.1")
    return first, last


def scan_request(request: ScanRequest, progress: Progress) -> Catalog:
    """Scan what the request names (several revisions give history); parse failures and a
    corrupt cache go to stderr, one line each."""
    from errscan.compare.history import scan_revisions
    from errscan.runtime.runner import ScanOptions

    options = ScanOptions.for_request(request)
    revisions = request.revisions()
    for note in request.notes():
        progress.note(note)
    catalog = scan_revisions(revisions, options, progress)
    for failure in catalog.summary.parse_failures:
        click.echo(printable(f"{failure.path}:{failure.line}: {failure.reason}"), err=True)
    _report_cache(options.cache)
    if not catalog.summary.files_catalogued:
        raise ErrscanError(f"no file under {revisions[-1].name} matches --include {' '.join(options.scope.include)}")
    return catalog


@cli.command(short_help="Scan a source folder, git revisions or vLLM releases into a site.")
@click.argument("src", required=False)
@request_options(revisions="several")
@click.option("--out", default=str(DEFAULT_SITE), show_default=True, type=click.Path(file_okay=False, path_type=Path), help="Folder the site is written to (replaced atomically).")
@click.option("--site-url", metavar="URL", help="Where the site will be published (https://owner.github.io/repo/): pages name their canonical address, and a sitemap.xml lists them.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def scan(request: ScanRequest, out: Path, site_url: str | None, quiet: bool) -> None:
    """Scan SRC (a folder, or a git repo with --commit) or --release(s) into a site at --out.

    Several --release or --commit values (or --releases A..B) make one site whose pages carry
    each error's history; the latest is the main content.

    \b
    errscan scan --release 0.27.1
    errscan scan ~/vllm --commit v0.26.0 --commit HEAD
    errscan scan --releases 0.24.0..0.27.1 --out public/
    """
    from errscan.render.publish import site_url_option
    from errscan.render.site import check_site_target, write_site

    started = time.perf_counter()
    site_url = site_url_option(site_url) if site_url is not None else None
    check_site_target(out)  # before the scan, which can take minutes
    progress = Progress(quiet=quiet)
    catalog = scan_request(request, progress)
    writing = time.perf_counter()
    progress.writing(0, len(catalog.errors) + len(catalog.retired))
    write_site(catalog, out, request.jobs, site_url, on_written=progress.writing)
    progress.clear()
    if not quiet:
        ended = time.perf_counter()
        click.echo(printable(summary_line(catalog, out, write_seconds=ended - writing, total_seconds=ended - started)))


@cli.command(short_help="Say which catalogued error a message, traceback or log shows.")
@click.argument("text", required=False)
@click.option("--site", type=click.Path(file_okay=False, path_type=Path), help="Look up in this built site (its api/ folder); default: ./site when it holds one.")
@click.option("--src", metavar="SRC", help="Scan SRC on the fly, as `scan` does, and look up in it.")
@request_options(revisions="one")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def lookup(text: str | None, site: Path | None, request: ScanRequest, output_format: str) -> None:
    """Say which catalogued error TEXT (a message, a traceback, a log; `-` or none: stdin) shows.

    \b
    errscan lookup "ValueError: Rank 3 not initialized"
    kubectl logs pod | errscan lookup --release 0.27.1
    """
    if site is not None and (request.src or request.releases or request.commits):
        raise UsageError("--site reads a built site; give no --src, --release or --commit with it")
    if site is None and request.src is None and not request.releases:
        site = _default_site("give a catalog to look up in: --site DIR, --release X.Y.Z or --src SRC")
    text = input_text(text)
    if site is None and sys.stderr.isatty():
        click.echo("note: scanning the source first (a built site, --site DIR, answers at once)", err=True)
    if site is not None:  # the site's split matcher, and the documents of the best matches only
        from errscan.lookup.shards import SiteMatcher

        files = SiteMatcher(str(site))
        matcher = CatalogMatcher(files, files.error)
    else:
        matcher = CatalogMatcher.of_catalog(scan_request(request, Progress(quiet=True)))
    report(
        text, matcher, output_format, f"{site}/" if site else None,
        functools.partial(click.echo, nl=False), functools.partial(click.echo, err=True),
    )


@cli.command(short_help="Print one catalogued error, by its id, from a built site.")
@click.argument("error_id", metavar="ID", callback=lambda context, param, value: check_error_id(value.lower()))
@click.option("--site", type=click.Path(file_okay=False, path_type=Path), help="The built site to read; default: ./site when it holds one.")
@click.option("--format", "output_format", type=click.Choice(SHOW_FORMATS), default="text", show_default=True, help="text, json (the error's api/errors/<id>.json) or markdown.")
def show(error_id: str, site: Path | None, output_format: str) -> None:
    """Print the catalogued error ID (16 hex digits, as in its page's address) from a built site.

    \b
    errscan show 0123456789abcdef
    errscan show 0123456789abcdef --format markdown --site public/
    """
    from errscan.lookup.show import format_error

    site = site if site is not None else _default_site("give the site to read: --site DIR")
    text = format_error(read_error(site, error_id), output_format, f"{site}/")
    click.echo(text if output_format == "json" else printable(text, lines=True), nl=False)


def _default_site(otherwise: str) -> Path:
    """./site, where `errscan scan` writes by default, when it holds a site."""
    if not (DEFAULT_SITE / INDEX).is_file():
        raise UsageError(f"{otherwise} (./site holds no built site)")
    return DEFAULT_SITE


@cli.command(short_help="Compare the errors of two releases, git revisions or built sites.")
@click.argument("old")
@click.argument("new")
@click.option("--git", "git_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="OLD and NEW are revisions of this git repository.")
@click.option("--format", "fmt", type=click.Choice(DIFF_FORMATS), default="text", show_default=True, help="text (colored on a terminal), markdown (linked, for a PR comment), json, github (workflow commands: annotations in a GitHub Actions run) or sarif (2.1.0, for code scanning).")
@click.option("--max-chars", type=click.IntRange(min=0), default=COMMENT_CHARS, show_default=True, help="markdown: stop before this many characters with a note of what was left out (a GitHub comment holds 65,536); 0: no limit.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True, help="Color the text format: auto colors on a terminal unless NO_COLOR is set, or anywhere when FORCE_COLOR is set.")
@click.option("--fail-on", metavar="KINDS", help=f"Exit with status {EXIT_DIFFERENCES} if any of these are found: comma-separated added, removed, changed (beyond moved lines), moved (lines alone).")
@request_options(revisions=None)
@click.option("--quiet", "-q", is_flag=True, help="No progress lines.")
def diff(old: str, new: str, git_dir: Path | None, fmt: str, max_chars: int, color: str, fail_on: str | None, request: ScanRequest, quiet: bool) -> None:
    """Compare the errors of OLD and NEW: each a site folder (or its api/index.json), vllm==X.Y.Z,
    or with --git DIR a git revision. Prints added, removed and changed errors.

    \b
    errscan diff vllm==0.26.0 vllm==0.27.1
    errscan diff old-site/ new-site/ --format markdown --fail-on added,removed
    """
    from errscan.compare.changes import diff_catalogs, kinds_found
    from errscan.compare.formats import SourceLinks, format_diff
    from errscan.compare.sides import load_sides
    from errscan.runtime.runner import ScanOptions

    gates = _fail_on(fail_on)
    options = ScanOptions.for_request(request)
    progress = Progress(quiet=quiet)
    sides = load_sides([old, new], git_dir=git_dir, options=options, cache_dir=request.cache_root, progress=progress)
    _report_cache(options.cache)
    (old_label, old_catalog), (new_label, new_catalog) = sides
    for spec, (_, catalog) in zip((old, new), sides):
        if not catalog.summary.files_catalogued:
            raise ErrscanError(f"no file of {spec} matches --include {' '.join(options.scope.include)}")
    if (old_catalog.include, old_catalog.exclude) != (new_catalog.include, new_catalog.exclude):
        progress.note(
            f"the sides catalogue different files ({_scope_text(old_catalog)} against {_scope_text(new_catalog)}): "
            "errors outside one side's scope show as added or removed"
        )
    if old_catalog.repo.lower() != new_catalog.repo.lower():  # GitHub's names ignore case
        progress.note(
            f"the sides are of different repositories ({old_catalog.repo} against {new_catalog.repo}): "
            "their code is compared as if the second were a later version of the first"
        )
    result = diff_catalogs(old_catalog, new_catalog, old_label, new_label)
    colored = fmt == "text" and wants_color(color, sys.stdout)
    output = format_diff(
        result, fmt, color=colored, links=SourceLinks.of(old_catalog, new_catalog), max_chars=max_chars or None, gates=gates,
    )
    click.echo(output, nl=False, color=colored)  # click would strip the colors off a terminal
    if kinds_found(result) & gates:
        sys.exit(EXIT_DIFFERENCES)


def wants_color(choice: str, stream: TextIO) -> bool:
    """--color always or never as said; auto: NO_COLOR (no-color.org) turns color off, FORCE_COLOR
    (force-color.org) on off a terminal, else color on a terminal that is not "dumb"."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM") != "dumb"


def _scope_text(catalog: Catalog) -> str:
    excluded = f" --exclude {' '.join(catalog.exclude)}" if catalog.exclude else ""
    return f"--include {' '.join(catalog.include)}{excluded}"


def _fail_on(text: str | None) -> set[str]:
    from errscan.compare.changes import GATE_KINDS

    if text is None:
        return set()
    kinds = [k.strip() for k in text.split(",")]
    unknown = [k for k in kinds if k not in GATE_KINDS]
    if unknown:
        raise click.BadParameter(f"unknown kind {unknown[0]!r}; expected {', '.join(GATE_KINDS)}", param_hint="--fail-on")
    return set(kinds)


def _report_cache(cache: ScanCache | None) -> None:
    """Once per run however many entries were bad (they have been recomputed and rewritten), and
    once if entries could not be written (the scan went on without storing them)."""
    if cache is not None and cache.stats.write_error is not None:
        click.echo(printable(
            f"errscan: warning: cannot write to the cache in {cache.folder.parent.parent}: {cache.stats.write_error}; "
            "results were not stored (--cache-dir chooses another folder)"
        ), err=True)
    if cache is not None and cache.stats.corrupt:
        bad = cache.stats.corrupt
        click.echo(
            printable(f"errscan: warning: {len(bad)} corrupt cache entries ignored, recomputed and rewritten (first: {bad[0]})"),
            err=True,
        )


def summary_line(catalog: Catalog, out: Path, write_seconds: float, total_seconds: float) -> str:
    """The scan's one line: what was read and found, the command's whole time (fetching, reading the
    cache and writing the site included) and that of each stage (the site itself holds no timings:
    two scans of one input write identical files)."""
    s = catalog.summary
    commit = f"commit {catalog.commit[:12]}" if catalog.commit else "commit not known"
    stages = {name: seconds for name, seconds in s.stage_seconds.items() if name != "total"}
    cached = "" if stages else "catalog from the cache, "
    timing = cached + ", ".join(f"{name} {seconds:.1f}s" for name, seconds in {**stages, "write": write_seconds}.items())
    return (
        f"scanned {commit}: read {s.files_read} files, catalogued {s.files_catalogued} files: "
        f"{s.raises} raises, {s.asserts} asserts with a message, {s.logs} log sites, {s.reraises} re-raises, "
        f"{len(s.parse_failures)} parse failures; graph of {s.graph_files} files: {s.graph_edges} edges, "
        f"{s.unresolved_calls} unresolved calls; chains for {s.errors_with_chain}/{s.raises + s.asserts + s.logs} errors; "
        f"{total_seconds:.1f}s ({timing}) -> {out}"
    )


def main() -> None:
    """Entry point: every expected failure is one line on stderr with its exit status."""
    # A terminated scan unwinds like an interrupted one, so its worker processes are stopped too.
    signal.signal(signal.SIGTERM, _terminated)
    try:
        cli.main(prog_name="errscan", standalone_mode=False)
    except ErrscanError as exc:
        click.echo(printable(f"errscan: {exc}") + _help_hint(exc.exit_code), err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(printable(f"errscan: {exc.format_message()}") + _help_hint(exc.exit_code), err=True)
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("errscan: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug in errscan: still one line, with the way to see more
        if os.environ.get("ERRSCAN_DEBUG"):
            raise
        click.echo(printable(internal_error(exc)), err=True)
        sys.exit(EXIT_FAILURE)
    sys.exit(0)


def _help_hint(exit_code: int) -> str:
    """After a usage error, where the command's options are explained (on the same line)."""
    if exit_code != EXIT_USAGE:
        return ""
    command = next((arg for arg in sys.argv[1:] if arg in cli.commands), None)
    return f"; see 'errscan{' ' + command if command else ''} --help'"


def _terminated(number: int, frame: object) -> None:
    click.echo("errscan: terminated", err=True)
    sys.exit(128 + number)


assert EXIT_USAGE == click.UsageError.exit_code  # click's usage errors and ours share status 2
