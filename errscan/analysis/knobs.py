"""Knobs: the user-facing settings a condition reads, found through the profile's hints.

- an attribute chain through the root config (`vllm_config.parallel_config.x`, or an alias whose
  last two names are a config attribute and a field) -> the config field `ParallelConfig.x` and, when
  an engine-arguments dataclass has the field, its flag `--x`;
- a config the root config holds only when the user gives it (`speculative_config: SpeculativeConfig |
  None = None`, and a flag `--speculative-config`), read on the root config
  (`self._vllm_config.speculative_config`) -> that field and the flag, which takes the config as JSON;
  not the one that names the plugin (`kv_transfer_config`): it is given wherever a plugin runs;
- `<getter>("k", default)` or `<extra>["k"]` / `<extra>.get("k", d)` -> the extra-config key `k`;
- an attribute of an environment module (`envs.VLLM_X`) or `os.environ`/`os.getenv` -> `VLLM_X`.
A config field that its class's own validation fills when unset is no knob for a `None` test.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from errscan.analysis.entries import validates
from errscan.extract.conditions import parse_expression
from errscan.extract.facts import ClassFact
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph, function_node
from errscan.model import Knob
from errscan.profiles import PluginSettings, Profile

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def flag_name(name: str) -> str:
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class KnobCatalog:
    """What settings exist at this commit: config classes' fields and the engine's flags."""

    config_attributes: dict[str, str]  # attribute of the root config -> config class short name
    config_fields: dict[str, frozenset[str]]  # config class short name -> its fields
    flags: dict[str, str]  # `--flag` -> "Class.field" it sets ("" when not a config field)
    env_modules: tuple[str, ...]
    extra_config_attribute: str
    json_flags: dict[str, str]  # config class short name -> the `--flag` that takes it as JSON
    plugin_settings: tuple[PluginSettings, ...] = ()
    defaults: dict[str, str] = field(default_factory=dict)  # "Class.field" -> its constant default's source
    # "Class.field" of config fields the class's own validation fills when they are left unset
    # (`if self.engine_id is None: self.engine_id = ...`): a `None` test of one decides nothing.
    filled: frozenset[str] = frozenset()
    root: str = ""  # the root config's short name (`VllmConfig`)
    given: frozenset[str] = frozenset()  # attributes of the root config that are None unless the user gives a flag
    # (expression, arguments) -> its knobs: chains of one error share most of their conditions
    known: dict[tuple[str, bool], tuple[Knob, ...]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, graph: CallGraph, profile: Profile) -> "KnobCatalog":
        classes = {q: fact for q, (fact, _) in graph.index.classes.items()}
        config = {q: f for q, f in classes.items() if profile.config_package and q.startswith(profile.config_package + ".")}
        # A field the constructor does not take is the program's to set, not the user's, unless the
        # class derives it from its settings itself (`self.world_size = ...` in `__post_init__`).
        derived = {(f"{m.module}.{store.scope.rpartition('.')[0]}", store.attribute) for m in graph.index.modules.values()
                   if f"{m.module}.".startswith(f"{profile.config_package}.") for store in m.attribute_stores if store.receiver == "self"}
        fields = {q.rsplit(".", 1)[1]: frozenset(x.name for x in f.fields if x.init or (q, x.name) in derived) for q, f in config.items()}
        defaults = {
            f"{q.rsplit('.', 1)[1]}.{x.name}": x.literal for q, f in config.items() for x in f.fields if x.literal is not None
        }
        attributes: dict[str, str] = {}
        for qualname, fact in config.items():
            if qualname.rsplit(".", 1)[1] == profile.root_config:
                for declared in fact.fields:
                    if declared.annotation and declared.annotation.rsplit(".", 1)[-1] in fields:
                        attributes[declared.name] = declared.annotation.rsplit(".", 1)[-1]
        flags: dict[str, str] = {}
        json_flags: dict[str, str] = {}
        for qualname, fact in sorted(classes.items()):
            if qualname.rsplit(".", 1)[1] not in profile.cli_args_classes:
                continue
            for declared in fact.fields:
                sets = declared.default if declared.default and declared.default.split(".")[0] in fields else ""
                flags.setdefault(flag_name(declared.name), sets)
                # `kv_transfer_config: KVTransferConfig`: the flag takes that config as JSON.
                if declared.annotation in fields:
                    json_flags.setdefault(declared.annotation, flag_name(declared.name))
        for attribute, config_class in attributes.items():  # `--speculative-config` (a dict) builds `speculative_config`
            if flag_name(attribute) in flags and not flags[flag_name(attribute)]:
                json_flags.setdefault(config_class, flag_name(attribute))
        given = frozenset(a for a, c in attributes.items() if json_flags.get(c) == flag_name(a)
                          and defaults.get(f"{profile.root_config}.{a}") == "None" and profile.plugin_setting not in fields[c])
        return cls(
            attributes, fields, flags, profile.env_modules, profile.extra_config_attribute, json_flags,
            profile.plugin_settings, defaults, _filled(graph, config, attributes), profile.root_config, given,
        )

    def flag_for(self, config_class: str, field: str) -> str | None:
        wanted = f"{config_class}.{field}"
        for flag, sets in self.flags.items():
            if sets == wanted:
                return flag
        candidate = flag_name(field)
        return candidate if candidate in self.flags and not self.flags[candidate] else None


def _filled(graph: CallGraph, config: dict[str, ClassFact], attributes: dict[str, str]) -> frozenset[str]:
    """Config fields that a config class's validation sets when they are unset: `self.f = ...`
    under `self.f is None` (or `not self.f`) in its `__post_init__` or a validator, and the root
    config's `self.a.f = ...` for a field `f` of the config class held in `self.a`."""
    found = set()
    for module in graph.index.modules.values():
        for default in module.attribute_defaults:
            fact = graph.functions.get(function_node(module.module, default.scope), (None, None))[0]
            if fact is None or fact.class_qualname not in config or not validates(fact):
                continue
            if _tests_unset(parse_expression(default.test), f"self.{default.attribute}"):
                owner, _, field = default.attribute.rpartition(".")
                config_class = attributes.get(owner) if owner else fact.class_qualname.rsplit(".", 1)[1]
                if config_class:
                    found.add(f"{config_class}.{field}")
    return frozenset(found)


