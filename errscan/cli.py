"""The command line: parses options, calls the library, prints one line per problem."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import click

from errscan import __version__
from errscan.cachedir import default_cache_dir
from errscan.errors import EXIT_FAILURE, EXIT_USAGE, ErrscanError, UsageError
from errscan.lookup import lookup as find_in_log
from errscan.lookup.output import as_json, as_text
from errscan.model import Catalog
from errscan.profiles.vllm import VLLM
from errscan.render import read_site, write_site
from errscan.scan import ScanOptions, scan as run_scan
from errscan.scope import Scope
from errscan.sources import open_source

PROFILE = VLLM


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(__version__, prog_name="errscan")
@click.pass_context
def cli(context: click.Context) -> None:
    """Catalog the errors a Python codebase can raise, pinned to a commit."""
    if context.invoked_subcommand is None:
        click.echo(context.get_help())


def source_options(command):
    """The options that say what to scan and how, shared by `scan` and `lookup`."""
    options = [
        click.option("--commit", metavar="REV", help="Read SRC's git repository at this commit (sha or tag), not the work tree."),
        click.option("--release", metavar="X.Y.Z", help="Fetch this vLLM release with pip and scan it (no SRC)."),
        click.option("--repo", default=PROFILE.repo, show_default=True, metavar="OWNER/NAME", help="GitHub repository that links point to."),
        click.option("--include", multiple=True, metavar="GLOB", help=f"Catalogue files matching GLOB (repeatable). [default: {', '.join(PROFILE.default_include)}]"),
        click.option("--exclude", multiple=True, metavar="GLOB", help="Leave out files matching GLOB (repeatable)."),
        click.option("--jobs", "-j", default=0, type=click.IntRange(min=0), help="Processes to use; 0 means one per core."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="Cache folder. [default: $ERRSCAN_CACHE_DIR, else $XDG_CACHE_HOME/errscan, else ~/.cache/errscan]"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def scan_source(src, commit, release, repo, include, exclude, jobs, cache_dir) -> Catalog:
    """Scan what the source options name; parse failures go to stderr, one line each."""
    if "/" not in repo or repo.count("/") != 1:
        raise click.BadParameter("expected OWNER/NAME", param_hint="--repo")
    source = open_source(
        src, profile=PROFILE, commit=commit, release=release, cache_dir=cache_dir or default_cache_dir()
    )
    scope = Scope(tuple(include) or PROFILE.default_include, tuple(exclude))
    for note in source.notes:
        click.echo(f"note: {note}", err=True)
    catalog = run_scan(source, ScanOptions(repo=repo, scope=scope, jobs=jobs))
    for failure in catalog.summary.parse_failures:
        click.echo(f"{failure.path}:{failure.line}: {failure.reason}", err=True)
    if not catalog.summary.files_catalogued:
        raise ErrscanError(f"no file under {source.description} matches --include {' '.join(scope.include)}")
    return catalog


@cli.command()
@click.argument("src", required=False)
@source_options
@click.option("--out", default="site", show_default=True, type=click.Path(file_okay=False, path_type=Path), help="Folder the site is written to (replaced atomically).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def scan(src, commit, release, repo, include, exclude, jobs, cache_dir, out, quiet) -> None:
    """Scan SRC (a folder, or a git repo with --commit) or a --release into a site at --out."""
    catalog = scan_source(src, commit, release, repo, include, exclude, jobs, cache_dir)
    write_site(catalog, out)
    if not quiet:
        click.echo(summary_line(catalog, out))


@cli.command()
@click.argument("text", required=False)
@click.option("--site", type=click.Path(file_okay=False, path_type=Path), help="Look up in this built site (its api/ folder).")
@click.option("--src", metavar="SRC", help="Scan SRC on the fly, as `scan` does, and look up in it.")
@source_options
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def lookup(text, site, src, commit, release, repo, include, exclude, jobs, cache_dir, output_format) -> None:
    """Say which catalogued error TEXT (a message, a traceback, a log; `-` or none: stdin) shows."""
    if site is not None and (src or release or commit):
        raise UsageError("--site reads a built site; give no --src, --release or --commit with it")
    if site is None and src is None and release is None:
        raise UsageError("give a catalog to look up in: --site DIR, --release X.Y.Z or --src SRC")
    if text in (None, "-"):
        if sys.stdin.isatty():
            raise UsageError("give TEXT, or pipe a log into standard input")
        text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the input is empty")
    catalog = read_site(site) if site is not None else scan_source(src, commit, release, repo, include, exclude, jobs, cache_dir)
    findings = find_in_log(text, catalog)
    if not any(finding.candidates for finding in findings):
        raise ErrscanError(
            f"nothing in the input matches the {len(catalog.errors)} catalogued errors "
            f"({len(findings)} messages read); paste the whole `SomeError: message` line or the traceback"
        )
    click.echo(as_json(findings) if output_format == "json" else as_text(findings, f"{site}/" if site else None), nl=False)


def summary_line(catalog, out: Path) -> str:
    s = catalog.summary
    commit = f"commit {catalog.commit[:12]}" if catalog.commit else "commit not known"
    stages = s.stage_seconds
    timing = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in stages.items() if name != "total")
    return (
        f"scanned {commit}: read {s.files_read} files, catalogued {s.files_catalogued}: "
        f"{s.raises} raises, {s.asserts} asserts with a message, {s.reraises} re-raises, "
        f"{len(s.parse_failures)} parse failures; graph of {s.graph_files} files: {s.graph_edges} edges, "
        f"{s.unresolved_calls} unresolved calls; chains for {s.errors_with_chain}/{s.raises + s.asserts} errors; "
        f"{stages.get('total', 0):.1f}s ({timing}) -> {out}"
    )


def main() -> None:
    """Entry point: every expected failure is one line on stderr with its exit status."""
    # A terminated scan unwinds like an interrupted one, so its worker processes are stopped too.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
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


assert EXIT_USAGE == click.UsageError.exit_code  # click's usage errors and ours share status 2
