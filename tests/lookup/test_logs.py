"""Log understanding, table-driven: each excerpt is one kind of noise a real log carries."""

from __future__ import annotations

import pytest

from errscan.lookup.logs import Frame, find_errors

TAG = "(EngineCore_DP0 pid=1234) ERROR 08-14 12:00:01 [core.py:123] "
WORKER = "(Worker rank=0) ERROR 08-14 12:00:02 [multiproc_executor.py:527] "
KV = "/usr/lib/python3.12/site-packages/vllm/distributed/kv_transfer/kv_connector/v1"

# name -> (log text, [(exception, a reading the matcher must get, innermost frame or None)])
CASES = {
    "plain traceback": (
        "Traceback (most recent call last):\n"
        f'  File "{KV}/factory.py", line 127, in create_connector\n'
        "    raise ValueError(f\"Unsupported connector type: {name}\")\n"
        "ValueError: Unsupported connector type: FooConnector\n",
        [("ValueError", "Unsupported connector type: FooConnector", Frame(f"{KV}/factory.py", 127, "create_connector"))],
    ),
    "python 3.11 carets": (
        "Traceback (most recent call last):\n"
        f'  File "{KV}/lmcache_mp_connector.py", line 78, in reformat_block_ids\n'
        "    raise RuntimeError(\n"
        "    ^^^^^^^^^^^^^^^^^^^\n"
        "RuntimeError: LMCacheMPConnector only works without hybrid kv cache manager.\n",
        [("RuntimeError", "LMCacheMPConnector only works without hybrid kv cache manager.",
          Frame(f"{KV}/lmcache_mp_connector.py", 78, "reformat_block_ids"))],
    ),
    "chained with direct cause": (
        "Traceback (most recent call last):\n"
        '  File "/x/msgspec_util.py", line 5, in decode\n'
        "msgspec.DecodeError: Input data was truncated\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        f'  File "{KV}/nixl/base_worker.py", line 693, in _nixl_handshake\n'
        "RuntimeError: Failed to decode NixlAgentMetadata. Error: Input data was truncated\n",
        [("msgspec.DecodeError", "Input data was truncated", Frame("/x/msgspec_util.py", 5, "decode")),
         ("RuntimeError", "Failed to decode NixlAgentMetadata. Error: Input data was truncated",
          Frame(f"{KV}/nixl/base_worker.py", 693, "_nixl_handshake"))],
    ),
    "during handling": (
        "Traceback (most recent call last):\n"
        '  File "/x/a.py", line 1, in f\n'
        "KeyError: 'rank'\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/x/b.py", line 2, in g\n'
        "ValueError: Rank 3 not initialized\n",
        [("KeyError", "rank", Frame("/x/a.py", 1, "f")), ("ValueError", "Rank 3 not initialized", Frame("/x/b.py", 2, "g"))],
    ),
    "vllm record prefix and process tag on every line": (
        f"{TAG}EngineCore failed to start.\n"
        f"{TAG}Traceback (most recent call last):\n"
        f'{TAG}  File "{KV}/mooncake/mooncake_connector.py", line 906, in __init__\n'
        f"{TAG}    raise RuntimeError(\"Mooncake is not available\")\n"
        f"{TAG}RuntimeError: Mooncake is not available\n",
        # the ERROR record is a log site's message too (`logger.exception` in vLLM's engine core)
        [("", "EngineCore failed to start.", None),
         ("RuntimeError", "Mooncake is not available", Frame(f"{KV}/mooncake/mooncake_connector.py", 906, "__init__"))],
    ),
    "ansi colours": (
        "\x1b[1;36m(EngineCore_DP0 pid=1234)\x1b[0;0m \x1b[31mERROR\x1b[0m 08-14 12:00:01 [core.py:123] "
        "ValueError: Rank 3 not initialized\n",
        [("ValueError", "Rank 3 not initialized", None)],
    ),
    "colour codes that lost their escape character": (
        "[1;36m(Worker_TP0 pid=99)[0;0m ValueError: Rank 3 not initialized\n",
        [("ValueError", "Rank 3 not initialized", None)],
    ),
    "interleaved processes": (
        f"{WORKER}Traceback (most recent call last):\n"
        "(Worker rank=1) INFO 08-14 12:00:02 [gpu_worker.py:1] loading weights\n"
        f'{WORKER}  File "{KV}/nixl/base_worker.py", line 257, in __init__\n'
        "(Worker rank=1) INFO 08-14 12:00:02 [gpu_worker.py:1] ValueError: a log line, not an error of rank 0\n"
        f"{WORKER}RuntimeError: NIXL is not available\n",
        [("ValueError", "a log line, not an error of rank 0", None),
         ("RuntimeError", "NIXL is not available", Frame(f"{KV}/nixl/base_worker.py", 257, "__init__"))],
    ),
    "message wrapped over lines that repeat the prefix": (
        f"{TAG}ValueError: Could not uniquely identify the extract-hidden-states KV cache group among 3\n"
        f"{TAG}groups; the hidden-states layer must be isolated\n"
        "INFO 08-14 12:00:09 [api_server.py:1] shutting down\n",
        [("ValueError", "Could not uniquely identify the extract-hidden-states KV cache group among 3\n"
          "groups; the hidden-states layer must be isolated", None)],
    ),
    "wrap inside a word": (
        "AssertionError: Local KV cache base addres\nses must not be empty.\n",
        [("AssertionError", "Local KV cache base addresses must not be empty.", None)],
    ),
    "message cut short with an ellipsis": (
        "RuntimeError: Prefix caching with heterogeneous physical_blocks_per_logical is not supp…\n",
        [("RuntimeError", "Prefix caching with heterogeneous physical_blocks_per_logical is not supp", None)],
    ),
    "message cut short with a shipper marker": (
        "2025-08-14T12:00:01.123456Z RuntimeError: Mooncake Transfer Engine initial [truncated]\n",
        [("RuntimeError", "Mooncake Transfer Engine initial", None)],
    ),
    "repr-quoted KeyError message": (
        "KeyError: 'Remote allocation info missing for transfer 12'\n",
        [("KeyError", "Remote allocation info missing for transfer 12", None)],
    ),
    "exception repr inside another message": (
        "RuntimeError: Worker failed with error ValueError('Size cannot be empty.'), see above\n",
        [("RuntimeError", "Size cannot be empty.", None), ("ValueError", "Size cannot be empty.", None)],
    ),
    "quoted message inside a wrapper message": (
        "RuntimeError: Worker failed with error 'Connector metadata not initialized yet', please check the stack trace above\n",
        [("RuntimeError", "Connector metadata not initialized yet", None)],
    ),
    "several errors, repeats by rank folded": (
        "[rank0]: ValueError: TP sizes must be positive\n"
        "[rank1]: ValueError: TP sizes must be positive\n"
        "[rank0]: RuntimeError: Mooncake is not available\n",
        [("ValueError", "TP sizes must be positive", None), ("RuntimeError", "Mooncake is not available", None)],
    ),
    "assertion without message": (
        "Traceback (most recent call last):\n"
        f'  File "{KV}/lmcache_mp_connector.py", line 73, in reformat_block_ids\n'
        "    assert isinstance(block_ids, tuple)\n"
        "AssertionError\n",
        [("AssertionError", "", Frame(f"{KV}/lmcache_mp_connector.py", 73, "reformat_block_ids"))],
    ),
    "bare message without exception name": (
        "Rank 3 not initialized\n",
        [("", "Rank 3 not initialized", None)],
    ),
    "ray worker tag": (
        "(RayWorkerWrapper pid=3453, ip=10.0.0.2) ERROR 08-14 12:00:01 worker_base.py:99] ValueError: TP sizes must be positive\n",
        [("ValueError", "TP sizes must be positive", None)],
    ),
    "log pasted into a script's comments, message wrapped": (
        "#   RuntimeError: NIXL compatibility hash mismatch. Local: dbe0..., Remote: f2f6...\n"
        "#   Prefill and decode instances have incompatible configurations.\n",
        [("RuntimeError", "NIXL compatibility hash mismatch. Local: dbe0..., Remote: f2f6...\n"
          "Prefill and decode instances have incompatible configurations.", None)],
    ),
    "markdown quote": (
        "> ValueError: Connector 'FooConnector' is not registered.\n",
        [("ValueError", "Connector 'FooConnector' is not registered.", None)],
    ),
    "exception named after other words": (
        "attempt 2 (65689710)  ValueError: MooncakeStoreConnector does not support: PCP/DCP > 1\n",
        [("ValueError", "MooncakeStoreConnector does not support: PCP/DCP > 1", None)],
    ),
    "paste that begins inside a traceback's source lines": (
        "(Worker_TP1 pid=9) ERROR 06-22 10:58:00 [multiproc_executor.py:888]     raise ValueError(\n"
        "(Worker_TP1 pid=9) ERROR 06-22 10:58:00 [multiproc_executor.py:888] ValueError: Weight size 192 is not divisible by 128.\n",
        [("ValueError", "Weight size 192 is not divisible by 128.", None)],
    ),
    "config check as pydantic prints it": (
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for CompilationConfig\n"
        "mode\n"
        "  Value error, Invalid compilation mode: X. Valid modes are: NONE [type=value_error, input_value='X', input_type=str]\n"
        "    For further information visit https://errors.pydantic.dev/2.11/v/value_error\n",
        [("pydantic_core._pydantic_core.ValidationError", "Invalid compilation mode: X. Valid modes are: NONE", None)],
    ),
    "exception in inline code within prose": (
        "Both sides then fail with `ValueError: Connector PdConnector does not support HMA` at start-up.\n",
        [("ValueError", "Connector PdConnector does not support HMA", None)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_excerpt(name):
    text, expected = CASES[name]
    found = find_errors(text)
    assert [error.exception for error in found] == [exception for exception, _, _ in expected]
    for error, (_, reading, frame) in zip(found, expected):
        assert reading in error.readings()
        assert (error.frames[-1] if error.frames else None) == frame


def test_a_huge_message_is_read_by_its_beginning_only():
    from errscan.lookup.logs import MAX_MESSAGE_CHARS

    (error,) = find_errors("ValueError: " + "a/b with " * 100_000 + "\n")
    assert max(len(reading) for reading in error.readings()) <= MAX_MESSAGE_CHARS


def test_line_numbers_point_at_the_exception_line():
    (error,) = find_errors(CASES["plain traceback"][0])
    assert error.line == 4


def test_message_stops_at_the_next_record():
    (error,) = find_errors(CASES["message wrapped over lines that repeat the prefix"][0])
    assert len(error.lines) == 2


def test_a_warning_record_is_a_logged_error_with_its_level_and_source():
    from errscan.lookup.logs import RecordSource

    text = (
        "(APIServer pid=1) INFO 11-02 10:01:01 [api_server.py:10] started\n"
        "(EngineCore_DP0 pid=123) WARNING 11-02 10:01:02 [mooncake_connector.py:72] Please install mooncake\n"
        "(EngineCore_DP0 pid=123) WARNING 11-02 10:01:02 [mooncake_connector.py:72] to run it.\n"
    )
    (error,) = find_errors(text)
    assert (error.exception, error.level, error.source) == ("", "warning", RecordSource("mooncake_connector.py", 72))
    assert "Please install mooncake\nto run it." in error.readings()


def test_a_quoted_message_with_an_invalid_escape_warns_nothing():
    """Found by the fuzz test: Python 3.12 prints a SyntaxWarning for `'\\K'` to the terminal."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (error,) = find_errors("ValueError('cannot read \\\\K or \\Kx')")
        readings = error.readings()
    assert caught == []
    assert any("cannot read" in reading for reading in readings)
