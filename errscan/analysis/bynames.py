"""Calls that run code named by a string, from the profile's hints, as call-graph edges (`by-name`).

- `NameCalls`: `executor.collective_rpc("execute_model")` runs `execute_model` of the classes under
  a base (a remote procedure call to every worker);
- `NamedFunctions`: `direct_register_custom_op(op_name="x", op_func=f)` makes `torch.ops.vllm.x(...)`
  call `f`.
The graph cannot tell these from the code alone; the profile says the program really dispatches so.
"""

from __future__ import annotations

from errscan.extract.facts import CallFact, ModuleFacts
from errscan.graph.calls import CallGraph, CallSite, function_node
from errscan.profiles import NamedFunctions, Profile


def add_calls_by_name(graph: CallGraph, profile: Profile) -> int:
    """Adds the edges; how many."""
    added = 0
    for rule in profile.name_calls:
        bases = [k for k in graph.index.classes if k.rsplit(".", 1)[1] == rule.base]
        classes = sorted({c for b in bases for c in (b, *graph.subclasses.get(b, ()))})
        for module, call in _calls(graph):
            if call.callee.rsplit(".", 1)[-1] != rule.method or len(call.literal_args) <= rule.name_arg:
                continue
            name = call.literal_args[rule.name_arg]
            targets = sorted({t for c in classes if name and (t := graph.lookup_method(c, name))})
            added += _add(graph, module, call, targets)
    for named in profile.named_functions:
        functions = _registered(graph, named)
        prefix = named.namespace + "."
        for module, call in _calls(graph):
            if call.callee.startswith(prefix):
                name = call.callee[len(prefix):].split(".")[0]
                added += _add(graph, module, call, functions.get(name, []))
    return added


def _calls(graph: CallGraph):
    for module in graph.index.modules.values():
        for call in module.calls:
            if call.kind == "call":
                yield module, call


def _add(graph: CallGraph, module: ModuleFacts, call: CallFact, targets: list[str]) -> int:
    caller = function_node(module.module, call.caller)
    for target in targets:
        graph.add_edge(caller, target, CallSite(graph.paths[module.module], call.line, call.condition, "by-name", "attribute"))
    return len(targets)


def _registered(graph: CallGraph, named: NamedFunctions) -> dict[str, list[str]]:
    """name -> the functions registered under it."""
    found: dict[str, list[str]] = {}
    for module in graph.index.modules.values():
        passed = {(c.caller, c.line, c.passed_to): c.callee for c in module.calls if c.kind == "reference" and c.passed_to}
        for call in module.calls:
            if call.kind != "call" or call.callee.rsplit(".", 1)[-1] != named.register:
                continue
            name = dict(call.literal_keywords).get(named.name) or next((a for a in call.literal_args[:1] if a), None)
            given = passed.get((call.caller, call.line, f"{call.callee}:{named.function}")) or passed.get((call.caller, call.line, f"{call.callee}:1"))
            target = graph.qualify(module, call.caller, given) if name and given else None
            if target in graph.functions:
                found.setdefault(name, []).append(target)
    return found
