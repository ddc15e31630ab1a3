"""A pasted wrapper message, a handler's log line, or a chained traceback leads to the origin raise
(errscan/lookup/wrapped.py), on tests/fixtures/surfaces."""

from errscan.lookup import lookup
from errscan.lookup.wrapped import compose


def origin(catalog, name, line):
    return next(e for e in catalog.errors if e.path.endswith(name) and e.line == line)


def best(text, catalog):
    (finding,) = lookup(text, catalog)
    return finding.candidates[0]


def test_a_wrapper_message_leads_to_the_origin_with_the_wrapper_named(surfaces_catalog):
    found = best("app.errors.EngineError: Failed to register local memory: register returned None", surfaces_catalog)
    assert found.error["id"] == origin(surfaces_catalog, "rewrapped.py", 11).id and found.confident
    assert (found.through["how"], found.through["exception"], found.through["line"]) == ("reraised", "EngineError", 13)


def test_a_wrapper_message_around_another_error_does_not_lead_to_this_origin(surfaces_catalog):
    found = best("EngineError: Failed to register local memory: disk full", surfaces_catalog)
    assert found.error["id"] == origin(surfaces_catalog, "rewrapped.py", 13).id and found.through is None


def test_the_log_line_a_handler_writes_leads_to_the_origin(surfaces_catalog):
    found = best("ERROR 11-02 10:01:02 [response.py:26] Error processing request: 6 is not divisible by 4", surfaces_catalog)
    assert found.error["id"] == origin(surfaces_catalog, "response.py", 13).id
    assert found.through["how"] == "response" and found.through["log_line"] == 26


def test_an_http_error_leads_to_the_origin(surfaces_catalog):
    found = best("HTTPException: Allocation failed: Rank -3 not initialized", surfaces_catalog)
    assert found.error["id"] == origin(surfaces_catalog, "http_status.py", 10).id and found.through["status"] == 500


def test_each_part_of_a_chained_traceback_leads_to_the_origin(surfaces_catalog):
    text = "\n".join([
        "Traceback (most recent call last):",
        '  File "/srv/app/rewrapped.py", line 11, in register',
        "AssertionError: register returned None",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/srv/app/rewrapped.py", line 26, in outer',
        '  File "/srv/app/rewrapped.py", line 13, in register',
        "app.errors.EngineError: Failed to register local memory: register returned None",
    ])
    findings = lookup(text, surfaces_catalog)
    expected = origin(surfaces_catalog, "rewrapped.py", 11).id
    assert [f.candidates[0].error["id"] for f in findings] == [expected, expected]
    assert [f.candidates[0].through is None for f in findings] == [True, False]


def test_compose_puts_the_origin_where_the_caught_exception_is_printed():
    assert compose("Failed: {e}", "e", "size {n} too big") == "Failed: size {n} too big"
    assert compose("Failed {{x}}: {str(err)}", "err", "boom") == "Failed {{x}}: boom"
    assert compose("Failed: {other}", "e", "boom") is None
    assert compose("Failed: {e}", None, "boom") is None


def test_the_record_logged_before_a_re_raise_and_the_wrapper_both_lead_to_the_origin(surfaces_catalog):
    expected = origin(surfaces_catalog, "logged_then_wrapped.py", 10)
    found = best("ERROR 11-02 10:01:02 [logged_then_wrapped.py:17] Bad frame: empty frame from peer b''", surfaces_catalog)
    assert found.error["id"] == expected.id and (found.through["how"], found.through["log_line"]) == ("reraised", 17)
    found = best("app.errors.PeerError: listener stopped: empty frame from peer b''", surfaces_catalog)
    assert found.error["id"] == expected.id and found.through["exception"] == "PeerError"
