"""The site's HTML pages: the Jinja environment, the lists, and each error's page, written by
several processes; beside each page, the error's JSON document."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Any, Callable

import jinja2
import markupsafe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from errscan.analysis.plain import plain_words
from errscan.api.documents import error_document, pin_of
from errscan.api.layout import error_document_path, page_path, slug
from errscan.api.write import dump_json
from errscan.compare.changes import knob_changes
from errscan.errors import ErrscanError
from errscan.match import split_template
from errscan.model import Catalog, ErrorSite
from errscan.render import browse, checks
from errscan.render.surfacing import seen
from errscan.render.terse import terse
from errscan.compare.pages import write_history_files
from errscan.stages import github_url
from errscan.runtime.pool import TaskLost, run_all

INDEX_PAGE_ROWS = 100  # errors listed on index.html before the filters' own paging takes over


def templates_dir() -> Path:
    """`templates/` ships inside the wheel as errscan/templates; in a checkout it sits beside it."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "templates"


@cache
def environment() -> jinja2.Environment:
    """One per process: it keeps the templates it compiled, and forked page writers inherit them."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["slug"] = slug
    env.filters["inline_code"] = inline_code
    env.filters["knob_changes"] = knob_changes
    env.filters["template_pieces"] = split_template  # literal braces shown single, placeholders marked
    env.filters["short_name"] = short_name
    env.filters["basename"] = lambda path: path.rsplit("/", 1)[-1]
    return env


def inline_code(text: str) -> markupsafe.Markup:
    """Escape `text`, then show its `backquoted` parts as <code>: the form explain.py writes words in."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backquote: show it as it is
        return markupsafe.escape(text)
    return markupsafe.Markup("").join(
        markupsafe.Markup("<code>{}</code>").format(part) if i % 2 else markupsafe.escape(part)
        for i, part in enumerate(parts)
    )


EXCERPT_BEFORE, EXCERPT_AFTER = 6, 3  # lines the page shows around the statement; the JSON keeps more


def highlighted_excerpt(error: ErrorSite) -> markupsafe.Markup:
    """The statement and a few lines around it as Pygments HTML with line numbers; its lines marked."""
    excerpt = error.excerpt
    start = max(excerpt.start_line, error.line - EXCERPT_BEFORE)
    lines = excerpt.lines[start - excerpt.start_line : error.end_line + EXCERPT_AFTER - excerpt.start_line + 1]
    marked = [n - start + 1 for n in range(error.line, error.end_line + 1)]
    formatter = copy.copy(_formatter())  # its stylesheet is made once, not for every page
    formatter.linenostart, formatter.hl_lines = start, set(marked)
    return markupsafe.Markup(highlight("\n".join(lines) + "\n", _LEXER, formatter))


_LEXER = PythonLexer(stripnl=False)


@cache
def _formatter() -> HtmlFormatter:
    return HtmlFormatter(linenos="inline", cssclass="source", wrapcode=True)


