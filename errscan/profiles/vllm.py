"""vLLM: the project errscan was built for. Everything errscan knows about vLLM in particular."""

from errscan.profiles import (
    Companions, Decorated, EntryClass, Keeps, NameCalls, NamedFunctions, PeerValue, Phase, Place, Phrase, Platforms, PluginSettings, Profile, Registry,
    Reset,
    Routes, Table,
)

_KV = ("connector-init", "connector-interface", "core-call")  # the KV connectors' entry points

# Where vLLM looks a user's setting up to pick a class (each checked in the 0.27.1 source):
TABLES = (
    # `ModelRegistry` is built from `_VLLM_MODELS` (model_executor/models/registry.py): the model's
    # config.json `architectures` picks the class (`resolve_model_cls`); the loader constructs it
    # (`model_class(vllm_config=..., prefix=...)`), calls `load_weights`, and the model runner its
    # forward and these methods.
    Table("vllm.model_executor.models.registry._VLLM_MODELS", "model", "architectures", "vllm.model_executor.models.",
          ("forward", "load_weights", "compute_logits", "embed_input_ids", "embed_multimodal",
           "make_empty_intermediate_tensors", "get_mamba_state_copy_func")),
    # `get_quantization_config(quantization)` (model_executor/layers/quantization/__init__.py).
    # A layer asks the config's `get_quant_method` for the method object it then calls (`create_weights`,
    # `apply`; the loader `process_weights_after_loading`).
    Table("vllm.model_executor.layers.quantization.get_quantization_config.method_to_config", "quantization",
          "--quantization", interface="QuantizationConfig", returned=(("get_quant_method", "QuantizeMethodBase"),)),
    # `AttentionBackendEnum[name].get_class()` (v1/attention/backends/registry.py), chosen by the
    # platform's selector or `--attention-backend`.
    # The attention layer builds `get_impl_cls()(...)` and calls its `forward` through a custom op; the
    # model runner builds `get_builder_cls()(...)` and calls `build` each step.
    Table("vllm.v1.attention.backends.registry.AttentionBackendEnum", "attention-backend", "--attention-backend",
          interface="AttentionBackend",
          returned=(("get_impl_cls", "AttentionImplBase"), ("get_builder_cls", "AttentionMetadataBuilder"))),
    # `ToolParserManager.register_lazy_module(name, "vllm.tool_parsers.<file>", class)` for each entry,
    # `get_tool_parser(args.tool_call_parser)` picks one; likewise the reasoning parsers.
    Table("vllm.tool_parsers._TOOL_PARSERS_TO_REGISTER", "tool-parser", "--tool-call-parser", "vllm.tool_parsers.",
          interface="ToolParser"),
    Table("vllm.reasoning._REASONING_PARSERS_TO_REGISTER", "reasoning-parser", "--reasoning-parser", "vllm.reasoning.",
          interface="ReasoningParser"),
)


# One process runs on one platform: `current_platform.is_*()` (platforms/interface.py) test
# `Platform._enum` (ZenCpuPlatform is a CpuPlatform; an out-of-tree platform answers none of them).
# Besides the platform classes, the worker class each one's `check_and_update_config` sets
# (`parallel_config.worker_cls`: cpu.py:157, xpu.py:339; CUDA and ROCm take gpu_worker.Worker) and
# the communicator its `get_device_communicator_cls` names (cuda.py:557, rocm.py:912, cpu.py:408, xpu.py:451).
PLATFORMS = Platforms(
    ("cuda", "rocm", "cpu", "xpu", "tpu", "out-of-tree"),
    tests=(("current_platform.is_cuda()", ("cuda",)), ("current_platform.is_rocm()", ("rocm",)),
           ("current_platform.is_cuda_alike()", ("cuda", "rocm")), ("current_platform.is_cpu()", ("cpu",)),
           ("current_platform.is_xpu()", ("xpu",)), ("current_platform.is_tpu()", ("tpu",)),
           ("current_platform.is_out_of_tree()", ("out-of-tree",))),
    classes=(("vllm.platforms.cuda.CudaPlatformBase", ("cuda",)), ("vllm.platforms.rocm.RocmPlatform", ("rocm",)),
             ("vllm.platforms.cpu.CpuPlatform", ("cpu",)), ("vllm.platforms.xpu.XPUPlatform", ("xpu",)),
             ("vllm.v1.worker.cpu_worker.CPUWorker", ("cpu",)), ("vllm.v1.worker.xpu_worker.XPUWorker", ("xpu",)),
             ("vllm.distributed.device_communicators.cuda_communicator.CudaCommunicator", ("cuda", "rocm")),
             ("vllm.distributed.device_communicators.cpu_communicator.CpuCommunicator", ("cpu",)),
             ("vllm.distributed.device_communicators.xpu_communicator.XpuCommunicator", ("xpu",))),
    labels=(("cuda", "CUDA"), ("rocm", "ROCm"), ("cpu", "CPU"), ("xpu", "XPU"), ("tpu", "TPU")),
)


