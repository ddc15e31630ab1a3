"""What one module says, as `collect.py`'s walk of its `ast` finds it: plain frozen records.

Scopes are named like Python's `__qualname__` (`Class.method`, `outer.<locals>.inner`, `""` for the
module), and every call, return, `append` and raise/assert statement carries its path condition
within its function. The records are small and picklable: workers send them, the cache keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from errscan.extract.conditions import Condition


@dataclass(frozen=True)
class FieldFact:
    name: str
    annotation: str | None  # dotted, outer generic stripped: `list[X]` -> `list`
    default: str | None  # the default's source when it is a dotted name (`ParallelConfig.x`)
    literal: str | None = None  # the default's source when it is a constant (`'none'`, `1`, `True`)
    init: bool = True  # False for `field(..., init=False)`: no parameter of a dataclass' `__init__`, set by the class itself


@dataclass(frozen=True)
class ClassFact:
    qualname: str  # fully qualified: module.Class
    bases: tuple[str, ...]  # as written, dotted ("Base", "errors.KVError")
    line: int
    decorators: tuple[str, ...] = ()
    fields: tuple[FieldFact, ...] = ()  # annotated class-level names (dataclass fields)
    methods: tuple[str, ...] = ()  # names of the functions defined in the class body
    # The names the body binds to constants (`A = 0`, `B = auto()`), in order: an Enum's members.
    # None when it binds a name any other way too, so that its members are not all written down.
    constants: tuple[str, ...] | None = ()


@dataclass(frozen=True)
class FunctionFact:
    qualname: str  # fully qualified: module.Class.method
    scope: str  # the module-relative scope: Class.method
    line: int
    params: tuple[tuple[str, str | None], ...]  # (name, annotation dotted)
    decorators: tuple[str, ...]
    docstring: str | None
    class_qualname: str | None  # the class it is a method of
    returns: str | None = None  # return annotation, dotted, `X | None` stripped to X
    returns_class: str | None = None  # `-> type[X]`: X, the class (or a subclass of it) returned itself
    positional: int = 0  # how many of `params` may be passed by position (the rest are keyword-only)
    defaults: tuple[tuple[str, str], ...] = ()  # (parameter, its default) where the default is a constant
    rebound: tuple[str, ...] = ()  # parameters the body assigns again
    named_defaults: tuple[tuple[str, str], ...] = ()  # (parameter, its default) where the default names a function or class
    nullable: tuple[str, ...] = ()  # parameters annotated `X | None` or `Optional[X]` (`params` holds X alone)
    returns_none: bool = False  # the return annotation lets None in (`returns` holds X alone)
    # (parameter, annotation dotted) where the annotation is a plain dotted name (neither `X | None`
    # nor `Optional[X]`) and there is no default: what a typed caller passes it is never None
    typed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CallFact:
    caller: str  # module-relative scope of the calling function ("" for module level)
    callee: str  # the called expression as dotted text: "f", "self.m", "super().m", "mod.C"
    line: int
    condition: Condition
    literal_args: tuple[str | None, ...]  # string-literal positional arguments, None for others
    # The callee's head is a local bound to names: the callee through each binding, and when it
    # was made (None where a binding is not a plain name, such as a call's result).
    aliases: tuple[tuple[str | None, Condition], ...] = ()
    # "call": a call; "reference": a function passed as a value (`Thread(target=self.run)`) or
    # registered by a decorator call (`@app.post("/x")`), which the receiver calls later; "read":
    # `self.a.b` read, which calls a property's getter.
    kind: str = "call"
    # The call this value (or this call's result) is an argument of, as `callee:position` or
    # `callee:keyword`: `threading.Thread:target`, `loop.run_in_executor:1`, `asyncio.create_task:0`.
    passed_to: str | None = None
    literal_keywords: tuple[tuple[str, str], ...] = ()  # string-literal keyword arguments: (keyword, value)
    # The arguments as `argument_text` writes them (a reference's: those of the call it is passed
    # to): what a chain carries into the callee's parameters. `**` names a `**kwargs` keyword.
    arguments: tuple[str, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()
    # An argument written `C(...)` for a local (or `self.x`) that holds what `C` gave it: its
    # position (or keyword) and that local, which the call's condition reads by its value.
    built: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ReturnFact:
    scope: str
    value: str | None  # dotted text of the returned value, if it is a name
    line: int
    condition: Condition
    deep: str | None = None  # a returned local's assigned values, as one tuple expression: `(a, f(),)`
    made: str | None = None  # `return C(...)`: the callee, dotted (a parameter's default class for a parameter)
    expression: str = "None"  # the returned expression, the function's once-bound locals substituted


@dataclass(frozen=True)
class AppendFact:
    scope: str
    target: str  # the list's local name
    argument: str  # the appended expression's source
    line: int
    condition: Condition


@dataclass(frozen=True)
class AttributeType:
    class_scope: str  # module-relative class scope
    attribute: str
    type: str  # dotted, as written; "" for a value of no known type (`self.x = other.y`); "None" for None
    from_call: bool = False  # `type` is a called function's name: the attribute holds what it returns
    scope: str = ""  # where it is written (its imports name the type); the class body if ""
    given: bool = False  # a parameter's value, typed by its annotation: any subclass of it may come
    # The value builds objects of `type` (a call of it, `from_call`) inside a list, a dict, a
    # comprehension or a lambda, or `type` is a factory function handed along: the attribute holds
    # a container (`nn.ModuleList`, `make_layers(...)`) of such objects, its elements.
    element: bool = False
    # What chose this class for it beyond what holds at that point of the method's own body: the
    # test a local alias was bound under (`if native: cls = Native`), an `if` around the assignment.
    condition: Condition = ()


@dataclass(frozen=True)
class AttributeRead:
    """`self.x = cfg.a.b` or `self.x = d.get("key", default)` in a method: where the attribute's
    value comes from, so that a guard on `self.x` elsewhere can name the setting behind it."""

    class_scope: str  # module-relative class scope
    attribute: str
    source: str  # the value's code
    scope: str = ""  # for a plain name (a parameter's value), the method that assigns it


@dataclass(frozen=True)
class AttributeDefault:
    """`self.x = ...` in a method under a test of `self.x` itself (`if self.x is None: self.x =
    str(uuid4())`): the code gives the attribute a value of its own when it has none."""

    scope: str  # module-relative scope of the method
    attribute: str  # "engine_id", or "scheduler_config.x" for `self.scheduler_config.x`
    test: str  # the term that tests it, as written: "self.engine_id is None"


@dataclass(frozen=True)
class AttributeStore:
    """`x.a = v` (or `+=`, `del`, a `for` or `with` target, `setattr(x, "a", v)`): a write of
    attribute `a` of the object `receiver` names (`stores.py`)."""

    scope: str
    receiver: str  # as written, dotted: "self", "self.w"; "" when not a dotted name
    attribute: str  # "*": a name computed, or a write through `__dict__` or `vars()`
    line: int
    value: str = ""  # the name assigned, when a plain name is (`self.a = engine`)
    always: bool = False  # a statement of its function's own body (in no branch, loop, `with` or `try`)


@dataclass(frozen=True)
class AttributeFill:
    """A use of attribute `attribute` that may fill it (`fills.py`), or a store of an empty
    collection in it (`empty`: `[]`, `{}`, `set()`, as written); "*" for any attribute."""

    attribute: str
    line: int
    empty: str = ""


@dataclass(frozen=True)
class FirstCall:
    """`x = C(...)` followed, as the very next statement, by `x.m(...)` with plain arguments: the
    first thing done with the new object, before it is handed on or any other method of it runs."""

    scope: str
    line: int  # of `C(...)`
    made: str  # C, as written
    call_line: int  # of `x.m(...)`
    method: str

    def moved(self, delta: int) -> "FirstCall":
        return replace(self, line=self.line + delta, call_line=self.call_line + delta)


@dataclass(frozen=True)
class TableFact:
    """`NAMES = {"key": value, ...}`, or a class's `KEY = "value"` constants (`name` ""): a table
    a program may look a user's setting up in to pick a class. A value is kept when it is a string,
    a tuple of strings or a dotted name; `**OTHER` entries are `includes`."""

    scope: str  # where it is bound: "" for the module, "Class", "function"
    name: str
    keys: tuple[str, ...]
    strings: tuple[tuple[str, ...], ...]  # per key: the value's strings (empty for a name)
    names: tuple[str | None, ...]  # per key: the value's dotted name, if it is one
    includes: tuple[str, ...] = ()


@dataclass(frozen=True)
class HandlerAction:
    """One thing an `except` body does that decides what becomes of the exception it caught."""

    kind: str  # "raise" (a new exception), "reraise" (the caught one again), "log", "call", "exit" (return, pass, ...)
    line: int
    name: str | None = None  # raise: the exception as written; log: the level; call: the callee, dotted
    message: str | None = None  # raise, log: the source of the message argument
    args: tuple[str, ...] = ()  # log: the sources of the further (`%`-style) arguments
    status: int | None = None  # an integer `status_code=` / `status=` / first argument: an HTTP status
    conditional: bool = False  # inside an `if`, a loop, a `with` or a `try` of the handler: it may not run


@dataclass(frozen=True)
class HandlerFact:
    types: tuple[str, ...]  # the caught classes as written, dotted; () for a bare `except:`
    name: str | None  # `as e`
    line: int
    end_line: int
    actions: tuple[HandlerAction, ...]  # in source order, nested functions left out


@dataclass(frozen=True)
class TryFact:
    """A `try` with handlers: an exception raised on its body's lines (in `scope`) meets them."""

    scope: str
    line: int  # the body's first line
    end_line: int  # the body's last line (`else` and `finally` are not guarded)
    handlers: tuple[HandlerFact, ...]
    # (attribute, via): the `self.x` its body reads, and those carried in by the locals passed to its
    # calls; `via` is the call and argument (`client.post:0`), "" outside any argument (`tried.py`)
    reads: tuple[tuple[str, str], ...] = ()

    def moved(self, delta: int) -> "TryFact":
        handlers = tuple(
            replace(h, line=h.line + delta, end_line=h.end_line + delta,
                    actions=tuple(replace(a, line=a.line + delta) for a in h.actions))
            for h in self.handlers
        )
        return replace(self, line=self.line + delta, end_line=self.end_line + delta, handlers=handlers)


