"""What reaches the user of vLLM 0.27.1's errors that never show themselves (#15), each checked
against the source: the handler's line and what it does were read in the release's files."""

from __future__ import annotations

import pytest

from errscan.lookup import lookup
from errscan.render.surfacing import seen

pytestmark = pytest.mark.integration
V1 = "vllm/distributed/kv_transfer/kv_connector/v1"


def site(catalog, path, line):
    return next(e for e in catalog.errors if e.path == f"{V1}/{path}" and e.line == line)


def finals(error):
    return [s for s in error.surfaces_as if s.final]


def test_moriio_register_assert_is_re_raised_as_moriio_error(catalog_0271):
    error = site(catalog_0271, "moriio/moriio_engine.py", 582)
    assert error.exception == "AssertionError"
    (shown,) = finals(error)
    # `except Exception as e:` at 586, `raise MoRIIOError(f"Failed to register local memory: {e}") from e` at 587
    assert (shown.how, shown.exception, shown.caught_line, shown.line) == ("reraised", "MoRIIOError", 586, 587)
    assert shown.message == "Failed to register local memory: {e}"
    assert shown.id == site(catalog_0271, "moriio/moriio_engine.py", 587).id
    words = seen(error)[0].text
    assert words.startswith("You will see `MoRIIOError: Failed to register local memory: register_torch_tensor returned None` in the log, not this AssertionError")


@pytest.mark.parametrize("line", [130])  # :106 cannot fire: utils.py:531 asserts the same first
def test_mooncake_sender_errors_become_an_error_response_to_the_decode_instance(catalog_0271, line):
    error = site(catalog_0271, "mooncake/mooncake_connector.py", line)
    assert error.trigger.chains
    (shown,) = finals(error)
    # `_sender_worker`: `except Exception as e:` at 1178 logs, then builds MooncakeXferResponse(status=ERROR, err_msg=str(e))
    assert (shown.how, shown.response, shown.caught_line, shown.level) == ("response", "MooncakeXferResponse", 1178, "error")
    assert (shown.log_message, shown.log_line) == ("Error processing Mooncake xfer request: {e}", 1179)
    assert "sends an error response (`MooncakeXferResponse`" in seen(error)[0].text


def test_nixl_handshake_errors_are_only_logged_by_the_future_callback(catalog_0271):
    handshake = [e for e in catalog_0271.errors if e.function == "NixlBaseConnectorWorker._nixl_handshake" and e.kind == "raise"]
    assert len(handshake) >= 4
    for error in handshake:
        (shown,) = finals(error)
        # `_ensure_handshake.<locals>.done_callback` reads `f.result()`; its `except Exception as e`
        # calls `self._log_failure(...)`, whose `logger.error("NIXL transfer failure: ...")` writes the record.
        assert (shown.how, shown.function, shown.level) == ("logged", "NixlBaseConnectorWorker._ensure_handshake.<locals>.done_callback", "error")
        assert shown.message.startswith("NIXL transfer failure:")


def test_moriio_handshake_errors_are_only_logged_by_future_callbacks(catalog_0271):
    handshake = [e for e in catalog_0271.errors if e.function == "MoRIIOConnectorWorker._moriio_handshake" and e.kind != "log"]
    assert handshake
    for error in handshake:
        shown = finals(error)
        assert {s.how for s in shown} == {"logged"}
        assert {s.message for s in shown} == {"Handshake with {eid} failed", "Eager MoRIIO handshake failed for {eid}"}
        assert {s.level for s in shown} == {"exception"}


def test_hf3fs_allocation_error_becomes_an_http_500(catalog_0271):
    error = site(catalog_0271, "hf3fs/hf3fs_metadata_server.py", 125)
    (shown,) = finals(error)
    # `batch_allocate_pages_for_keys`: `except Exception as e:` at 314 raises HTTPException(status_code=500, ...)
    assert (shown.how, shown.status, shown.exception, shown.caught_line) == ("http", 500, "HTTPException", 314)
    assert seen(error)[0].text.startswith("A client sees HTTP 500")


def test_an_error_nothing_catches_is_raised_as_itself(catalog_0271):
    raised = [e for e in catalog_0271.errors if e.kind != "log" and [s.how for s in e.surfaces_as] == ["raised"]]
    assert len(raised) > 100
    assert all(seen(e) == [] for e in raised)


def test_a_pasted_moriio_error_leads_to_the_assert(catalog_0271):
    (finding,) = lookup("MoRIIOError: Failed to register local memory: register_torch_tensor returned None", catalog_0271)
    best = finding.candidates[0]
    assert (best.error["path"], best.error["line"], best.confident) == (f"{V1}/moriio/moriio_engine.py", 582, True)
    assert (best.through["exception"], best.through["line"]) == ("MoRIIOError", 587)


def test_the_log_line_of_mooncakes_handler_leads_to_the_assert(catalog_0271):
    text = ("(Worker_TP0 pid=311) ERROR 11-02 10:01:02 [mooncake_connector.py:1179] Error processing Mooncake xfer request: "
            "Mooncake transfer regions require matching metadata lengths, got base_addrs=4, block_lens=4, kv_block_lens=4, "
            "layer_names=3, layer_indices=4.")
    findings = [f for f in lookup(text, catalog_0271) if f.logged.level]
    best = findings[0].candidates[0]
    assert (best.error["path"], best.error["line"]) == (f"{V1}/mooncake/mooncake_connector.py", 130)
    assert best.through["how"] == "response"
