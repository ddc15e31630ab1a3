"""Fuzzing (#17): log text, message templates and source snippets from hypothesis. Whatever the
input: no exception, no hang, and each input within the profile's deadline (see conftest.py: the
`ci` profile by default, HYPOTHESIS_PROFILE=long for a run of 20,000 examples per target)."""

from __future__ import annotations

import ast
import re

from hypothesis import given, strategies as st

from conftest import FIXTURES, reraises
from errscan.extract import extract_file
from errscan.lookup.logs import MAX_MESSAGE_CHARS, find_errors
from errscan.lookup.rank import CatalogMatcher
from errscan.match import bind, compile_template, find_instance, score_message, split_template
from errscan.profiles.vllm import VLLM
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources import SourceFile, blob_digest
from errscan.sources.folder import FolderSource

# ---- log text -------------------------------------------------------------------------------

LOG_PIECES = [
    "Traceback (most recent call last):", '  File "/x/vllm/a.py", line 12, in f', "    raise ValueError(x)",
    "ValueError: ", "KeyError: 'k'", "vllm.x.HandshakeError: ", "The above exception was the direct cause of the following exception:",
    "(EngineCore_DP0 pid=12) ", "[rank0]: ", "ERROR 08-14 12:00:01 [core.py:123] ", "WARNING 01-01 00:00:00 [a.py:7] ",
    "2024-01-01T00:00:00Z ", "\x1b[31m", "\x1b]0;title\x07", "# ", "> ", "RuntimeError('quoted message')", "`KeyError: x`",
    "a.a.a.", "{", "}", "'", '"', "\\", "(", ")", "...", "[truncated]", "…", " ", "\t", "\r", "\x00", "\u202e",
]
log_text = st.lists(
    st.one_of(st.sampled_from(LOG_PIECES), st.text(max_size=12), st.just("\n")), max_size=60
).map("".join)


def _catalog():
    return scan(FolderSource(FIXTURES / "patterns", VLLM), ScanOptions(VLLM.repo, Scope(("**",)), jobs=1))


MATCHER = CatalogMatcher.of_catalog(_catalog())


@given(log_text)
def test_any_log_text_is_parsed_and_looked_up(text):
    for logged in find_errors(text):
        assert all(len(reading) <= MAX_MESSAGE_CHARS for reading in logged.readings())
        finding = MATCHER.find(logged)
        assert all(0.0 <= candidate.score <= 1.0 for candidate in finding.candidates)


# ---- templates ------------------------------------------------------------------------------

TEMPLATE_PIECES = ["{x}", "{y!r}", "{len(z)}", "{a:>3}", "{{", "}}", " ", "  ", "\n", "\t", "and", "a", "b", ":", "'", "(", ".", "$", "\\"]
template_text = st.lists(st.sampled_from(TEMPLATE_PIECES), max_size=10).map("".join)
message_text = st.lists(st.sampled_from(["a", "b", "and", " ", "  ", "\n", ":", "'", "(", ".", "$", "\\", "{", "}"]), max_size=14).map("".join)


def _bound_chars(values) -> str:
    return "".join("".join(value.split()) for value in values)


@given(template_text, message_text)
def test_a_template_matches_as_its_regular_expressions_do(template, message):
    """The part-by-part matcher says what the backtracking patterns say (which, on inputs this
    small, finish): same match or none, the same characters bound, the same prefix values."""
    compiled = compile_template(template)
    anchored = re.match(compiled.pattern, message)
    values = bind(compiled, message)
    assert (anchored is None) == (values is None)
    if anchored is not None:
        assert _bound_chars(anchored.groups()) == _bound_chars(values.values()) or len(set(compiled.fields)) < len(compiled.fields)
    stripped = message.strip()
    cut = re.match(compiled.prefix_pattern, stripped) if stripped else None
    scored = score_message(compiled, stripped)
    if anchored is None and cut is not None and scored is not None and scored.rule == "truncated":
        assert scored.bindings == {f: v.strip() for f, v in zip(compiled.fields, cut.groups()) if v.strip()}
    inner = compiled.pattern.removeprefix("^\\s*").removesuffix("\\s*$")
    searched = re.search(inner, message)
    found = find_instance(compiled, message)
    assert (searched is None) == (found is None)
    if found is not None:
        assert re.fullmatch(inner, found) and message.find(found) <= searched.start()


