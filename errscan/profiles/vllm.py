"""vLLM: the project errscan was built for. Everything errscan knows about vLLM in particular."""

from errscan.profiles import Profile, Registry

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
)
