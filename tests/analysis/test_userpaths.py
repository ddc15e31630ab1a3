"""Entry points for a program's user paths, declared as data in a profile: tables the program looks
names up in, decorator registries, web routes, command classes and calls of a method by name."""

from __future__ import annotations

from functools import lru_cache

from conftest import FIXTURES
from errscan.profiles import Companions, Decorated, EntryClass, NameCalls, NamedFunctions, Profile, Routes, Table
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

PROFILE = Profile(
    name="app", package="app", distribution="app", repo="o/r", default_include=("app/**",), version_file="",
    tables=(
        Table("app.models.registry._ALL", "model", "architectures", "app.models.", ("forward", "load_weights")),
        Table("app.layers.quant.get_config.table", "quantization", "--quant", interface="QuantConfig"),
        Table("app.backends.BackendEnum", "backend", "--backend", interface="Backend", returned=(("get_impl_cls", "Impl"),)),
        Table("app.registry._MODELS", "model", "architectures"),
    ),
    decorated=(Decorated("app.loaders.LOADERS", "loader", "LOADER"),),
    companions=(Companions("register_processor"),),
    entry_classes=(EntryClass("app.cli.Command", "command", ("cmd",), subclasses=True, name_attribute="name", setting="app"),),
    routes=Routes(("fastapi.APIRouter",), statuses=(("ValueError", 400), ("NotImplementedError", 501)),
                  request_base="BaseRequest"),
    name_calls=(NameCalls("rpc", "Worker"),),
    named_functions=(NamedFunctions("register_op", "op_name", "op_func", "torch.ops.app"),),
)


@lru_cache(maxsize=None)
def errors(fixture: str) -> dict[str, object]:
    source = FolderSource(FIXTURES / fixture, PROFILE)
    catalog = scan(source, ScanOptions(repo="o/r", scope=Scope(("app/**",)), jobs=1, profile=PROFILE))
    return {e.function: e for e in catalog.errors}


def entries(error) -> list[tuple[str, str]]:
    return [(c.entry_kind, c.path[0].rsplit(".", 2)[-2] + "." + c.path[0].rsplit(".", 1)[-1]) for c in error.trigger.chains]


def plugins(error) -> set[tuple[str, str]]:
    return {(k.detail, k.name) for k in error.trigger.knobs if k.kind == "plugin"}


def test_a_model_table_with_includes_makes_construction_weights_and_forward_entries():
    found = errors("registry_lookup")
    assert entries(found["TinyForCausalLM.__init__"]) == [("model", "TinyForCausalLM.__init__")]
    assert entries(found["TinyForCausalLM.load_weights"]) == [("model", "TinyForCausalLM.load_weights")]
    assert plugins(found["TinyForCausalLM.load_weights"]) == {("architectures", "TinyForCausalLM")}
    # `**_TEXT` is followed, and an absolute module path is taken as written
    assert plugins(found["FarModel.load_weights"]) == {("architectures", "FarModel")}


def test_a_torch_module_called_runs_its_forward():
    chain = errors("registry_lookup")["Linear.forward"].trigger.chains[0]
    assert [p.rsplit(".", 2)[-2:] for p in chain.path] == [["TinyForCausalLM", "forward"], ["Linear", "forward"]]
    assert chain.steps[0].line == 14


def test_a_local_table_of_class_names_and_an_enum_of_class_paths():
    found = errors("registry_lookup")
    assert plugins(found["FooConfig.get_quant_method"]) == {("--quant", "foo")}
    assert plugins(found["FastBackend.get_impl"]) == {("--backend", "FAST")}


def test_the_class_a_picked_class_returns_is_used_under_its_name():
    found = errors("registry_lookup")
    assert plugins(found["FastImpl.forward"]) == {("--backend", "FAST")}
    assert found["Impl.forward"].trigger.chains == ()  # the base's own: no backend returns it


def test_a_function_registered_under_a_name_is_called_through_the_namespace():
    found = errors("registry_lookup")
    chain = found["tiny_matmul"].trigger.chains[0]
    assert [p.rsplit(".", 1)[-1] for p in chain.path] == ["forward", "forward", "tiny_matmul"]
    assert chain.steps[-1].line == 29
    assert found["unused_op"].trigger.chains == ()


def test_what_no_table_names_gets_no_chain():
    found = errors("registry_lookup")
    for function in ("UnlistedModel.__init__", "SlowBackend.get_impl", "TinyForCausalLM.helper_nobody_calls"):
        assert found[function].trigger.chains == (), function