@given(template_text, st.lists(st.text(max_size=30), max_size=6))
def test_a_message_made_from_a_template_is_an_instance_of_it(template, fills):
    pieces = split_template(template)
    values = iter(fills)
    message = "".join(next(values, "") if piece.is_field else piece.text for piece in pieces)
    compiled = compile_template(template)
    assert bind(compiled, message) is not None
    # Stripped, a message loses the space a template needs before an empty value at its end.
    filled = len(fills) >= sum(piece.is_field for piece in pieces) and all(fill.strip() for fill in fills)
    if filled and compiled.literal_chars and template == template.strip():
        assert score_message(compiled, message.strip()).rule == "exact"


# ---- source snippets ------------------------------------------------------------------------

NAMES = st.sampled_from(["x", "y", "config", "self.value", "err", "_error"])
MESSAGES = st.sampled_from(["'plain'", "f'x is {x}'", "f'{x!r} and {y:>3}'", "'a %s' % x", "'{}'.format(x)", "'a' 'b'", "", "msg"])
EXCEPTIONS = st.sampled_from(["ValueError", "RuntimeError", "KeyError", "errors.Custom", "err", "self._error"])


def _statement(depth: int) -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        st.builds(lambda e, m: [f"raise {e}({m})"], EXCEPTIONS, MESSAGES),
        st.builds(lambda e: [f"raise {e}"], EXCEPTIONS),
        st.just(["raise"]),
        st.builds(lambda n, m: [f"assert {n}, {m}" if m else f"assert {n}"], NAMES, MESSAGES),
        st.builds(lambda m: [f"logger.error({m or repr('e')})"], MESSAGES),
        st.builds(lambda n: [f"y = {n}"], NAMES),
        st.just(["pass"]),
    )
    if depth == 0:
        return simple
    body = st.lists(_statement(depth - 1), min_size=1, max_size=3).map(lambda blocks: [line for b in blocks for line in b])
    indented = body.map(lambda lines: ["    " + line for line in lines])
    return st.one_of(
        simple,
        st.builds(lambda n, b: [f"if {n}:"] + b, NAMES, indented),
        st.builds(lambda b, h: ["try:"] + b + ["except ValueError as err:"] + h, indented, indented),
        st.builds(lambda b: ["def f(x, y=None):"] + b, indented),
        st.builds(lambda b: ["class C:", "    def m(self, x):"] + ["    " + line for line in b], indented),
        st.builds(lambda b: ["for x in y:"] + b, indented),
        st.builds(lambda b: ["with open(x) as y:"] + b, indented),
    )


source_text = st.lists(_statement(3), min_size=1, max_size=5).map(
    lambda blocks: "import logging\nlogger = logging.getLogger(__name__)\n" + "\n".join(line for b in blocks for line in b) + "\n"
)


@given(source_text)
def test_extraction_finds_every_raise_and_assert_that_ast_finds(text):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return  # `raise` outside an except block is still valid syntax; other shapes are not made
    data = text.encode()
    result = extract_file(SourceFile("pkg/fuzz.py", data, blob_digest(data)), catalogued=True)
    assert result.failure is None
    raises = sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Raise) and not reraises(n))
    asserts = sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert) and n.msg is not None)
    assert sorted(s.line for s in result.sites if s.kind == "raise") == raises
    assert sorted(s.line for s in result.sites if s.kind == "assert") == asserts
    assert result.reraises == sum(1 for n in ast.walk(tree) if isinstance(n, ast.Raise) and reraises(n))