def _tests_unset(test: ast.expr | None, attribute: str) -> bool:
    """`x is None`, `x == None`, `not x` for the dotted `attribute` x."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return fast_unparse(test.operand) == attribute
    return isinstance(test, ast.Compare) and _none_test(test) and fast_unparse(test.left) == attribute


def _none_test(node: ast.Compare) -> bool:
    """`x is None`, `x is not None`, `x == None`, `x != None`."""
    other = node.comparators[0]
    return (len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq))
            and isinstance(other, ast.Constant) and other.value is None)


def settled(condition: str, never_none: Callable[[ast.expr], bool]) -> str:
    """`condition` with each None test of a value that is never None (`never_none`: a field its
    config fills when unset) replaced by its outcome, and `and`/`or`/`not` over it and over constants
    folded: `cfg.engine_id is not None and x > 1` is `x > 1`, and so is `x > 1 and True` (a `while
    True` on the way). Unchanged when there is nothing to fold."""
    tree = parse_expression(condition)
    if tree is None or not any(isinstance(n, ast.Compare) and _none_test(n) and never_none(n.left)
                               or _constant(n) is not None and n is not tree for n in ast.walk(tree)):
        return condition
    return fast_unparse(_fold(ast.parse(condition, mode="eval").body, never_none))


def _fold(node: ast.expr, never_none: Callable[[ast.expr], bool]) -> ast.expr:
    if isinstance(node, ast.Compare) and _none_test(node) and never_none(node.left):
        return ast.Constant(isinstance(node.ops[0], (ast.IsNot, ast.NotEq)))
    for name, value in ast.iter_fields(node):
        if isinstance(value, ast.expr):
            setattr(node, name, _fold(value, never_none))
        elif isinstance(value, list):
            setattr(node, name, [_fold(v, never_none) if isinstance(v, ast.expr) else v for v in value])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and _constant(node.operand) is not None:
        return ast.Constant(not _constant(node.operand))
    if isinstance(node, ast.BoolOp):
        absorbing = isinstance(node.op, ast.Or)  # True absorbs an `or`, False an `and`
        if any(_constant(v) is absorbing for v in node.values):
            return ast.Constant(absorbing)
        kept = [v for v in node.values if _constant(v) is None]
        return ast.Constant(not absorbing) if not kept else kept[0] if len(kept) == 1 else ast.BoolOp(node.op, kept)
    return node


def _constant(node: ast.expr) -> bool | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, bool) else None


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
    reached: set[int] = set()  # what is read to reach a setting: `cfg.speculative_config` of `cfg.speculative_config.method`
    queue = deque([tree])
    while queue:  # breadth-first: a comparison before its operands, an attribute before its object
        node = queue.popleft()
        if isinstance(node, ast.Compare) and _none_test(node):
            none_tested.add(id(node.left))
        elif id(node) not in reached:
            knobs = knobs_at(node, catalog, profile, id(node) in none_tested)
            found.extend(knobs)
            if knobs and isinstance(node, ast.Attribute):
                reached.add(id(node.value))
        if isinstance(node, ast.Call) and not arguments:
            queue.append(node.func)
            continue
        queue.extend(ast.iter_child_nodes(node))
    return found


def knobs_at(node: ast.AST, catalog: KnobCatalog, profile: Profile, none_tested: bool = False) -> list[Knob]:
    """The knobs that this very node reads (not its parts): a config field with its flag, an
    extra-config key or an environment variable. `none_tested`: the node is the side of an
    `x is None`-like test (a field its class fills when unset is no knob there)."""
    if isinstance(node, ast.Attribute):
        return _config_knobs(node, catalog, none_tested) + _env_attribute(node, catalog) + _plugin_knobs(node, catalog)
    if isinstance(node, ast.Call):
        return _call_knobs(node, profile)
    if isinstance(node, ast.Subscript):
        return _subscript_knobs(node, profile)
    return []


def _plugin_knobs(node: ast.Attribute, catalog: KnobCatalog) -> list[Knob]:
    code = fast_unparse(node)
    for plugin in catalog.plugin_settings:
        found = re.fullmatch(plugin.pattern, code)
        if found:
            return [Knob("plugin_config", found.group(1), plugin.package)]
    return []


def default_of(knob: Knob, catalog: KnobCatalog) -> str | None:
    """The constant a config field (or the flag that sets it) has when the user gives none."""
    if knob.kind == "config_field":
        return catalog.defaults.get(knob.name)
    if knob.kind == "cli_flag" and knob.detail.startswith("sets "):
        return catalog.defaults.get(knob.detail[len("sets "):])
    if knob.detail.startswith("default "):
        return knob.detail[len("default "):]
    return None


def json_path(knob: Knob, catalog: KnobCatalog) -> tuple[str, ...]:
    """Where a setting sits in its JSON flag's document: `("kv_role",)`,
    `("kv_connector_extra_config", "lmcache.use_layerwise")`; () when it is not written in one."""
    if knob.kind == "config_field" and knob.name.split(".", 1)[0] in catalog.json_flags:
        return (knob.name.split(".", 1)[1],)
    if knob.kind == "extra_config":
        return (catalog.extra_config_attribute, knob.name)
    plugin = _plugin(knob, catalog)
    if plugin is not None and plugin.extra_prefix:
        return (catalog.extra_config_attribute, plugin.extra_prefix + knob.name)
    return ()


def spelling(knob: Knob, catalog: KnobCatalog) -> str:
    """The setting as a user writes it: `--flag`, `kv_role` (a field of `--kv-transfer-config`),
    `kv_connector_extra_config.key`, `VLLM_X`."""
    path = json_path(knob, catalog)
    if path:
        return ".".join(path)
    return knob.name


def alternatives(knob: Knob, catalog: KnobCatalog, value: str) -> tuple[str, ...]:
    """Other ways to give a plugin package's setting `value`: its environment variable, its file."""
    plugin = _plugin(knob, catalog)
    if plugin is None:
        return ()
    found = []
    if plugin.env_prefix:
        found.append(f"`{plugin.env_prefix}{knob.name.upper()}={value}` in the environment")
    if plugin.file_env:
        found.append(f"`{knob.name}: {value}` in the {plugin.package} config file that `{plugin.file_env}` names")
    return tuple(found)


