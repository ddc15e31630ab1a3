"""The connectors of an error are those whose objects can run it (tests/fixtures/analysis_pkg/vllm/
kv/connectors/workers.py): `self.worker.m()` dispatches on the worker class each connector
constructs, and an override in that class hides the base method."""


def _connectors(catalog, message):
    (error,) = [e for e in catalog.errors if e.message == message]
    return error.trigger.connectors, error


def test_a_method_only_one_connectors_worker_overrides_names_that_connector(analysis_catalog):
    connectors, error = _connectors(analysis_catalog, "push writer failed to start")
    assert connectors == ("PushConnector",)
    assert error.trigger.chains and error.trigger.reachable is True


def test_a_base_method_an_override_hides_leaves_out_the_connector_that_overrides(analysis_catalog):
    connectors, _ = _connectors(analysis_catalog, "pulled notifications failed")
    assert connectors == ("LegacyConnector", "PullConnector")

