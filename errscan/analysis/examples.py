"""Example commands: one that reaches an error and the same with its fix, on a real model where a
property of the model decides; and the settings a fix needs because the project resets it otherwise."""

from __future__ import annotations

from errscan.analysis.chains import Reach
from errscan.analysis.commands import Setting, command, failing_values, shown
from errscan.analysis.entries import Entry
from errscan.analysis.knobs import KnobCatalog, json_flag_holding
from errscan.analysis.ways import Way, positive_parts
from errscan.analysis.wording import phrase_for
from errscan.graph.index import MODULE_CODE
from errscan.model import ErrorSite, Example, Fix, Knob
from errscan.profiles import Profile


class Examples:
    def __init__(self, catalog: KnobCatalog, profile: Profile):
        self.catalog = catalog
        self.profile = profile

    def plugin(self, connector: str | None) -> tuple[str, dict[str, str]] | None:
        """The JSON flag naming the plugin, with the fields an example command needs."""
        flag = json_flag_holding(self.profile.plugin_setting, self.catalog) if self.profile.plugin_setting else None
        if connector is None or flag is None:
            return None
        return flag, {self.profile.plugin_setting: connector, **dict(self.profile.plugin_setting_defaults)}

    def example(self, error: ErrorSite, ways: list[Way], fixes: tuple[Fix, ...], path: Way | None) -> Example | None:
        way = next((w for w in ways if w.settings), None)
        if way is None or not fixes or not self.profile.launch_command or any(s.side for s in way.settings):
            return None  # two instances' settings: one command cannot show them
        condition = f"({way.condition}) and ({way.stated})" if way.stated else way.condition
        fixed = {f.setting: f.value for f in fixes if f.value is not None}
        reached = [s for s in way.settings if s.name in fixed]
        failing = failing_values(condition, reached)
        if failing is None:
            return None
        held = self._held(condition, [s for s in way.settings if s not in reached])
        if held is None:
            return None  # the way also needs a config errscan cannot write: a command without it would not fire
        connector = error.trigger.connectors[0] if error.trigger and error.trigger.connectors else None
        # A setting whose default already fails is left out of the first command, as users do.
        before_values = {s: None if failing[s.code] == s.default else shown(failing[s.code], s) for s in reached}
        after_values = {s: fixed[s.name] for s in reached}
        fix = next((f for f in fixes if f.setting in fixed and any(s.name == f.setting for s in reached)), None)
        for name, value in fix.others if fix else ():  # what the fix needs together with its setting
            after_values[_flag_setting(name)] = value
        for setting, value in held.items():
            before_values[setting] = after_values[setting] = value
        for setting, value in self._on_the_way(path).items():
            if setting not in before_values:
                before_values[setting] = after_values[setting] = value
        launch = self.launch(way)
        before = command(launch, before_values, self.plugin(connector))
        after = command(launch, after_values, self.plugin(connector))
        return Example(before, after) if before != after else None

    def reproduce(self, error: ErrorSite, ways: list[Way], path: Way | None) -> str | None:
        """The launch command with the plugin that reaches the error and the settings its shortest
        chain needs: the configuration a report gives, where no setting decides the error itself."""
        connector = error.trigger.connectors[0] if error.trigger and error.trigger.connectors else None
        plugin = self.plugin(connector)
        values = self._on_the_way(path)
        if not self.profile.launch_command or (plugin is None and not values):
            return None
        return command(self.launch(ways[0]) if ways else self.profile.launch_command, values, plugin)

    def _held(self, condition: str, others: list[Setting]) -> dict[Setting, str] | None:
        """Values of the way's settings that no fix changes but that must leave their default for the
        error to fire (`kv_role` "kv_consumer" beside the pipeline size a fix changes): both commands
        give them. None when one of them is a whole config errscan knows no document for
        (`--speculative-config` set, for a check after `assert speculative_config is not None`)."""
        if any(failing_values(condition, [s]) is None for s in others if s.whole):
            return None  # its one candidate, leaving it out, cannot fire
        needed = failing_values(condition, others) if others else None
        if needed is None:
            return {}  # no values the solver could name: the commands show the fixed settings alone
        changed = [s for s in others if s.code in needed and needed[s.code] != s.default]
        if any(s.whole for s in changed):
            return None
        return {s: shown(needed[s.code], s) for s in changed}

    def _on_the_way(self, path: Way | None) -> dict[Setting, str]:
        """Values of the settings the shortest chain needs (`"use_native": true`), those not at their default."""
        if path is None:
            return {}
        needed = failing_values(path.condition, list(path.settings), dict(self.profile.plugin_setting_defaults))
        return {s: shown(needed[s.code], s) for s in path.settings
                if needed and s.code in needed and needed[s.code] != s.default}

    def launch(self, way: Way) -> str:
        """The launch command with a real model where a property of the model decides the way in."""
        models = [p.model for part in positive_parts(way.condition) if (p := phrase_for(part, self.profile.vocabulary)) and p.model]
        launch = self.profile.launch_command
        return launch.replace("MODEL", models[0]) if models and "MODEL" in launch else launch

    def needs(self, setting: Setting, value: str) -> tuple[tuple[str, str], ...]:
        """Settings a fix must give too, because the project resets this one without them."""
        return next((r.needs for r in self.profile.resets if r.setting == setting.name and r.kept != value), ())

    def reset_words(self, names: list[str]) -> str:
        return "; ".join(r.why for r in self.profile.resets if r.setting in names)


def _flag_setting(name: str) -> Setting:
    """A flag a fix adds by name, for the example command."""
    return Setting(name, Knob("cli_flag", name, ""), name, None)


def run_as_main(found: Reach) -> str | None:
    """`python -m M` where the nearest entry is module M run as a program (`if __name__ == "__main__"`):
    a server of the package that the user starts themselves."""
    return next((program for c in found.chains if (program := program_of(c.entry)) is not None), None)


def program_of(entry: Entry) -> str | None:
    """`python -m M` for an entry that is module M's own code run as a program, else None."""
    if entry.kind != "main" or not entry.node.endswith(f".{MODULE_CODE}"):
        return None
    return f"python -m {entry.node.rsplit('.', 1)[0]}"