def write(path: Path, text: str) -> None:
    """Write one file of the site, making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_pages(
    catalog: Catalog, root: Path, jobs: int, site_url: str | None = None,
    on_written: Callable[[int, int], None] | None = None,
) -> None:
    """Every page under `root`, and each error's JSON document beside its page. With `site_url`
    (where the site is published), a page that is no redirect names its canonical address (`here`).
    `on_written(done, total)` is told how many error pages are written, as they are."""
    env = environment()
    common = {"catalog": catalog, "short_commit": (catalog.commit or "")[:10], "site_url": site_url}
    _write_error_pages(catalog, root, jobs, site_url, on_written)
    by_axis = {axis: browse.groups(catalog, axis) for axis in ("subsystem", "connector", "file")}
    group_page = env.get_template("group.html")
    for group in by_axis["subsystem"] + by_axis["connector"] + by_axis["file"]:
        for number in range(1, group.pages + 1):
            page = group_page.render(root="../", here=f"browse/{group.page_name(number)}", group=group, number=number, **common)
            write(root / "browse" / group.page_name(number), page)
    first = sorted(catalog.errors, key=lambda e: (e.path, e.line, e.id))[:INDEX_PAGE_ROWS]
    index = env.get_template("index.html").render(
        root="", here="", groups=by_axis, facets=browse.facet_counts(catalog), first_rows=first, **common
    )
    write(root / "index.html", index)
    write(root / "browse" / "index.html", env.get_template("browse.html").render(root="../", here="browse/", groups=by_axis, **common))
    write_history_files(catalog, root, env, common, write)
    write(root / "search" / "index.html", env.get_template("search.html").render(root="../", here="search/", **common))


# What forked page writers read: set just before they start, so that it reaches them by fork
# instead of being pickled to each.
_PAGES: tuple[Catalog, Path, str | None] | None = None
_PAGES_PER_TASK = 200
PAGE_TIME_LIMIT = 600.0  # seconds for one task of pages: only a stuck writer comes near it


def _write_error_pages(
    catalog: Catalog, root: Path, jobs: int, site_url: str | None, on_written: Callable[[int, int], None] | None
) -> None:
    global _PAGES
    count = len(catalog.errors) + len(catalog.retired)
    chunks = [range(i, min(i + _PAGES_PER_TASK, count)) for i in range(0, count, _PAGES_PER_TASK)]
    written = [0]

    def chunk_done(position: int) -> None:
        written[0] += len(chunks[position])
        if on_written is not None:
            on_written(written[0], count)

    _PAGES = (catalog, root, site_url)
    environment().get_template("error.html")  # compiled once, before the writers fork
    try:
        if jobs == 1 or len(chunks) < 2:
            results = []
            for position, chunk in enumerate(chunks):
                results.append(_write_error_chunk(chunk))
                chunk_done(position)
        else:
            results = run_all(_write_error_chunk, chunks, jobs, PAGE_TIME_LIMIT, chunk_done)
    finally:
        _PAGES = None
    lost = [r for r in results if isinstance(r, TaskLost)]
    if lost:
        raise ErrscanError(f"writing error pages failed: {lost[0].reason}")


def _write_error_chunk(chunk: range) -> int:
    """The JSON record and page of each error in `chunk` (positions in errors + retired)."""
    catalog, root, site_url = _PAGES
    errors = catalog.errors + catalog.retired
    by_id = catalog.by_id()
    common = {"catalog": catalog, "short_commit": (catalog.commit or "")[:10], "site_url": site_url}
    error_page = environment().get_template("error.html")
    raising = raises_by_function(errors)
    for position in chunk:
        error = errors[position]
        write(root / error_document_path(error.id), dump_json(error_document(catalog, error), compact=True))  # thousands: one line each
        related = ranked_related(error, [(by_id[r.id], r.reason) for r in (error.trigger.related if error.trigger else ()) if r.id in by_id])
        later = next((e for e in raising.get((error.path, error.function), ()) if e.line > error.line), None) if error.kind == "log" else None
        page = error_page.render(root="../../", here=f"errors/{error.id}/", **common, **error_context(catalog, error, related, later))
        write(root / page_path(error.id), page)
    return len(chunk)


def raises_by_function(errors: list[ErrorSite]) -> dict[tuple[str, str], list[ErrorSite]]:
    """The raises and asserts of each function, in line order: what may follow a log line there."""
    found: dict[tuple[str, str], list[ErrorSite]] = {}
    for error in sorted(errors, key=lambda e: e.line):
        if error.kind != "log":
            found.setdefault((error.path, error.function), []).append(error)
    return found


def error_context(catalog: Catalog, error: ErrorSite, related: list, raised_later: ErrorSite | None = None) -> dict[str, Any]:
    """What error.html shows beyond the record itself: words, highlighted source, checks, links.
    `raised_later`: for a log line, a raise further down its function (the program may not go on)."""
    firing = checks.firing_condition(error)
    trigger = error.trigger
    pin = pin_of(catalog, error)
    contributions = [(c, plain_words(c.condition)) for c in trigger.contributions] if trigger else []
    return {
        "error": error,
        "pin": pin,
        "firing": firing,
        "excerpt_html": highlighted_excerpt(error),
        # the code once, for developers, only where the words do not already show it
        "condition_code": firing.code if firing and firing.code not in firing.words.replace("`", "") else None,
        "contributions": contributions,
        # the parts' conditions say it once each; the whole, their `any of`, would say it again
        "words_in_parts": bool(contributions) and firing is not None and all(w in firing.words for _, w in contributions),
        "chains": shown_chains(catalog, pin, trigger.chains if trigger else (), trigger.knobs if trigger else ()),
        "chains_shown": CHAINS_SHOWN,
        "docstring": (error.docstring or "").split("\n\n")[0].rstrip(),
        "raised_later": raised_later,
        "related": related,
        "seen": seen(error),
        "settings": user_settings(trigger.knobs) if trigger else [],
        "reached_with": reached_with(trigger.knobs) if trigger else [],
        "http_status": _status(trigger.http_status) if trigger and trigger.http_status else None,
        "kind_labels": KIND_LABELS,
    }


KIND_LABELS = {
    "configuration": "decided by settings", "environment": "environment", "usage": "bad request or input",
    "internal": "internal check", "unreachable": "cannot fire",
}
RELATED_SHOWN = 3
CHAINS_SHOWN = 4


@dataclass(frozen=True)
class ShownChain:
    """A chain as the page prints it: only the steps no earlier chain printed (`joins`: the number of
    the chain it continues as, from `join_at`), and of its condition only what an earlier chain's
    (`same_condition`, which ends it) does not say."""

    chain: Any
    condition: str
    steps: list
    same_condition: int | None
    joins: int | None
    join_at: str | None
    shortened: bool = False  # `condition` keeps only some terms (terse.py); the JSON has it all


def shown_chains(catalog: Catalog, pin, chains, knobs=()) -> list[ShownChain]:
    shown: list[ShownChain] = []
    for chain in chains:
        keys = [(s.callee, s.path, s.line) for s in chain.steps]
        cut, joins = len(keys), None
        for number, earlier in enumerate(chains[: len(shown)], 1):
            theirs = [(s.callee, s.path, s.line) for s in earlier.steps]
            shared = next((k for k in range(len(keys)) if _ends_with(theirs, keys[k:])), len(keys))
            if shared < cut:
                cut, joins = shared, number
        own, same = chain.condition, None
        for number, earlier in enumerate(chains[: len(shown)], 1):
            if own and earlier.condition and own.endswith(earlier.condition) and (same is None or len(earlier.condition) > len(chains[same - 1].condition)):
                same = number
        if same is not None:
            own = own[: -len(chains[same - 1].condition)].removesuffix(" and ") if own != chains[same - 1].condition else ""
        steps = [(s, github_url(catalog.repo, pin.commit, s.path, s.line)) for s in chain.steps[:cut]]
        own, shortened = terse(own, knobs) if own else (own, False)
        if own and same is None:  # shortened alike: said once, as for an earlier chain
            same = next((number for number, earlier in enumerate(shown, 1) if earlier.condition == own), None)
            own = "" if same is not None else own
        shown.append(ShownChain(chain, own, steps, same, joins, chain.steps[cut].callee if joins else None, shortened))
    return shown


def _ends_with(steps: list, tail: list) -> bool:
    return len(tail) <= len(steps) and steps[len(steps) - len(tail):] == tail


def ranked_related(error: ErrorSite, related: list[tuple[ErrorSite, str]]) -> list[tuple[ErrorSite, str]]:
    """Those a reader of this page most likely meets too first: the same connector, the same phase;
    one of several errors with the same exception and message."""
    connectors = set(error.connectors)
    when = error.explanation.when if error.explanation else None

    def rank(item: tuple[ErrorSite, str]) -> tuple[bool, bool]:
        other = item[0]
        same_phase = when is not None and other.explanation is not None and other.explanation.when == when
        return (not connectors & set(other.connectors), not same_phase)

    seen: set[tuple[str, str]] = set()
    kept = []
    for other, reason in related:
        if (other.exception, other.message) not in seen:
            seen.add((other.exception, other.message))
            kept.append((other, reason))
    return sorted(kept, key=rank)[:RELATED_SHOWN]


def user_settings(knobs) -> list[str]:
    """The settings as users know them: a config field only where no flag of its own sets it."""
    flagged = {k.detail[len("sets "):] for k in knobs if k.kind == "cli_flag" and k.detail.startswith("sets ")}
    return list(dict.fromkeys(
        f"{k.name} (request body)" if k.kind == "request_field" else k.name for k in knobs
        if k.kind not in _PICKED and not (k.kind == "config_field" and k.name in flagged)
    ))


_PICKED = frozenset({"connector", "plugin", "route"})  # knobs that name what a user picks: see `reached_with`
PICKS_SHOWN = 6


def reached_with(knobs) -> list[tuple[str, list[str], int]]:
    """(setting, the values shown, how many more) for the plugins and routes that reach the error:
    `architectures` = `LlamaForCausalLM`, ...; routes under "route"."""
    picked: dict[str, list[str]] = {}
    for knob in knobs:
        if knob.kind in ("plugin", "route"):
            picked.setdefault(knob.detail if knob.kind == "plugin" else "route", []).append(knob.name)
    return [(setting, names[:PICKS_SHOWN], len(names) - PICKS_SHOWN) for setting, names in picked.items()]


def _status(code: int) -> str:
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)


def short_name(qualname: str) -> str:
    """`pkg.module.Class.method` as `Class.method`, `pkg.module.function` as `function`."""
    parts = qualname.split(".")
    if len(parts) >= 2 and parts[-2][:1].isupper():
        return ".".join(parts[-2:])
    return parts[-1]
