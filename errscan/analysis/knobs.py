"""Knobs: the user-facing settings a condition reads, found through the profile's hints.

- an attribute chain through the root config (`vllm_config.parallel_config.x`, or an alias whose
  last two names are a config attribute and a field) -> the config field `ParallelConfig.x` and, when
  an engine-arguments dataclass has the field, its flag `--x`;
- `<getter>("k", default)` or `<extra>["k"]` / `<extra>.get("k", d)` -> the extra-config key `k`;
- an attribute of an environment module (`envs.VLLM_X`) or `os.environ`/`os.getenv` -> `VLLM_X`.
A config field that its class's own validation fills when unset is no knob for a `None` test.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from dataclasses import dataclass, field

from errscan.analysis.entries import validates
from errscan.extract.conditions import parse_expression
from errscan.extract.facts import ClassFact
from errscan.graph.calls import CallGraph, function_node
from errscan.model import Knob
from errscan.profiles import Profile

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


@dataclass(frozen=True)
class KnobCatalog:
    """What settings exist at this commit: config classes' fields and the engine's flags."""

    config_attributes: dict[str, str]  # attribute of the root config -> config class short name
    config_fields: dict[str, frozenset[str]]  # config class short name -> its fields
    flags: dict[str, str]  # `--flag` -> "Class.field" it sets ("" when not a config field)
    env_modules: tuple[str, ...]
    extra_config_attribute: str
    # "Class.field" of config fields the class's own validation fills when they are left unset
    # (`if self.engine_id is None: self.engine_id = ...`): a `None` test of one decides nothing.
    filled: frozenset[str] = frozenset()
    # (expression, arguments) -> its knobs: chains of one error share most of their conditions
    known: dict[tuple[str, bool], tuple[Knob, ...]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, graph: CallGraph, profile: Profile) -> "KnobCatalog":
        classes = {q: fact for q, (fact, _) in graph.index.classes.items()}
        config = {q: f for q, f in classes.items() if profile.config_package and q.startswith(profile.config_package + ".")}
        fields = {q.rsplit(".", 1)[1]: frozenset(x.name for x in f.fields) for q, f in config.items()}
        attributes: dict[str, str] = {}
        for qualname, fact in config.items():
            if qualname.rsplit(".", 1)[1] == profile.root_config:
                for field in fact.fields:
                    if field.annotation and field.annotation.rsplit(".", 1)[-1] in fields:
                        attributes[field.name] = field.annotation.rsplit(".", 1)[-1]
        flags: dict[str, str] = {}
        for qualname, fact in sorted(classes.items()):
            if qualname.rsplit(".", 1)[1] not in profile.cli_args_classes:
                continue
            for field in fact.fields:
                sets = field.default if field.default and field.default.split(".")[0] in fields else ""
                flags.setdefault(flag_name(field.name), sets)
        return cls(attributes, fields, flags, profile.env_modules, profile.extra_config_attribute, _filled(graph, config))

    def flag_for(self, config_class: str, field: str) -> str | None:
        wanted = f"{config_class}.{field}"
        for flag, sets in self.flags.items():
            if sets == wanted:
                return flag
        candidate = flag_name(field)
        return candidate if candidate in self.flags and not self.flags[candidate] else None


def _filled(graph: CallGraph, config: dict[str, ClassFact]) -> frozenset[str]:
    """Config fields that a config class's validation sets when they are unset: `self.f = ...`
    under `self.f is None` (or `not self.f`) in its `__post_init__` or a validator."""
    found = set()
    for module in graph.index.modules.values():
        for default in module.attribute_defaults:
            fact = graph.functions.get(function_node(module.module, default.scope), (None, None))[0]
            if fact is None or fact.class_qualname not in config or not validates(fact):
                continue
            if _tests_unset(parse_expression(default.test), f"self.{default.attribute}"):
                found.add(f"{fact.class_qualname.rsplit('.', 1)[1]}.{default.attribute}")
    return frozenset(found)


def _tests_unset(test: ast.expr | None, attribute: str) -> bool:
    """`x is None`, `x == None`, `not x` for the dotted `attribute` x."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.unparse(test.operand) == attribute
    return isinstance(test, ast.Compare) and _none_test(test) and ast.unparse(test.left) == attribute


def _none_test(node: ast.Compare) -> bool:
    """`x is None`, `x is not None`, `x == None`, `x != None`."""
    other = node.comparators[0]
    return (len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
            and isinstance(other, ast.Constant) and other.value is None)


