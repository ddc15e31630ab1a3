"""What failed outside, read from the message and the call a handler's `try` guards: only when the
term names one call do its words count (with several, they do not tell which one failed)."""

from errscan.analysis.advice import outside, unsupported_clause
from errscan.extract.conditions import pseudo_term
from errscan.model import Excerpt, ErrorSite
from errscan.profiles.vllm import VLLM


def error(message):
    return ErrorSite(
        id="0" * 16, kind="log", level="warning", exception=None, exception_qualname=None, exception_bases=(),
        message=message, placeholders=(), path="p.py", line=1, end_line=1,
        function="f", comments=(), excerpt=Excerpt(1, ("logger.warning",)), url="",
    )


def test_the_one_guarded_call_tells_what_failed():
    what, _, facet = outside(error("get failed: %s"), (pseudo_term("raises(Exception, open_file(path))"),), VLLM)
    assert facet == "file" and what == "a file operation failed"


def test_several_guarded_calls_do_not_tell_which_failed():
    term = pseudo_term("raises(Exception, _sum_bytes(...), store.batch_get(...), self._add_load_error_ids(...))")
    _, _, facet = outside(error("get failed: %s"), (term,), VLLM)
    assert facet == ""


def test_closing_a_socket_of_its_own_is_no_failure_of_the_peer():
    term = pseudo_term("raises(Exception, sock.close(linger=0))")
    what, check, facet = outside(error("Error closing ZMQ socket for path %s: %s"), (term,), VLLM)
    assert facet == "release" and "this process" in what and "other instance" not in check


def test_the_unsupported_clause_quoted_keeps_a_placeholder_with_brackets_whole():
    # moriio_layout.py:257: the brackets of `{tuple(shape)}` cut the quote at "{tuple"
    assert unsupported_clause("Unsupported MoRIIO {cache_kind} cache shape for layer {layer_name}: {tuple(shape)}") == \
        "“Unsupported MoRIIO … cache shape for layer …: …”"
    assert unsupported_clause("Unsupported new_block_ids type {type(new_block_ids)}: should be a list (or tuple)") == \
        "“Unsupported new_block_ids type …: should be a list”"


def test_a_server_answering_with_an_http_error_logs_nothing_the_client_gets_it():
    import msgspec

    answered = msgspec.structs.replace(error("Key existence check failed: {str(e)}"), kind="raise", level=None,
                                       exception="HTTPException")
    term = pseudo_term("raises(Exception, self.state.batch_key_exists(keys), self._json_response(...))")
    what, check, _ = outside(answered, (term,), VLLM)  # hf3fs_metadata_server.py:356
    assert "answers with an HTTP error" in what and "logged with it" not in check and "goes back to the client" in check
    assert outside(error("Key existence check failed: {e}"), (term,), VLLM)[1].startswith("Look at the error logged")