SITE_KINDS = frozenset({"raise", "assert", "log"})  # the statement kinds that are catalogued


@dataclass(frozen=True)
class StatementPosition:
    """A `raise`, `assert` or log statement; `kind` tells which and whether it is a site."""

    line: int
    col: int
    end_line: int
    kind: str  # "raise" | "reraise" | "assert" | "assert-nomsg" | "log" (see logcalls.py)
    condition: Condition = ()
    partial: tuple[str, ...] = ()  # steps on the way that were not understood


@dataclass(frozen=True)
class ModuleFacts:
    module: str
    is_package: bool
    imports: dict[str, dict[str, str]]  # scope -> local name -> imported dotted target
    local_defs: frozenset[str]  # module-level names bound by def, class, assignment or import
    classes: tuple[ClassFact, ...]
    statements: tuple[StatementPosition, ...]  # every raise/assert/log call, in source order
    functions: tuple[FunctionFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    returns: tuple[ReturnFact, ...] = ()
    appends: tuple[AppendFact, ...] = ()
    attribute_types: tuple[AttributeType, ...] = ()
    attribute_reads: tuple[AttributeRead, ...] = ()
    attribute_defaults: tuple[AttributeDefault, ...] = ()
    module_values: dict[str, str] | None = None  # module-level `X = call()` / `X = Y` ("None": an import's fallback): X -> source
    tables: tuple[TableFact, ...] = ()
    tries: tuple[TryFact, ...] = ()  # every `try` with handlers, in source order
    # Module-level names that imports in other branches bind to other targets (`if rocm: from .amd
    # import M` / `else: from .nvidia import M`): name -> every target, in source order.
    alternatives: dict[str, tuple[str, ...]] | None = None
    # Every module an import statement loads (its packages too) and the condition it runs under
    # (deep code, None when it always runs): which platforms may load a module (`analysis/platforms.py`).
    imported: tuple[tuple[str, str | None], ...] = ()
    attribute_stores: tuple[AttributeStore, ...] = ()
    first_calls: tuple[FirstCall, ...] = ()
    attribute_fills: tuple[AttributeFill, ...] = ()
    # (scope, dotted name, condition `deep` code or None) of a capitalised name (a class, by convention)
    # held as a value: an item of a list, tuple, set or dict display, a branch of a conditional
    # expression, an operand of `or`/`and`, or assigned (`_CLASSES = {A, B}`, `A if x else B`): a
    # class the code may build later.
    values: tuple[tuple[str, str, str | None], ...] = ()

    def lookup(self, scope: str) -> dict[str, str]:
        """Imports visible in `scope`: the module's, overridden by enclosing functions' own."""
        visible = dict(self.imports.get("", {}))
        parts = scope.split(".") if scope else []
        for i in range(1, len(parts) + 1):
            visible.update(self.imports.get(".".join(parts[:i]), {}))
        return visible
