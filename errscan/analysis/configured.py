"""One configured plugin per chain: the classes a chain looks up at run time by the configured name
(`entries.plugin_lookups`) are all that plugin's, as each lookup reads the same setting. A group
plugin (the profile's `Registry.groups`) builds other plugins as its parts, each with its own
configuration, while the process's still names the group: a part's method may then look up the group."""

from __future__ import annotations

from errscan.analysis.declared import short_name
from errscan.analysis.entries import Plugin
from errscan.graph.calls import CallGraph
from errscan.profiles import Profile


class Configured:
    def __init__(self, graph: CallGraph, plugins: list[Plugin], profile: Profile):
        self.graph = graph
        self.plugins = tuple(plugins)
        self.groups = tuple(p for p in plugins for r in profile.registries if p.kind == r.kind and p.name in r.groups)
        self._apart: dict[tuple[str, str], str | None] = {}

    def apart(self, looked_up: str, later: str) -> str | None:
        """Why a chain that looks up a class whose method is `looked_up` cannot look up, later on
        the same way, one whose method is `later` (None when it may): no plugin resolves to both,
        and no group resolves to `later`. A method no plugin resolves to rules nothing out."""
        key = (looked_up, later)
        if key not in self._apart:
            self._apart[key] = self._why(looked_up, later)
        return self._apart[key]

    def _why(self, looked_up: str, later: str) -> str | None:
        holders = [p for p in self.plugins if self._resolves(p, looked_up)]
        if not holders or any(self._resolves(p, later) for p in holders + list(self.groups)):
            return None
        names = ", ".join(sorted({f"`{p.name}`" for p in holders}))
        setting = f"`{holders[0].setting}`" if holders[0].setting else "the setting"
        return (f"`{short_name(looked_up)}` runs for the class {setting} names ({names}), and `{short_name(later)}` is "
                f"looked up later by the same setting: no {holders[0].kind} runs both, nor does a group of them")

    def _resolves(self, plugin: Plugin, method: str) -> bool:
        return self.graph.lookup_method(plugin.klass, method.rsplit(".", 1)[1]) == method
