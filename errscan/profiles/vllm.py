"""vLLM: the project errscan was built for. Everything errscan knows about vLLM in particular."""

from errscan.profiles import Phase, PeerValue, Place, Phrase, PluginSettings, Profile, Registry, Reset

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
    # `kv_connector` names users write in `--kv-transfer-config`.
    registries=(Registry("KVConnectorFactory.register_connector", 0, 1, 2, "connector"),),
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
        Phase(("__init__",), "at engine start-up (when the KV connector is created)", "the scheduler and each worker"),
        Phase(("__post_init__",), "at start-up (when vLLM validates its configuration)", "the process that parses the arguments"),
        Phase(("register_kv_caches", "register_cross_layers_kv_cache", "set_host_xfer_buffer_ops",
               "get_required_kvcache_layout", "_find_cache_kv_group_id"),
              "at engine start-up (when the KV cache is allocated and registered)", "each worker"),
        Phase(("get_num_new_matched_tokens", "update_state_after_alloc"),
              "when the scheduler admits a request (prefix lookup and block allocation)", "the scheduler (engine core)"),
        Phase(("build_connector_meta", "update_connector_output", "take_events"),
              "at each scheduling step", "the scheduler (engine core)"),
        Phase(("request_finished", "request_finished_all_groups"), "when a request finishes", "the scheduler (engine core)"),
        Phase(("start_load_kv", "wait_for_layer_load"), "while KV is loaded for a request", "each worker"),
        Phase(("save_kv_layer", "wait_for_save"), "while KV is saved or sent", "each worker"),
        Phase(("get_finished", "get_block_ids_with_load_errors"), "while finished transfers are collected", "each worker"),
        Phase(("get_kv_connector_stats", "build_kv_connector_stats", "build_prom_metrics", "aggregate", "observe", "log", "reduce"),
              "while transfer metrics are collected or logged", "the engine's logging"),
        Phase(("create_connector", "get_connector_class", "ensure_kv_transfer_initialized", "get_kv_transfer_group"),
              "at engine start-up (when vLLM picks and creates the KV connector)", "the scheduler and each worker"),
        Phase(("shutdown", "close"), "at shutdown", "each process"),
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
        Phrase(r"len\(.*kv_cache_groups\)", "the number of the model's KV cache groups (a hybrid model has several)", noun=True),
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
    # Disaggregated prefill: a connector compares its own tensor-parallel size with the peer's, which
    # the peer sends in its handshake (TransferTopology in kv_connector/utils.py).
    peer_values=(
        PeerValue(r"remote_tp_size|\w+\.remote_tp_size", "--tensor-parallel-size", "the other instance"),
        PeerValue(r"self\.tp_size|local_tp_size", "--tensor-parallel-size", "this instance"),
    ),
    # Optional imports of connectors (`try: from mooncake.engine import ...` / `except ImportError`), as pip
    # installs them (vLLM's Mooncake, NIXL and LMCache usage guides; mooncake-transfer-engine is built for CUDA 12).
    distributions=(("mooncake", "mooncake-transfer-engine"), ("nixl", "nixl"), ("lmcache", "lmcache")),
    # MambaModelConfig.verify_and_update_config (model_executor/models/config.py) sets
    # mamba_cache_mode to "none" when prefix caching is off, which hybrid models default to.
    resets=(Reset("--mamba-cache-mode", "none", (("--enable-prefix-caching", "true"),),
                  "vLLM resets the Mamba cache mode to 'none' unless prefix caching is on, and it is off by default "
                  "for hybrid models"),),
)
