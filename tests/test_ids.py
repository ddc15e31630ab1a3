from errscan.ids import normalize
from errscan.ids import error_id


def test_id_shape_and_line_independence():
    first = error_id("o/r", "a.py", "f", "ValueError", "bad {x}", 0)
    assert len(first) == 16 and all(c in "0123456789abcdef" for c in first)
    assert error_id("o/r", "a.py", "f", "ValueError", "bad  {y}", 0) == first
    assert error_id("o/r", "a.py", "f", "mod.ValueError", "bad {x}", 0) == first


def test_id_changes_with_what_identifies_an_error():
    base = ("o/r", "a.py", "f", "ValueError", "bad {x}", 0)
    ids = {error_id(*base)}
    for i, other in enumerate(["o/s", "b.py", "g", "KeyError", "worse {x}", 1]):
        changed = list(base)
        changed[i] = other
        ids.add(error_id(*changed))
    assert len(ids) == 7


def test_normalize_keeps_literal_braces():
    assert normalize("a  {{x}} {len(y)}\n b") == "a {{x}} {} b"
