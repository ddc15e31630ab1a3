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
    # Registered names of plugins that build others of the registry as their parts (`configured.py`).
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    """A table the program looks a user's setting up in to pick a class (`{"name": ("module", "Class")}`,
    `{"name": Class}`, or an enum's `NAME = "module.Class"` constants): each class named is a plugin."""

    table: str  # qualified: `module.NAME`, `module.function.NAME`, or `module.Class` for its constants
    kind: str  # what a name is, e.g. "model architecture"
    setting: str  # where a user writes the name, e.g. "--quantization"
    module_prefix: str = ""  # a value's module not in the tree as written is `<prefix><module>`
    methods: tuple[str, ...] = ()  # methods the program calls on the class it picked
    interface: str = ""  # a base class whose own methods are all called on the class picked
    # (method, interface): the class the picked class's `method` returns is used too, its
    # interface class's methods called on it (`get_impl_cls` -> the backend's implementation)
    returned: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Decorated:
    """`@REGISTRY.<method>("name")` on a class, `REGISTRY` a module value, and the program looks the
    name up in `REGISTRY` (`REGISTRY.load(name)`): each class so registered is a plugin."""

    registry: str  # qualified module value, e.g. "pkg.video.LOADERS"
    kind: str
    setting: str
    method: str = "register"
    methods: tuple[str, ...] = ()  # methods the program calls on the class picked ((): all public ones)


@dataclass(frozen=True)
class Companions:
    """`@R.<method>(A, info=B)` on a plugin class: A and B are used whenever that plugin is (a model
    architecture's input processor, say), so they are plugins under the same names."""

    method: str  # the decorator's last name, e.g. "register_processor"
    methods: tuple[str, ...] = ()  # the companions' methods the program calls ((): all public ones)


@dataclass(frozen=True)
class EntryClass:
    """Classes whose methods a user or a framework calls directly: a public API (`LLM(...).generate`)
    or a base class whose subclasses the program dispatches to (CLI subcommands)."""

    klass: str  # qualified class
    kind: str  # entry kind, e.g. "api", "command"
    methods: tuple[str, ...] = ()  # (): `__init__` and every public method
    subclasses: bool = False  # its subclasses' methods instead of its own
    name_attribute: str = ""  # a class constant naming each one (`name = "serve"`), the setting's value
    setting: str = ""  # what the name is given as, e.g. "vllm <command>" for `vllm serve`


@dataclass(frozen=True)
class Routes:
    """Web routes: functions decorated by `<router>.<verb>("/path")` where `<router>` is a module
    value made by one of `factories` (`router = APIRouter()`)."""

    factories: tuple[str, ...]  # qualified, e.g. "fastapi.APIRouter"
    verbs: tuple[str, ...] = ("get", "post", "put", "patch", "delete", "websocket", "api_route")
    # (exception class name, HTTP status) as the server's error handlers map them, most specific
    # first; an exception none matches (along its bases) is `default_status`.
    statuses: tuple[tuple[str, int], ...] = ()
    default_status: int = 500
    request_base: str = ""  # class name of the request bodies' base: their fields are settings


@dataclass(frozen=True)
class NameCalls:
    """`obj.<method>("name", ...)` runs the method `name` of the classes under `base` (a remote
    procedure call by name: `collective_rpc("execute_model")`)."""

    method: str
    base: str  # class name
    name_arg: int = 0


@dataclass(frozen=True)
class NamedFunctions:
    """`register(name="x", func=f)` makes `<namespace>.x(...)` call `f` (custom operators)."""

    register: str  # the registering function's last name, e.g. "direct_register_custom_op"
    name: str  # its keyword giving the name (or the first positional string)
    function: str  # its keyword giving the function
    namespace: str  # what calls are written under, e.g. "torch.ops.vllm"


@dataclass(frozen=True)
class Keeps:
    """`register(op_func=f)` keeps `f` (in an operator table, a registry) without calling it: `f` runs
    later by another way in, so handing it over is no call from the registering function."""

    function: str  # the keeping function's last name, e.g. "direct_register_custom_op"
    arguments: tuple[str, ...]  # the keywords and positions ("1") that take such a function


@dataclass(frozen=True)
class Phase:
    """When and where the engine calls an entry point, for the pages' "when it happens"."""

    methods: tuple[str, ...]  # entry function names (the last part of the entry's qualified name); (): any
    when: str  # e.g. "while a request is scheduled"
    where: str  # which process, e.g. "the scheduler (engine core)"
    kinds: tuple[str, ...] = ()  # the entry kinds it is for ((): any)


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

    pattern: str  # regular expression matched against the whole code of a name or an attribute (`self.tp_size`)
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
class Platforms:
    """The platforms the project runs on, of which one is detected per process: `tests` are the
    predicates true on some of them only (`current_platform.is_rocm()`: ("rocm",)), `classes` the
    classes whose methods run on some of them only (a platform's own class, the worker class it
    picks). A call chain whose steps need two platforms that exclude each other is never taken."""

    names: tuple[str, ...]
    tests: tuple[tuple[str, tuple[str, ...]], ...] = ()
    classes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()  # how a page spells a platform: ("rocm", "ROCm")

    def shown(self, names: tuple[str, ...]) -> str:
        """`names` as a page says them: "CUDA or ROCm"."""
        labels = dict(self.labels)
        return " or ".join(labels.get(name, name) for name in names)


@dataclass(frozen=True)
class Profile:
    name: str
    package: str  # the top-level package folder, e.g. "vllm"
    distribution: str  # the name pip knows it by
    repo: str  # default GitHub OWNER/NAME for links
    default_include: tuple[str, ...]
    version_file: str  # repo-relative path of a generated version module, or ""
    registries: tuple[Registry, ...] = ()
    tables: tuple[Table, ...] = ()
    decorated: tuple[Decorated, ...] = ()
    companions: tuple[Companions, ...] = ()
    entry_classes: tuple[EntryClass, ...] = ()
    routes: Routes | None = None
    platforms: Platforms | None = None
    name_calls: tuple[NameCalls, ...] = ()
    named_functions: tuple[NamedFunctions, ...] = ()
    keeps: tuple[Keeps, ...] = ()  # functions that store a function handed to them without calling it
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
    # Fields of the engine's own request that carry what the client sent with it: a condition reading
    # one is decided by the request, not by the program's state.
    client_fields: tuple[str, ...] = ()
    resets: tuple["Reset", ...] = ()  # settings the project overrides unless another one is set
    peer_values: tuple["PeerValue", ...] = ()  # values that are the settings of either of two instances
    # Address settings of a third party that each instance itself connects to (a proxy), not of the peer
    # instance: (pattern on the setting's last name, what it names).
    relays: tuple[tuple[str, str], ...] = ()
    distributions: tuple[tuple[str, str], ...] = ()  # import root -> the name pip installs it by, when they differ
    # Two cooperating instances: pairs of patterns a message names this side and the other by
    # ("local" and "remote"); a check whose message names both compares the two instances' values.
    sides: tuple[tuple[str, str], ...] = ()
    sides_advice: str = ""  # what to make agree between the two instances when such a check fails

    def phase(self, kind: str, method: str) -> Phase | None:
        """The first phase for an entry point of this kind and method name."""
        return next((p for p in self.phases if (not p.kinds or kind in p.kinds) and (not p.methods or method in p.methods)), None)

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
