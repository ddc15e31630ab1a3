"""Project profiles: what errscan knows about one codebase, kept apart from the generic analysis.

A profile names the package to read, the GitHub repo for links, the default catalogue scope and how
the project records its version and commit. Project-specific facts used by later stages (registries,
config classes, CLI flags) live in the same module as the profile itself.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class VersionInfo:
    version: str | None
    commit: str | None


@dataclass(frozen=True)
class Registry:
    """Calls like `Factory.register("Name", "pkg.module", "Class")` that name pluggable classes."""

    method: str  # `Class.method` of the registering call, matched on the resolved callee's tail
    name_arg: int
    module_arg: int
    class_arg: int
    kind: str  # what a registered name is called in the docs, e.g. "connector"


@dataclass(frozen=True)
class Phase:
    """When and where the engine calls an entry point, for the pages' "when it happens"."""

    methods: tuple[str, ...]  # entry function names (the last part of the entry's qualified name)
    when: str  # e.g. "while a request is scheduled"
    where: str  # which process, e.g. "the scheduler (engine core)"


@dataclass(frozen=True)
class Place:
    """Which process runs some code, told by a pattern in its chain's condition or its function."""

    pattern: str  # regular expression searched in a chain's condition and the raising function's name
    where: str


@dataclass(frozen=True)
class Phrase:
    """What a piece of code in a condition means to a user: a property of the model, say."""

    pattern: str  # regular expression, matched against the whole code of a condition's part
    words: str  # a true-or-false statement ("the model uses MLA attention") or, with `noun`, a value
    negated: str = ""  # the statement's opposite
    noun: bool = False
    avoid: str = ""  # what a user can do when the statement is what makes the error fire
    model: str = ""  # a real model with this property, for an example command


@dataclass(frozen=True)
class PeerValue:
    """A value in the code that is a setting of one of two cooperating instances: the local one's
    or the one it talks to (its peer), which the user sets on that instance's command line."""

    pattern: str  # regular expression matched against the whole code of the value
    setting: str  # as the user writes it: "--tensor-parallel-size"
    side: str  # "this instance", "the other instance"
    minimum: int = 1  # the smallest value the setting takes


@dataclass(frozen=True)
class Reset:
    """A setting the project puts back to `kept` unless `needs` (setting, value) are given too:
    a fix giving it another value must give those as well."""

    setting: str  # as the user writes it: "--mamba-cache-mode"
    kept: str  # the value it is reset to
    needs: tuple[tuple[str, str], ...]
    why: str  # where the project does it, for the fix's text


@dataclass(frozen=True)
class PluginSettings:
    """A plugin package's own configuration object, which vLLM hands settings to."""

    package: str  # e.g. "LMCache"
    pattern: str  # regular expression for code reading one setting; group 1 is the setting's name
    extra_prefix: str = ""  # extra-config keys `<prefix><name>` set it from the program's config
    env_prefix: str = ""  # environment variables `<PREFIX><NAME>` set it
    file_env: str = ""  # the environment variable naming the package's own config file


@dataclass(frozen=True)
class Profile:
    name: str
    package: str  # the top-level package folder, e.g. "vllm"
    distribution: str  # the name pip knows it by
    repo: str  # default GitHub OWNER/NAME for links
    default_include: tuple[str, ...]
    version_file: str  # repo-relative path of a generated version module, or ""
    registries: tuple[Registry, ...] = ()
    interface_bases: tuple[str, ...] = ()  # class names whose methods the core calls on plugins
    plugin_package: str = ""  # module prefix of the plugins; calls from outside it are "core"
    config_package: str = ""  # module prefix of config classes (validation entry points)
    root_config: str = ""  # class name of the config that holds all others, e.g. "VllmConfig"
    cli_args_classes: tuple[str, ...] = ()  # dataclasses whose fields become `--flags`
    env_modules: tuple[str, ...] = ()  # modules whose attributes are environment variables
    extra_config_attribute: str = ""  # a dict of free-form plugin settings
    extra_config_getters: tuple[str, ...] = ()  # methods reading it: `get_from_extra_config(k, d)`
    log_helpers: tuple[tuple[str, str], ...] = ()  # the project's own logger methods: (name, level)
    phases: tuple[Phase, ...] = ()
    places: tuple[Place, ...] = ()  # first match wins; else the phase's own `where`
    plugin_settings: tuple[PluginSettings, ...] = ()
    vocabulary: tuple[Phrase, ...] = ()
    environment_exceptions: tuple[str, ...] = ()  # the project's exceptions about peers, devices, files
    # What a handler builds to answer a peer or client with an error (a class or function name, the
    # last part of the dotted callee): the exception then surfaces as that response.
    error_responses: tuple[str, ...] = ()
    # Exceptions and responses that carry an HTTP status (`HTTPException(status_code=500, ...)`).
    http_errors: tuple[str, ...] = ()
    title: str = ""  # the project as users name it, e.g. "vLLM"
    launch_command: str = ""  # how a user starts the program, e.g. "vllm serve MODEL"
    plugin_setting: str = ""  # the JSON config field that names the plugin, e.g. "kv_connector"
    plugin_setting_defaults: tuple[tuple[str, str], ...] = ()  # other fields an example command needs
    plugin_module_setting: str = ""  # the field that loads a plugin from the user's own module
    report_command: str = ""  # prints the version and environment a bug report needs
    resets: tuple["Reset", ...] = ()  # settings the project overrides unless another one is set
    peer_values: tuple["PeerValue", ...] = ()  # values that are the settings of either of two instances
    distributions: tuple[tuple[str, str], ...] = ()  # import root -> the name pip installs it by, when they differ

    def read_version(self, text: str) -> VersionInfo:
        """Version and commit from the version module's source, read as data (never imported)."""
        values = _string_assignments(text)
        version = values.get("__version__") or values.get("version")
        commit = values.get("__commit_id__") or values.get("commit_id")
        return VersionInfo(version=version, commit=normalize_commit_id(commit))


def normalize_commit_id(raw: str | None) -> str | None:
    """setuptools-scm writes `g<sha>`; the sha is what links need."""
    if not raw:
        return None
    raw = raw.strip()
    if raw.startswith("g") and _is_hex(raw[1:]):
        raw = raw[1:]
    return raw.lower() if _is_hex(raw) else None


def _is_hex(text: str) -> bool:
    return len(text) >= 7 and all(c in "0123456789abcdefABCDEF" for c in text)


def _string_assignments(text: str) -> dict[str, str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            if not isinstance(node.value.value, str):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found
