"""The settings in an error's ways in: which values of a condition the user controls, and the
settings a class reads that point at something outside (an address, a port, a path).

A value is a setting when the knob rules recognise it (docs/conditions.md), or when it is a
`self.x` that a method of the class set from one, or the setting of this instance or its peer
(the profile's `peer_values`); a message that names a config field as the cause adds it.
"""

from __future__ import annotations

import ast
import re

from errscan.analysis.commands import Setting
from errscan.analysis.knobs import KnobCatalog, carrier, default_of, json_path, knobs_at, settled, spelling
from errscan.analysis.named import decided
from errscan.analysis.solver import Value
from errscan.analysis.ways import Way
from errscan.extract.astutil import walk
from errscan.extract.conditions import Condition, parse_expression, render
from errscan.extract.unparse import fast_unparse
from errscan.model import ErrorSite, Knob
from errscan.profiles import Profile

_KNOB_ORDER = {"cli_flag": 0, "extra_config": 1, "plugin_config": 2, "env": 3, "config_field": 4}
_STATED = re.compile(r"\b([a-z_][a-z0-9_]*) (!=|==) ('[^']*'|\d+|True|False)")  # `mode != 'align'` in a message


class SettingFinder:
    """Settings in conditions, for one package's knob catalog; built once."""

    def __init__(self, catalog: KnobCatalog, profile: Profile):
        self.catalog = catalog
        self.profile = profile
        self.config_of_field: dict[str, list[str]] = {}
        for config_class, fields in catalog.config_fields.items():
            for field in fields:
                self.config_of_field.setdefault(field, []).append(config_class)
        self.attribute_of_config = {c: a for a, c in catalog.config_attributes.items()}
        self._read: dict[str, tuple[Setting, ...]] = {}  # see `_read_in`

    def ways(
        self, error: ErrorSite, own: Condition, contributions: list[tuple[str, str, str]],
        class_settings: dict[str, list[str]],
    ) -> list[Way]:
        """The error's own condition as one way in, or one for each part an accumulated message adds."""
        if not contributions:
            condition = render(own, "deep")
            return [self.way(condition, error.message, class_settings)] if condition else []
        shared = render(own[:-1], "deep")
        ways = []
        for _, deep, text in contributions:
            condition = f"({shared}) and ({deep})" if shared else deep
            ways.append(self.way(condition, text, class_settings, part=True))
        return ways

    def way(self, condition: str, message: str, class_settings: dict[str, list[str]], part: bool = False) -> Way:
        condition = self.settled(condition, class_settings)
        settings = self.settings_in(condition, class_settings)
        stated = self._stated(message)
        if stated is not None:
            setting, code = stated
            return Way(condition, tuple(dict.fromkeys((*settings, setting))), code, message if part else "", message)
        return Way(condition, settings, part=message if part else "", message=message)

    def settled(self, condition: str, class_settings: dict[str, list[str]]) -> str:
        """The condition without its None tests of settings the program fills when they are unset."""
        def filled(node: ast.expr) -> bool:
            setting = self.setting_at(node, class_settings)
            return setting is not None and decided(setting.knob, self.catalog)

        return settled(condition, filled)

    def settings_in(self, condition: str, class_settings: dict[str, list[str]]) -> tuple[Setting, ...]:
        tree = parse_expression(condition)
        if tree is None:
            return ()
        found: dict[str, Setting] = {}
        unread = {id(n) for iterable in _unread_iterables(tree) for n in ast.walk(iterable)}
        for node in ast.walk(tree):  # breadth-first: an attribute before its object
            setting = self.setting_at(node, class_settings) if id(node) not in unread else None
            if setting is not None:
                found.setdefault(setting.code, setting)
                if isinstance(node, ast.Attribute):  # `cfg.speculative_config` is read to reach `.method`
                    unread.add(id(node.value))
        return tuple(found.values())

    def setting_at(self, node: ast.AST, class_settings: dict[str, list[str]]) -> Setting | None:
        """The setting this node reads: directly, or `self.x` that a method of the class set from one."""
        knobs = knobs_at(node, self.catalog, self.profile)
        if not knobs and _self_attribute(node) in class_settings:
            sources = class_settings[_self_attribute(node)]  # type: ignore[index]
            read = {k for s in sources if (tree := parse_expression(s)) is not None for k in knobs_at(tree, self.catalog, self.profile)}
            knobs = sorted(read, key=lambda k: k.kind) if len({k.name for k in read if k.kind != "cli_flag"}) == 1 else []
        knobs = [k for k in knobs if k.kind in _KNOB_ORDER]
        if not knobs:
            return self._peer_value(node)
        knob = min(knobs, key=lambda k: _KNOB_ORDER[k.kind])
        written_default = default_of(knob, self.catalog)
        default = _literal(written_default) if written_default is not None else None
        return Setting(
            fast_unparse(node), knob, spelling(knob, self.catalog), carrier(knob, self.catalog),
            json_path(knob, self.catalog), default, whole=knob.kind == "cli_flag" and knob.name in self.catalog.json_flags.values(),
        )

    def read_by_class(self, class_settings: dict[str, list[str]], named: re.Pattern[str]) -> list[Setting]:
        """The settings the class reads whose own name matches `named` (an address, a path), by name;
        not a flag that only allows or turns something on (its default is a boolean)."""
        found: dict[str, Setting] = {}
        for sources in class_settings.values():
            for source in sources:
                for setting in self._read_in(source):
                    if named.search(setting.name.rsplit(".", 1)[-1].lstrip("-")) and not isinstance(setting.default, bool):
                        found.setdefault(setting.name, setting)
        return [found[name] for name in sorted(found)]

    def _read_in(self, source: str) -> tuple[Setting, ...]:
        """The settings the expression `source` reads, in the order of `ast.walk`: kept, as the
        classes on the chains of many errors share their sources."""
        known = self._read.get(source)
        if known is None:
            tree = parse_expression(source)
            settings = (self.setting_at(node, {}) for node in (ast.walk(tree) if tree is not None else ()))
            known = self._read[source] = tuple(s for s in settings if s is not None)
        return known

    def _peer_value(self, node: ast.AST) -> Setting | None:
        """A value that is the setting of this instance or of its peer (see the profile): a name or
        an attribute read, never a whole condition (long to print) nor a lambda's parameter."""
        if type(node) is not ast.Name and type(node) is not ast.Attribute:
            return None
        code = fast_unparse(node)
        peer = next((p for p in self.profile.peer_values if re.fullmatch(p.pattern, code)), None)
        if peer is None:
            return None
        return Setting(code, Knob("cli_flag", peer.setting, f"of {peer.side}"), peer.setting, None, side=peer.side)

    def _stated(self, message: str) -> tuple[Setting, str] | None:
        """`(mamba_cache_mode != 'align')` in the message: a config field the code names as the cause."""
        for name, op, value in _STATED.findall(message):
            owners = self.config_of_field.get(name, [])
            if len(owners) != 1 or owners[0] not in self.attribute_of_config:
                continue
            code = f"config.{self.attribute_of_config[owners[0]]}.{name}"
            setting = self.setting_at(ast.parse(code, mode="eval").body, {})
            if setting is not None:
                return setting, f"{code} {op} {value}"
        return None


def _unread_iterables(tree: ast.expr) -> list[ast.expr]:
    """The iterables of the loops in `tree` whose items the test never reads (`any(T for r in
    ranks(tp))`, T not reading `r`): they only repeat one test, so what they are computed from
    decides nothing of it (only whether there is an item at all)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            for position, generator in enumerate(node.generators):
                targets = {n.id for n in walk(generator.target) if isinstance(n, ast.Name)}
                later = [node.elt, *generator.ifs, *(part for g in node.generators[position + 1:] for part in (g.iter, *g.ifs))]
                if not targets & {n.id for part in later for n in walk(part) if isinstance(n, ast.Name)}:
                    found.append(generator.iter)
    return found


def _self_attribute(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _literal(text: str) -> Value:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, (bool, int, str)) else None