def knobs_in(expression: str, catalog: KnobCatalog, profile: Profile, arguments: bool = True) -> list[Knob]:
    """Knobs read by one expression (Python syntax; pseudo-terms are skipped). With `arguments`
    false, what is only passed to a call (`f(cfg.x)`) is not read: whether it decides anything is
    the callee's business."""
    found = catalog.known.get((expression, arguments))
    if found is None:
        found = catalog.known[(expression, arguments)] = tuple(_knobs_in(expression, catalog, profile, arguments))
    return list(found)


def _knobs_in(expression: str, catalog: KnobCatalog, profile: Profile, arguments: bool) -> list[Knob]:
    tree = parse_expression(expression)
    if tree is None:
        return []
    found: list[Knob] = []
    none_tested: set[int] = set()  # the compared sides of `x is None`-like tests
    queue = deque([tree])
    while queue:  # breadth-first: a comparison before its operands
        node = queue.popleft()
        if isinstance(node, ast.Compare) and _none_test(node):
            none_tested.add(id(node.left))
        elif isinstance(node, ast.Attribute):
            found.extend(_config_knobs(node, catalog, id(node) in none_tested))
            found.extend(_env_attribute(node, catalog))
        elif isinstance(node, ast.Call):
            found.extend(_call_knobs(node, profile))
            if not arguments:
                queue.append(node.func)
                continue
        elif isinstance(node, ast.Subscript):
            found.extend(_subscript_knobs(node, profile))
        queue.extend(ast.iter_child_nodes(node))
    return found


def _chain(node: ast.expr) -> list[str]:
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def _config_knobs(node: ast.Attribute, catalog: KnobCatalog, none_tested: bool) -> list[Knob]:
    names = _chain(node)
    if len(names) < 2:
        return []
    owner, field = names[-2], names[-1]
    config_class = catalog.config_attributes.get(owner)
    if config_class is None or field not in catalog.config_fields.get(config_class, ()):
        return []
    if none_tested and f"{config_class}.{field}" in catalog.filled:
        return []  # never None once validated: the test always comes out the same
    if field == catalog.extra_config_attribute:  # its keys are the knobs, found on their own
        return []
    knobs = [Knob("config_field", f"{config_class}.{field}", ".".join(names))]
    flag = catalog.flag_for(config_class, field)
    if flag:
        knobs.append(Knob("cli_flag", flag, f"sets {config_class}.{field}"))
    return knobs


def _env_attribute(node: ast.Attribute, catalog: KnobCatalog) -> list[Knob]:
    names = _chain(node)
    if len(names) == 2 and any(m.rsplit(".", 1)[-1] == names[0] for m in catalog.env_modules):
        if names[1].isupper():
            return [Knob("env", names[1], ".".join(names))]
    return []


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_knobs(node: ast.Call, profile: Profile) -> list[Knob]:
    func = node.func
    names = _chain(func) if isinstance(func, ast.Attribute) else []
    key = _literal(node.args[0]) if node.args else None
    default = ast.unparse(node.args[1]) if len(node.args) > 1 else None
    detail = f"default {default}" if default is not None else ""
    if key is None or not names:
        return []
    if names[-1] in profile.extra_config_getters:
        return [Knob("extra_config", key, detail)]
    if names[-1] == "get" and len(names) >= 2 and names[-2] == profile.extra_config_attribute:
        return [Knob("extra_config", key, detail)]
    if names[-2:] == ["environ", "get"] or names[-1] == "getenv":
        return [Knob("env", key, ast.unparse(node))]
    return []


def _subscript_knobs(node: ast.Subscript, profile: Profile) -> list[Knob]:
    key = _literal(node.slice)
    names = _chain(node.value) if isinstance(node.value, ast.Attribute) else []
    if key is None or not names:
        return []
    if names[-1] == profile.extra_config_attribute:
        return [Knob("extra_config", key, "")]
    if names[-1] == "environ":
        return [Knob("env", key, ast.unparse(node))]
    return []


def flags_in_message(template: str, catalog: KnobCatalog) -> list[Knob]:
    """`--flags` a message tells the user to pass, checked against the flags of this commit."""
    knobs = []
    for flag in sorted(set(FLAG.findall(template))):
        base = flag[len("--no-"):] if flag.startswith("--no-") else None
        exists = flag in catalog.flags or (base is not None and f"--{base}" in catalog.flags)
        detail = "named in the message" if exists else "named in the message, but no such flag at this commit (stale advice)"
        knobs.append(Knob("cli_flag", flag, detail))
    return knobs
