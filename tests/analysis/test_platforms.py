"""One process runs on one platform: a chain whose steps need two platforms that exclude each other
(a class that runs on one, a call made under a test of another) is never taken."""

from __future__ import annotations

from functools import lru_cache

from conftest import FIXTURES
from errscan.profiles import EntryClass, NameCalls, Platforms, Profile, Table
from errscan.runtime.runner import ScanOptions, scan
from errscan.scope import Scope
from errscan.sources.folder import FolderSource

PROFILE = Profile(
    name="app", package="app", distribution="app", repo="o/r", default_include=("app/**",), version_file="",
    entry_classes=(EntryClass("app.engine.Engine", "api", ("start", "prepare")),),
    name_calls=(NameCalls("collective_rpc", "Worker"),),
    platforms=Platforms(("gpu", "cpu"), tests=(("current_platform.is_gpu()", ("gpu",)), ("current_platform.is_cpu()", ("cpu",))),
                        classes=(("app.workers.CpuWorker", ("cpu",)), ("app.comm.GpuCommunicator", ("gpu",)),
                                 ("app.comm.CpuCommunicator", ("cpu",)))),
)


@lru_cache(maxsize=None)
def scanned(fixture: str, profile: Profile, with_platforms: bool) -> dict[str, object]:
    """The fixture's errors by function, with the profile's platforms or without any."""
    profile = profile if with_platforms else Profile(**{**profile.__dict__, "platforms": None})
    source = FolderSource(FIXTURES / fixture, profile)
    catalog = scan(source, ScanOptions(repo="o/r", scope=Scope(("app/**",)), jobs=1, profile=profile))
    return {e.function: e for e in catalog.errors}


def errors(with_platforms: bool = True) -> dict[str, object]:
    return scanned("platform_chains", PROFILE, with_platforms)


def paths(error) -> list[list[str]]:
    return [[node.rsplit(".", 2)[-2] + "." + node.rsplit(".", 1)[-1] for node in chain.path] for chain in error.trigger.chains]


def test_a_chain_through_one_platform_s_worker_into_another_s_communicator_is_not_taken():
    (path,) = paths(errors()["GpuCommunicator.__init__"])
    assert path == ["Engine.start", "GpuWorker.init_device", "workers.setup_group", "GpuCommunicator.__init__"]
    (refused,) = errors()["GpuCommunicator.__init__"].trigger.infeasible_chains
    assert "CpuWorker.init_device" in refused.path[1]
    assert refused.infeasible == ("the call of `__init__` at workers.py:22 is never reached on this way: "
                                  "`GpuCommunicator.__init__` runs only on gpu, but `CpuWorker.init_device` runs only on cpu: "
                                  "no platform runs both")


def test_without_platforms_the_first_worker_by_name_is_taken():
    (path,) = paths(errors(False)["GpuCommunicator.__init__"])
    assert path[1] == "CpuWorker.init_device"


def test_a_call_made_under_one_platform_s_test_does_not_reach_another_s_class():
    tune = errors()["tune"]
    assert [p[0] for p in paths(tune)] == ["Engine.start"]
    (refused,) = tune.trigger.infeasible_chains
    assert refused.infeasible.endswith("`CpuCommunicator.__init__` runs only on cpu, but the call of `_warm_up` at "
                                       "engine.py:14 is made only on gpu: no platform runs both")
    assert "Engine.prepare" in [p[0] for p in paths(errors(False)["tune"])]


MODELS = Profile(
    name="app", package="app", distribution="app", repo="o/r", default_include=("app/**",), version_file="",
    tables=(Table("app.registry._MODELS", "model", "architectures", methods=("forward", "backward")),),
    platforms=Platforms(("gpu", "rocm", "cpu"), tests=(("current_platform.is_gpu()", ("gpu",)), ("current_platform.is_rocm()", ("rocm",)))),
)


def model_errors(with_platforms: bool = True) -> dict[str, object]:
    return scanned("platform_imports", MODELS, with_platforms)


def test_a_model_imported_on_one_platform_does_not_reach_a_kernel_imported_on_another():
    error = model_errors()["FastImpl.forward"]
    assert [p[:2] for p in paths(error)] == [["SparseForCausalLM.forward", "FastImpl.forward"]]
    assert error.trigger.chains[0].path[0] == "app.models.nvidia.SparseForCausalLM.forward"
    (refused,) = error.trigger.infeasible_chains
    assert refused.path[0] == "app.models.amd.SparseForCausalLM.forward"
    assert refused.infeasible.endswith("`FastImpl.forward` runs only on gpu (where `app.models.fast_kernels` is imported), "
                                       "but `SparseForCausalLM.forward` runs only on rocm (where `app.models.amd` is imported): "
                                       "no platform runs both")
    assert len(model_errors(False)["FastImpl.forward"].trigger.chains) == 2


def test_a_kernel_only_other_platforms_chains_reach_is_not_called_unreachable():
    """Its own platform may reach it by a call the graph does not resolve: unknown, not unreachable."""
    error = model_errors()["FastImpl.backward"]
    assert error.trigger.chains == () and error.trigger.infeasible_chains
    assert error.trigger.reachable is None


def test_a_model_of_one_platform_does_not_reach_a_class_another_platform_s_test_picks():
    """`FastImpl`'s module may be loaded anywhere (a table names it), but its class is only handed
    out under `is_gpu()`: its methods run on gpu only."""
    chosen = scanned("platform_class_choice", MODELS, True)["FastImpl.forward"]
    assert [p[:2] for p in paths(chosen)] == [["SparseForCausalLM.forward", "FastImpl.forward"]]
    assert chosen.trigger.chains[0].path[0] == "app.models.nvidia.SparseForCausalLM.forward"
    (refused,) = chosen.trigger.infeasible_chains
    assert refused.path[0] == "app.models.amd.SparseForCausalLM.forward"
    assert refused.infeasible.endswith("`FastImpl.forward` runs only on gpu (where its objects are made), "
                                       "but `SparseForCausalLM.forward` runs only on rocm (where `app.models.amd` is imported): "
                                       "no platform runs both")
