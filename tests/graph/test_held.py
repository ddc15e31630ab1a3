"""Objects held in containers and built by unannotated helpers (graph/held.py)."""

from conftest import callees, graph_of


def test_layers_iterated_indexed_or_called_reach_the_classes_built_into_the_container():
    graph = graph_of("layer_containers")
    found = callees(graph, "layer_containers.Stack.forward")
    # a lambda's class (the parameter's default), a comprehension's, a dict's, a factory's
    assert found["layer_containers.Block.forward"] == {"element"}
    assert found["layer_containers.WideBlock.forward"] == {"element"}  # the object may be a subclass
    assert found["layer_containers.Expert.route"] == {"element"}
    assert found["layer_containers.Head.forward"] == {"element"}
    assert found["layer_containers.Norm.forward"] == {"element"}
    assert not any(resolution == {"callback"} for resolution in found.values())  # `isinstance(norm, Norm)`


def test_a_value_built_from_an_object_is_no_container_of_it():
    graph = graph_of("layer_containers")
    assert callees(graph, "layer_containers.Stack.unrelated") == {}


def test_a_lambda_builds_its_objects_in_the_function_that_writes_it():
    graph = graph_of("layer_containers")
    assert callees(graph, "layer_containers.Stack.__init__")["layer_containers.Block.__init__"] == {"constructor"}


def test_an_attribute_set_by_a_helper_that_builds_one_class_has_that_type():
    graph = graph_of("layer_containers")
    assert callees(graph, "layer_containers.Model.forward") == {"layer_containers.Stack.forward": {"called-instance"}}