def test_decorator_companions_are_reached_under_the_decorated_models_name():
    found = errors("decorator_registry")
    assert plugins(found["ListedProcessor.apply"]) == {("architectures", "Listed")}
    assert entries(found["ListedInfo.get_limits"]) == [("model", "ListedInfo.get_limits")]
    assert found["HiddenProcessor.apply"].trigger.chains == ()


def test_a_decorator_naming_a_class_in_a_registry_the_program_looks_up():
    found = errors("decorator_registry")
    assert plugins(found["OpenCVLoader.load_bytes"]) == {("LOADER", "opencv")}
    assert found["OtherLoader.load_bytes"].trigger.chains == ()


def test_a_route_reaches_the_serving_class_and_names_the_route():
    found = errors("route")
    error = found["Serving.create"]
    assert {c.path[0] for c in error.trigger.chains} == {"app.api_router.create_thing"}
    assert {c.entry_kind for c in error.trigger.chains} == {"route"}
    assert ("route", "POST /v1/things") in {(k.kind, k.name) for k in error.trigger.knobs}
    assert found["orphan"].trigger.chains == ()
    assert found["cached"].trigger.chains == ()
    # the body's validator runs on every request to the route
    assert [(c.entry_kind, c.path[0]) for c in found["ThingRequest.check_stream"].trigger.chains] == [
        ("route", "app.protocol.ThingRequest.check_stream")]
    assert ("route", "POST /v1/things") in {(k.kind, k.name) for k in found["ThingRequest.check_stream"].trigger.knobs}


def test_an_error_a_route_reaches_names_the_http_status_its_class_gets():
    source = FolderSource(FIXTURES / "route", PROFILE)
    catalog = scan(source, ScanOptions(repo="o/r", scope=Scope(("app/**",)), jobs=1, profile=PROFILE))
    statuses = {e.message: e.trigger.http_status for e in catalog.errors}
    assert statuses["max_tokens={request.max_tokens} is too large"] == 400
    assert statuses["streaming is not supported"] == 501
    assert statuses["streaming needs max_tokens"] == 400
    assert statuses["nobody calls this"] is None  # no route reaches it
    fields = {(k.name, k.detail) for e in catalog.errors for k in e.trigger.knobs if k.kind == "request_field"}
    assert fields == {("max_tokens", "ThingRequest"), ("stream", "ThingRequest")}
    kinds = {e.message: e.explanation.kind for e in catalog.errors}
    assert kinds["max_tokens={request.max_tokens} is too large"] == "usage"  # the request is at fault


def test_a_command_class_and_a_method_run_by_name():
    found = errors("route")
    (chain,) = found["Worker.load"].trigger.chains
    assert [p.rsplit(".", 1)[-1] for p in chain.path] == ["cmd", "run", "load"]
    assert chain.entry_kind == "command"
    assert plugins(found["Worker.load"]) == {("app", "serve")}
    assert found["Worker.unused"].trigger.chains == ()



def test_a_model_imported_per_platform_is_each_platform_s_class():
    source = FolderSource(FIXTURES / "platform_switch", PROFILE)
    catalog = scan(source, ScanOptions(repo="o/r", scope=Scope(("app/**",)), jobs=1, profile=PROFILE))
    by_file = {e.path.rsplit("/", 1)[-1]: e for e in catalog.errors}
    assert set(by_file) == {"amd.py", "nvidia.py"}
    for error in by_file.values():
        assert entries(error) == [("model", "SwitchedForCausalLM.__init__")]
        assert plugins(error) == {("architectures", "SwitchedForCausalLM")}


def test_an_engine_class_built_at_start_up_is_not_told_as_each_step():
    """EngineCore.__init__ (an `engine-step` entry class's constructor) runs once, before any step."""
    from errscan.profiles.vllm import VLLM

    assert VLLM.phase("engine-step", "__init__").when.startswith("at engine start-up")
    assert VLLM.phase("engine-step", "step").when == "at each engine step"


def test_engine_methods_called_once_are_not_told_as_each_step():
    """The engine core sets up the KV cache once, aborts requests on demand and shuts down once."""
    from errscan.profiles.vllm import VLLM

    assert VLLM.phase("engine-step", "initialize_from_config").when.startswith("at engine start-up")
    assert VLLM.phase("engine-step", "get_kv_connector_handshake_metadata").when.startswith("at engine start-up")
    assert VLLM.phase("engine-step", "finish_requests").when.startswith("when requests are aborted")
    assert VLLM.phase("engine-step", "shutdown").when == "at shutdown"
