"""Handlers of `try` statements in vLLM 0.27.1 (issue 13's audit): the condition names every call
of the `try` that may raise, and leaves out what earlier handlers of the same `try` catch."""

import pytest

pytestmark = pytest.mark.integration

MOONCAKE = "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/"
MORIIO = "vllm/distributed/kv_transfer/kv_connector/v1/moriio/moriio_connector.py"


@pytest.fixture(scope="module")
def raised(catalog_0271):
    def conjunct(path, line):
        (error,) = [e for e in catalog_0271.errors if e.path == path and e.line == line]
        (term,) = [c for c in error.trigger.conjuncts if c.startswith("raises(")]
        return term
    return conjunct


def test_the_store_get_is_among_the_calls_that_fail(raised):
    term = raised(MOONCAKE + "store/worker.py", 1121)  # the `try` at 1067-1110
    assert "self.store.batch_get_into_multi_buffers(" in term and "_sum_batch_bytes(" in term


def test_the_inner_handler_and_finally_are_sources(raised):
    term = raised(MOONCAKE + "mooncake_connector.py", 1191)
    assert "sock.send_multipart(" in term and "self._encoder.encode(" in term
    assert "self.sender_worker_queue.task_done(" in term
    assert "send_kv_to_decode" not in term  # the inner `except Exception` catches it
    assert "other_than=asyncio.CancelledError" in term


def test_the_request_is_named_not_only_the_client(raised):
    term = raised(MOONCAKE + "mooncake_connector.py", 1923)
    assert term.startswith("raises(Exception, httpx.AsyncClient(...), client.get(...), response.raise_for_status(...)")


@pytest.mark.parametrize("line", [1178, 1182])
def test_earlier_handlers_catch_oserror_first(raised, line):
    assert raised(MORIIO, line) == "raises(Exception, sock.send(msgpack.dumps(data)), other_than=OSError)"
