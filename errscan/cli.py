"""The command line: parses options, calls the library, prints one line per problem."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from errscan import __version__
from errscan.cachedir import default_cache_dir
from errscan.errors import EXIT_FAILURE, EXIT_USAGE, ErrscanError
from errscan.profiles.vllm import VLLM
from errscan.render import write_site
from errscan.scan import ScanOptions, scan as run_scan
from errscan.scope import Scope
from errscan.sources import open_source

PROFILE = VLLM


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="errscan")
def cli() -> None:
    """Catalog the errors a Python codebase can raise, pinned to a commit."""


@cli.command()
@click.argument("src", required=False)
@click.option("--commit", metavar="REV", help="Read SRC's git repository at this commit (sha or tag), not the work tree.")
@click.option("--release", metavar="X.Y.Z", help="Fetch this vLLM release with pip and scan it (no SRC).")
@click.option("--repo", default=PROFILE.repo, show_default=True, metavar="OWNER/NAME", help="GitHub repository that links point to.")
@click.option("--include", multiple=True, metavar="GLOB", help=f"Catalogue files matching GLOB (repeatable). [default: {', '.join(PROFILE.default_include)}]")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Leave out files matching GLOB (repeatable).")
@click.option("--out", default="site", show_default=True, type=click.Path(file_okay=False, path_type=Path), help="Folder the site is written to (replaced atomically).")
@click.option("--jobs", "-j", default=0, type=click.IntRange(min=0), help="Processes to use; 0 means one per core.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="Cache folder. [default: $XDG_CACHE_HOME/errscan]")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def scan(src, commit, release, repo, include, exclude, out, jobs, cache_dir, quiet) -> None:
    """Scan SRC (a folder, or a git repo with --commit) or a --release into a site at --out."""
    if "/" not in repo or repo.count("/") != 1:
        raise click.BadParameter("expected OWNER/NAME", param_hint="--repo")
    source = open_source(
        src, profile=PROFILE, commit=commit, release=release, cache_dir=cache_dir or default_cache_dir()
    )
    scope = Scope(tuple(include) or PROFILE.default_include, tuple(exclude))
    catalog = run_scan(source, ScanOptions(repo=repo, scope=scope, jobs=jobs))
    for failure in catalog.summary.parse_failures:
        click.echo(f"{failure.path}:{failure.line}: {failure.reason}", err=True)
    if not catalog.summary.files_catalogued:
        raise ErrscanError(f"no file under {source.description} matches --include {' '.join(scope.include)}")
    write_site(catalog, out)
    if not quiet:
        click.echo(summary_line(catalog, out))


def summary_line(catalog, out: Path) -> str:
    s = catalog.summary
    commit = (catalog.commit or "unknown commit")[:12]
    return (
        f"errscan: {commit}: read {s.files_read} files, catalogued {s.files_catalogued}: "
        f"{s.raises} raises, {s.asserts} asserts with a message, {s.reraises} re-raises, "
        f"{len(s.parse_failures)} parse failures in {s.stage_seconds.get('total', 0):.1f}s -> {out}"
    )


def main() -> None:
    """Entry point: every expected failure is one line on stderr with its exit status."""
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