# Real models with a property the KV cache code tests, for example commands.
MLA_MODEL = "deepseek-ai/DeepSeek-V2-Lite"
HYBRID_MODEL = "ibm-granite/granite-4.0-h-tiny"  # Mamba-2 layers with attention layers
ENCODER_DECODER_MODEL = "openai/whisper-large-v3"

VLLM = Profile(
    name="vllm",
    package="vllm",
    distribution="vllm",
    repo="vllm-project/vllm",
    default_include=("vllm/distributed/kv_transfer/**",),
    version_file="vllm/_version.py",
    # `KVConnectorFactory.register_connector("Name", "module.path", "ClassName")` gives the
    # `kv_connector` names users write in `--kv-transfer-config`. MultiConnector builds its sub-connectors
    # (`connector_cls(temp_config, ...)`, multi_connector.py:181-184) while the current config, which
    # `get_kv_connector_cache_layout` reads (kv_connector/utils.py:40-43), still names MultiConnector.
    registries=(Registry("KVConnectorFactory.register_connector", 0, 1, 2, "connector", groups=("MultiConnector",)),),
    tables=TABLES,
    platforms=PLATFORMS,
    # `@VIDEO_LOADER_REGISTRY.register("opencv")`: `VIDEO_LOADER_REGISTRY.load(...)` picks the loader
    # (multimodal/media/video.py), `MEDIA_CONNECTOR_REGISTRY.load(envs.VLLM_MEDIA_CONNECTOR)` the connector.
    decorated=(
        Decorated("vllm.multimodal.video.VIDEO_LOADER_REGISTRY", "video-loader", "VLLM_VIDEO_LOADER_BACKEND"),
        Decorated("vllm.multimodal.media.connector.MEDIA_CONNECTOR_REGISTRY", "media-connector", "VLLM_MEDIA_CONNECTOR"),
    ),
    # `@MULTIMODAL_REGISTRY.register_processor(Processor, info=Info, dummy_inputs=Builder)` on a model
    # class: `create_processor` builds them from the model class the architecture picks.
    companions=(Companions("register_processor"),),
    entry_classes=(
        # `vllm <command>`: cli/main.py calls each `CLISubcommand`'s `subparser_init`, `validate` and `cmd`.
        EntryClass("vllm.entrypoints.cli.types.CLISubcommand", "command", ("cmd", "validate", "subparser_init"),
                   subclasses=True, name_attribute="name", setting="vllm <command>"),
        EntryClass("vllm.entrypoints.llm.LLM", "api"),
        # The engine core process's loop calls `self.step_fn()`, bound to one of these (v1/engine/core.py),
        # and its `model_executor`, the class `Executor.get_class` picks by --distributed-executor-backend.
        EntryClass("vllm.v1.engine.core.EngineCore", "engine-step", ("step", "step_with_batch_queue")),
        EntryClass("vllm.v1.executor.abstract.Executor", "engine-step", subclasses=True),
        # EngineCore builds `scheduler_config.get_scheduler_cls()(...)` and calls it each step.
        EntryClass("vllm.v1.core.sched.interface.SchedulerInterface", "engine-step", subclasses=True),
        # The fused-MoE oracles (layers/fused_moe/oracle/*.py) try candidate expert classes with
        # `k_cls.is_supported_config(...)` and build the one picked, which the MoE kernel then calls.
        EntryClass("vllm.model_executor.layers.fused_moe.modular_kernel.FusedMoEExperts", "moe-kernel", subclasses=True),
        # `torch.compile(..., backend=VllmBackend(...))`: torch calls the backend with the captured graph.
        EntryClass("vllm.compilation.backends.VllmBackend", "compile", ("__call__",)),
        # The targets of the engine core's and the workers' processes (v1/engine/utils.py, multiproc_executor.py).
        EntryClass("vllm.v1.engine.core.EngineCoreProc", "process", ("run_engine_core",)),
        EntryClass("vllm.v1.executor.multiproc_executor.WorkerProc", "process", ("worker_main",)),
        # `current_platform` is the one platform class detected (platforms/__init__.py); the engine
        # calls its methods everywhere through the module attribute, which no call resolves.
        EntryClass("vllm.platforms.interface.Platform", "platform", subclasses=True, name_attribute="device_name",
                   setting="platform"),
    ),
    routes=Routes(
        ("fastapi.APIRouter", "fastapi.FastAPI"),
        # `create_error_response` (entrypoints/serve/utils/error_response.py), which the server's
        # exception handlers and the serving classes use.
        statuses=(("VLLMValidationError", 400), ("VLLMUnprocessableEntityError", 422), ("VLLMNotFoundError", 404),
                  ("VLLMClientError", 400), ("VLLMServerError", 500), ("ValueError", 400), ("TypeError", 400),
                  ("OverflowError", 400), ("NotImplementedError", 501), ("HTTPException", 0)),
        request_base="OpenAIBaseModel",
    ),
    # The executor runs a method of every worker by name: `collective_rpc("execute_model")`.
    name_calls=(NameCalls("collective_rpc", "WorkerBase"),),
    # `direct_register_custom_op(op_name="x", op_func=f)` (utils/torch_utils.py) registers `f` as the
    # torch operator `torch.ops.vllm.x`, which layers call (attention, fused MoE, ...).
    named_functions=(NamedFunctions("direct_register_custom_op", "op_name", "op_func", "torch.ops.vllm"),),
    # It only stores `op_func` and `fake_impl` (`Library.impl`, `_register_fake`): registering is no call.
    keeps=(Keeps("direct_register_custom_op", ("op_func", "1", "fake_impl", "3")),),
    interface_bases=("KVConnectorBase_V1", "KVConnectorBase"),
    plugin_package="vllm.distributed.kv_transfer",
    config_package="vllm.config",
    root_config="VllmConfig",
    # vLLM derives its engine flags from these dataclasses' fields: `foo_bar` -> `--foo-bar`.
    cli_args_classes=("EngineArgs", "AsyncEngineArgs", "FrontendArgs"),
    env_modules=("vllm.envs",),
    extra_config_attribute="kv_connector_extra_config",
    extra_config_getters=("get_from_extra_config",),
    # `init_logger` gives a logger with `warning_once` (vllm/logger.py), which logs once per message.
    log_helpers=(("warning_once", "warning"),),
    # What the engine is doing when it calls a connector's method (KVConnectorBase_V1's contract).
    phases=(
        Phase(("__init__",), "at engine start-up (when the KV connector is created)", "the scheduler and each worker", _KV),
        Phase(("__post_init__",), "at start-up (when vLLM validates its configuration)", "the process that parses the arguments", ("config-validation",)),
        Phase(("register_kv_caches", "register_cross_layers_kv_cache", "set_host_xfer_buffer_ops",
               "get_required_kvcache_layout", "_find_cache_kv_group_id"),
              "at engine start-up (when the KV cache is allocated and registered)", "each worker", _KV),
        Phase(("get_num_new_matched_tokens", "update_state_after_alloc"),
              "when the scheduler admits a request (prefix lookup and block allocation)", "the scheduler (engine core)", _KV),
        Phase(("build_connector_meta", "update_connector_output", "take_events"),
              "at each scheduling step", "the scheduler (engine core)", _KV),
        # Scheduler.add_request calls the connector's on_new_request for every request it admits (v1/core/sched/scheduler.py).
        Phase(("on_new_request",), "when a request is added to the scheduler", "the scheduler (engine core)", _KV),
        Phase(("request_finished", "request_finished_all_groups"), "when a request finishes", "the scheduler (engine core)", _KV),
        Phase(("start_load_kv", "wait_for_layer_load"), "while KV is loaded for a request", "each worker", _KV),
        Phase(("save_kv_layer", "wait_for_save"), "while KV is saved or sent", "each worker", _KV),
        Phase(("get_finished", "get_block_ids_with_load_errors"), "while finished transfers are collected", "each worker", _KV),
        Phase(("get_kv_connector_stats", "build_kv_connector_stats", "build_prom_metrics", "aggregate", "observe", "log", "reduce"),
              "while transfer metrics are collected or logged", "the engine's logging", _KV),
        Phase(("create_connector", "get_connector_class", "ensure_kv_transfer_initialized", "get_kv_transfer_group"),
              "at engine start-up (when vLLM picks and creates the KV connector)", "the scheduler and each worker", _KV),
        Phase(("shutdown", "close"), "at shutdown", "each process", _KV),
        # The user paths' entry points (TABLES, entry_classes, routes).
        Phase(("__init__",), "at start-up (when the loader builds the architecture's model class)", "each worker", ("model",)),
        Phase(("load_weights",), "at start-up (while the model's weights are loaded)", "each worker", ("model",)),
        Phase((), "at each step (when the model runs)", "each worker", ("model",)),
        Phase((), "when the model is built and run with this quantization method", "each worker", ("quantization",)),
        Phase((), "when the attention backend is chosen or runs", "each worker", ("attention-backend",)),
        Phase((), "when a response's tool calls are parsed", "the API server", ("tool-parser",)),
        Phase((), "when a response's reasoning is parsed", "the API server", ("reasoning-parser",)),
        Phase((), "when the server handles a request to the route", "the API server", ("route",)),
        Phase((), "when the command runs", "the command's process", ("command",)),
        Phase((), "when the program calls the `LLM` class", "the program's process", ("api",)),
        # EngineCore.__init__ (v1/engine/core.py) builds the executor and the scheduler and runs the
        # KV connectors' handshake once, before the first step; the executor's and scheduler's own
        # `__init__` run then too.
        Phase(("__init__",), "at engine start-up (when the engine core is built)", "the engine core", ("engine-step",)),
        # EngineCore.__init__ -> _initialize_kv_caches -> initialize_from_config, then the handshake (core.py:189, :330).
        Phase(("initialize_from_config", "get_kv_connector_handshake_metadata"),
              "at engine start-up (when the KV cache is allocated and registered)", "the engine core", ("engine-step",)),
        # EngineCore.abort_requests, pause_scheduler and shutdown call it (core.py:491, :851, :1481, :1863).
        Phase(("finish_requests",), "when requests are aborted (by the client, a pause or shutdown)", "the engine core", ("engine-step",)),
        Phase(("shutdown",), "at shutdown", "the engine core", ("engine-step",)),
        Phase((), "at each engine step", "the engine core", ("engine-step",)),
        Phase((), "when the fused-MoE kernel is chosen or runs", "each worker", ("moe-kernel",)),
        Phase((), "when torch.compile compiles the model", "each worker", ("compile",)),
        Phase((), "when vLLM asks the platform what the device supports", "each process", ("platform",)),
        Phase((), "when a request's video is loaded", "the API server", ("video-loader",)),
        Phase((), "when a request's media is fetched", "the API server", ("media-connector",)),
    ),
    # A connector is built once per role: the condition on `role` (or the class) says which.
    places=(
        Place(r"role != KVConnectorRole\.SCHEDULER|role == KVConnectorRole\.WORKER|\bWorker\w*\.", "each worker"),
        Place(r"role != KVConnectorRole\.WORKER|role == KVConnectorRole\.SCHEDULER|\bScheduler\w*\.", "the scheduler (engine core)"),
    ),
    # Model properties as the KV cache code tests them.
    vocabulary=(
        Phrase(r"isinstance\(.+, CrossAttentionSpec\)", "the model has cross-attention layers (an encoder-decoder model)",
               "the model has no cross-attention layers",
               model=ENCODER_DECODER_MODEL, avoid="Use a model without cross-attention layers (a decoder-only model): this setup is not supported."),
        Phrase(r"isinstance\(.+, MambaSpec\)", "the model has Mamba (state-space) layers", "the model has no Mamba layers",
               model=HYBRID_MODEL),
        Phrase(r"isinstance\(.+, MLAAttentionSpec\)", "the model uses MLA attention", "the model does not use MLA attention",
               model=MLA_MODEL),
        Phrase(r"isinstance\(.+, HiddenStateCacheSpec\)", "the layer caches hidden states", "the layer does not cache hidden states"),
        Phrase(r"(self\.)?_?(use_mla|is_mla)|(\w+\.)*model_config\.use_mla|mla_enabled\([\w.]*\)",
               "the model uses MLA attention (as DeepSeek-V2/V3 do)", "the model does not use MLA attention",
               model=MLA_MODEL, avoid="Use a model without MLA attention: this setup is not supported."),
        Phrase(r"(self\.)?_?(has_mamba|is_hybrid)", "the model is hybrid (has Mamba layers)", "the model is not hybrid",
               model=HYBRID_MODEL),
        Phrase(r"len\([\w.]*kv_cache_groups\)", "the number of the model's KV cache groups (a hybrid model has several)", noun=True),
        Phrase(r"(\w+\.)+kv_cache_spec\.block_size", "those layers' KV block size", noun=True),
        # The scheduler hands a connector one list of block ids per KV cache group.
        Phrase(r"len\((\w+\.)*(new_)?block_ids(\[\w+\])?\)",
               "the number of KV cache groups the request's blocks come in (one per group: more than one when the "
               "model mixes layer kinds, e.g. sliding-window or Mamba layers, and vLLM keeps them apart)", noun=True,
               avoid="Use a model whose layers all share one KV cache group (one kind of attention, no sliding-window "
                     "or Mamba layers next to full attention) with this connector."),
    ),
    # LMCache reads its own config (a file, `LMCACHE_*` variables); the connector copies
    # `lmcache.*` keys of kv_connector_extra_config into it (lmcache_integration/vllm_v1_adapter.py).
    plugin_settings=(
        PluginSettings("LMCache", r"(?:self\.)?_?lmcache_config\.([a-z_][a-z0-9_]*)", "lmcache.", "LMCACHE_", "LMCACHE_CONFIG_FILE"),
    ),
    environment_exceptions=("HandshakeError", "TransferError", "MoRIIOError"),
    # Mooncake's prefill side answers the decode instance's transfer request with
    # `MooncakeXferResponse(status=ERROR, err_msg=...)`; the OpenAI server answers with `ErrorResponse`
    # (built by `create_error_response`).
    error_responses=("MooncakeXferResponse", "ErrorResponse", "create_error_response", "AnthropicErrorResponse"),
    # FastAPI's and aiohttp's ways to answer with a status: the metadata servers and the API server.
    http_errors=("HTTPException", "JSONResponse", "json_response", "Response", "HTTPInternalServerError"),
    title="vLLM",
    launch_command="vllm serve MODEL",
    plugin_setting="kv_connector",
    # KVTransferConfig refuses a connector without a role; kv_both serves either side.
    plugin_setting_defaults=(("kv_role", "kv_both"),),
    # KVConnectorFactory loads a connector class from this module when it is given.
    plugin_module_setting="kv_connector_module_path",
    report_command="vllm collect-env",
    # Request.kv_transfer_params (v1/request.py) is the body's `kv_transfer_params` (openai/*/protocol.py),
    # sent by the client or the disaggregation proxy in front of the instances.
    client_fields=("kv_transfer_params",),
    # Disaggregated prefill: a connector compares its own tensor-parallel size with the peer's, which
    # the peer sends in its handshake (TransferTopology in kv_connector/utils.py).
    peer_values=(
        PeerValue(r"remote_tp_size|\w+\.remote_tp_size", "--tensor-parallel-size", "the other instance"),
        PeerValue(r"self\.tp_size|local_tp_size", "--tensor-parallel-size", "this instance"),
    ),
    # The disaggregation proxy or router in front of the instances: MoRIIO pings it at proxy_ip:proxy_ping_port
    # (moriio_connector.py), P2P NCCL registers with proxy_ip:proxy_port (p2p_nccl_engine.py).
    relays=((r"(^|_)(proxy|router)(_|$)", "the proxy"),),
    # Optional imports of connectors (`try: from mooncake.engine import ...` / `except ImportError`), as pip
    # installs them (vLLM's Mooncake, NIXL and LMCache usage guides; mooncake-transfer-engine is built for CUDA 12).
    distributions=(("mooncake", "mooncake-transfer-engine"), ("nixl", "nixl"), ("lmcache", "lmcache")),
    # Disaggregated prefill: the prefill (P) and the decode (D) instance exchange their KV cache layout in
    # the handshake and check it against their own (nixl/base_worker.py, mooncake_connector.py); the layout
    # follows from the model, the block size, the KV cache dtype and the tensor-parallel sizes.
    sides=((r"\b(?i:local)\b", r"\b(?i:remote)\b"), (r"\b(?:P|(?i:prefill|producer))\b", r"\b(?:D|(?i:decode|consumer))\b")),
    sides_advice="Start the prefill and the decode instance with the same model and the same KV cache settings "
                 "(`--block-size`, `--kv-cache-dtype`), with tensor-parallel sizes that the connector pairs (one a "
                 "multiple of the other).",
    # MambaModelConfig.verify_and_update_config (model_executor/models/config.py) sets
    # mamba_cache_mode to "none" when prefix caching is off, which hybrid models default to.
    resets=(Reset("--mamba-cache-mode", "none", (("--enable-prefix-caching", "true"),),
                  "vLLM resets the Mamba cache mode to 'none' unless prefix caching is on, and it is off by default "
                  "for hybrid models"),),
)
