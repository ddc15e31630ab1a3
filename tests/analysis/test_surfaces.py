"""What reaches the user of an error (errscan/analysis/surfaces.py), on tests/fixtures/surfaces."""

import pytest


@pytest.fixture(scope="module")
def by_place(surfaces_catalog):
    return {(e.path.rsplit("/", 1)[1], e.line): e for e in surfaces_catalog.errors}


def finals(error):
    return [s for s in error.surfaces_as if s.final]


def test_an_assert_caught_by_except_exception_surfaces_as_the_wrapper(by_place):
    error = by_place[("rewrapped.py", 11)]
    (seen,) = finals(error)
    assert (seen.how, seen.exception, seen.message, seen.line) == ("reraised", "EngineError", "Failed to register local memory: {e}", 13)
    assert seen.caught == "except Exception as e" and seen.id == by_place[("rewrapped.py", 13)].id
    # On the way out the caller logs the wrapper and raises it again: a step, not the end.
    (step,) = [s for s in error.surfaces_as if not s.final]
    assert (step.how, step.level, step.message, step.line) == ("logged", "error", "Registration failed for {tensor}", 28)


def test_an_unrelated_handler_does_not_catch(by_place):
    (seen,) = by_place[("unrelated.py", 7)].surfaces_as
    assert (seen.how, seen.exception) == ("raised", "QuotaError")


def test_a_handler_of_a_tuple_of_classes_logs_a_builtin_subclass(by_place):
    (seen,) = by_place[("logged.py", 8)].surfaces_as
    assert (seen.how, seen.level, seen.message, seen.caught) == ("logged", "warning", "Check failed: {e}", "except (ValueError, TypeError) as e")


def test_a_handler_that_answers_with_an_error_response(by_place):
    (seen,) = by_place[("response.py", 13)].surfaces_as
    assert (seen.how, seen.response, seen.level, seen.log_message, seen.line) == (
        "response", "ErrorReply", "error", "Error processing request: {e}", 27)


def test_a_handler_that_raises_an_http_status(by_place):
    (seen,) = by_place[("http_status.py", 10)].surfaces_as
    assert (seen.how, seen.status, seen.exception, seen.message) == ("http", 500, "HTTPException", "Allocation failed: {str(e)}")


def test_an_executor_future_surfaces_where_its_result_is_read(by_place):
    error = by_place[("future_callback.py", 14)]
    by_how = {s.how: s for s in error.surfaces_as}
    assert set(by_how) == {"logged", "swallowed"}
    logged = by_how["logged"]
    assert (logged.function, logged.level, logged.message) == ("Worker.start.<locals>.done_callback", "exception", "Handshake with {host} failed")
    assert by_how["swallowed"].function == "Worker.start_eager"
    # Each holds on its own chain.
    assert len(logged.chains) == 1 and logged.chains != by_how["swallowed"].chains


def test_a_conditional_exit_in_a_handler_does_not_hide_the_raise_after_it(by_place):
    (seen,) = by_place[("retried.py", 7)].surfaces_as
    assert (seen.how, seen.exception, seen.message) == ("reraised", "RuntimeError", "gave up after {tries} tries: {e}")