def _plugin(knob: Knob, catalog: KnobCatalog) -> PluginSettings | None:
    if knob.kind != "plugin_config":
        return None
    return next((p for p in catalog.plugin_settings if p.package == knob.detail), None)


def carrier(knob: Knob, catalog: KnobCatalog) -> str | None:
    """The JSON flag a setting is written in (`--kv-transfer-config`), None for a flag of its own
    or an environment variable."""
    if knob.kind == "config_field":
        return catalog.json_flags.get(knob.name.split(".", 1)[0])
    if json_path(knob, catalog):
        return json_flag_holding(catalog.extra_config_attribute, catalog)
    return None


def json_flag_holding(field: str, catalog: KnobCatalog) -> str | None:
    """The JSON flag whose config class has `field` (`kv_connector` -> `--kv-transfer-config`)."""
    owners = [c for c, fields in catalog.config_fields.items() if field in fields and c in catalog.json_flags]
    return catalog.json_flags[owners[0]] if len(owners) == 1 else None


def _mapping(node: ast.expr) -> ast.expr:
    """A mapping read with an empty fallback (`(a.b or {})`) is that mapping: code reads an
    optional dict setting through one."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2 and _empty(node.values[1]):
        return node.values[0]
    return node


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
    if config_class is None and field in catalog.given and _root_alias(owner, catalog):
        config_class = catalog.root  # a config the user gives or not: `self._vllm_config.speculative_config`
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


def _root_alias(name: str, catalog: KnobCatalog) -> bool:
    """Whether a name holds the root config, as code names it after its class (`_vllm_config`)."""
    return bool(catalog.root) and name.lstrip("_") == re.sub(r"(?<!^)(?=[A-Z])", "_", catalog.root).lower()


def _env_attribute(node: ast.Attribute, catalog: KnobCatalog) -> list[Knob]:
    names = _chain(node)
    if len(names) == 2 and any(m.rsplit(".", 1)[-1] == names[0] for m in catalog.env_modules):
        if names[1].isupper():
            return [Knob("env", names[1], ".".join(names))]
    return []


def _empty(node: ast.expr) -> bool:
    """`{}` or `dict()`."""
    if isinstance(node, ast.Dict):
        return not node.keys
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args and not node.keywords


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_knobs(node: ast.Call, profile: Profile) -> list[Knob]:
    func = node.func
    names = _chain(ast.Attribute(_mapping(func.value), func.attr)) if isinstance(func, ast.Attribute) else []
    key = _literal(node.args[0]) if node.args else None
    default = fast_unparse(node.args[1]) if len(node.args) > 1 else None
    detail = f"default {default}" if default is not None else ""
    if key is None or not names:
        return []
    if names[-1] in profile.extra_config_getters:
        return [Knob("extra_config", key, detail)]
    if names[-1] == "get" and len(names) >= 2 and names[-2] == profile.extra_config_attribute:
        return [Knob("extra_config", key, detail)]
    if names[-2:] == ["environ", "get"] or names[-1] == "getenv":
        return [Knob("env", key, fast_unparse(node))]
    return []


def _subscript_knobs(node: ast.Subscript, profile: Profile) -> list[Knob]:
    key = _literal(node.slice)
    mapping = _mapping(node.value)
    names = _chain(mapping) if isinstance(mapping, ast.Attribute) else []
    if key is None or not names:
        return []
    if names[-1] == profile.extra_config_attribute:
        return [Knob("extra_config", key, "")]
    if names[-1] == "environ":
        return [Knob("env", key, fast_unparse(node))]
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
