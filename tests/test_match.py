import re

import pytest

from errscan.match import bind, compile_template, split_template

CASES = [
    ("among {len(groups)} groups", "among 3 groups", {"len(groups)": "3"}),
    ("does not support: {unsupported}", "does not support: group 1: X; PCP/DCP > 1", {"unsupported": "group 1: X; PCP/DCP > 1"}),
    ("literal {{braces}} (and) [regex] $chars.", "literal {braces} (and) [regex] $chars.", {}),
    ("wrapped  text", "wrapped\n   text", {}),
    ("x={x!r}", "x='a'", {"x!r": "'a'"}),
]


@pytest.mark.parametrize("template, message, bindings", CASES)
def test_concrete_messages_bind(template, message, bindings):
    assert bind(compile_template(template), message) == bindings


def test_literal_parts_must_match():
    assert bind(compile_template("among {n} groups"), "among 3 clusters") is None


def test_nested_braces_in_a_field():
    assert [p.text for p in split_template("a {d['k']} {x:{w}} b") if p.is_field] == ["d['k']", "x:{w}"]


def test_pattern_is_portable_to_javascript():
    pattern = compile_template("a.b (c) {x} / d").pattern
    assert "(?P" not in pattern and "(?<" not in pattern
    assert re.match(pattern, "a.b (c) 42 / d")


# The keys (anchor, head, lead) only skip regexes that could not match: score_message gives what
# running both patterns on every message gives (with `{a} {a}`, values printed twice are counted twice).
TRICKY = [
    "among {len(groups)} groups", "{n}/{m} transfers failed", "{name} is not supported by {backend}",
    "x {a} y {a} z and then some more", " {x} foo bar baz qux", "{a}{b} text after two fields",
    "literal {{braces}} (and) [regex] $chars.", "wrapped  text\n  over lines {v}", "{msg}", "{a} != {b}",
    "no placeholder at all in this one", "short {x}", "{x}: {y} ends here", "{a} {a} first literal run here", "KV cache of {n} blocks is too small for {m}",
]
VALUES = ["", "3", "a b", "foo bar baz qux quux", "{", "must be", "groups", "x\ny"]


def _unfiltered(compiled, message):
    """score_message without the keys: both patterns tried on every message."""
    from errscan.match import MessageMatch, PIN_MIN_CHARS, TRUNCATED_PIN_SCORE, _chars, fuzzy_match, words

    message = message.strip()
    literal = compiled.literal_chars
    found = re.match(compiled.pattern, message)
    if found is not None:
        bound = sum(_chars(v) for v in found.groups())
        bindings = {f: v.strip() for f, v in zip(compiled.fields, found.groups())}
        return MessageMatch("exact", round(literal / (literal + bound) if literal + bound else 0.0, 4), bindings, literal >= PIN_MIN_CHARS, literal)
    cut = re.match(compiled.prefix_pattern, message) if message else None
    seen = _chars(message) - sum(_chars(v) for v in cut.groups()) if cut else 0
    if cut is not None and seen >= PIN_MIN_CHARS and literal:
        score = round(seen / _chars(message) * min(1.0, seen / literal), 4)
        values = {f: v.strip() for f, v in zip(compiled.fields, cut.groups()) if v.strip()}
        return MessageMatch("truncated", score, values, score >= TRUNCATED_PIN_SCORE, seen)
    found = words(message)
    return fuzzy_match(len(set(compiled.words) & set(found)), len(compiled.words), len(found))


def _messages():
    for number, template in enumerate(TRICKY):
        for k in range(len(VALUES)):
            pieces = split_template(template)
            instance = "".join(VALUES[(k + i) % len(VALUES)] if p.is_field else p.text.replace("  ", " \n ") for i, p in enumerate(pieces))
            yield instance
            yield from (instance[:end] for end in range(1, len(instance)))
        yield TRICKY[(number + 1) % len(TRICKY)]


def test_the_keys_skip_only_patterns_that_cannot_match():
    from errscan.match import score_message

    messages = sorted(set(_messages()))
    assert len(messages) > 1000
    for template in TRICKY:
        compiled = compile_template(template)
        for message in messages:
            assert score_message(compiled, message) == _unfiltered(compiled, message), (template, message)


def test_the_cut_pattern_matches_every_beginning_of_an_instance():
    for template in (t for t in TRICKY if t == t.strip()):  # a template's outer whitespace must be printed
        compiled = compile_template(template)
        instance = "".join("v 1" if p.is_field else p.text for p in split_template(template))
        assert re.match(compiled.pattern, instance), template
        for end in range(len(instance) + 1):
            assert re.match(compiled.prefix_pattern, instance[:end].strip()), (template, end)
        if compiled.head:  # a message that does not begin like the template is no cut instance of it
            assert not re.match(compiled.prefix_pattern, "#" + instance)
