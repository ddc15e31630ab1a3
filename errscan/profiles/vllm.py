"""vLLM: the project errscan was built for."""

from errscan.profiles import Profile

VLLM = Profile(
    name="vllm",
    package="vllm",
    distribution="vllm",
    repo="vllm-project/vllm",
    default_include=("vllm/distributed/kv_transfer/**",),
    version_file="vllm/_version.py",
)
