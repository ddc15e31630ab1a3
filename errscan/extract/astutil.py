"""Small rules about Python source and its syntax trees, kept once for every walk in `extract`."""

from __future__ import annotations

import ast
from collections import Counter, deque
from typing import Iterator, Sequence

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)  # code that runs later, if ever


def walk_own(node: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk` in source order, not into nested functions, classes and lambdas."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed([c for c in ast.iter_child_nodes(current) if not isinstance(c, SCOPES)]))


# Fields that never hold a node a walk looks at: strings, flags, the leaf nodes of context and
# operators, and an import's `alias`es. (Not `name`: a `type X = ...` statement's is an expression.)
_SCALAR_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "arg", "names", "module", "level", "conversion",
    "is_async", "kind", "type_comment", "simple",
})
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}  # node type -> its fields that may hold nodes worth a walk


def node_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold expressions or statements, in `_fields` order:
    a walk that reads them skips the `Load`/`Store` and operator leaves that are a third of a tree."""
    fields = _NODE_FIELDS.get(kind)
    if fields is None:
        fields = _NODE_FIELDS[kind] = tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)
    return fields


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `ast.walk(node)`, in no set order, less the `Load`/`Store`, operator and `alias`
    leaves (`node_fields`): for the many walks that look for names, attributes or calls, at twice the speed."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack += children(node)


def walk_breadth(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `ast.walk(node)` in its order (breadth first), less the leaves `walk` leaves
    out: for the walks whose order shows in what they find, cheaper than `ast.walk` by those leaves."""
    queue = deque([node])
    while queue:
        node = queue.popleft()
        queue.extend(children(node))
        yield node


def children(node: ast.AST) -> list[ast.AST]:
    """A node's children in source order, less the leaves `node_fields` leaves out."""
    found: list[ast.AST] = []
    for field in node_fields(type(node)):
        value = getattr(node, field, None)
        if type(value) is list:
            found += [item for item in value if isinstance(item, ast.AST)]
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


_BLOCK_ORDER = ("body", "handlers", "orelse", "finalbody", "cases")
_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {}  # statement type -> its fields that hold blocks


def source_lines(text: str) -> list[str]:
    """The lines of `text` without their ends, split where the tokenizer counts a new line:
    `\\r\\n`, `\\n` or `\\r`. (`str.splitlines` also splits at form feeds and other breaks, and
    then line N of an `ast` node is not `lines[N - 1]`.)"""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the end of the last line, not a line
    return lines


def first_line(stmt: ast.stmt) -> int:
    """A statement's first line: its first decorator's, if it has any."""
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


def child_blocks(stmt) -> list:
    """The blocks a compound statement holds, in source order: body, except handlers, `else`,
    `finally`, match cases. An `ast` block is a list of statements (empty where there is none);
    libcst names the same fields, and gives a suite, an `Else` or `Finally`, or the `If` of an `elif`."""
    fields = _BLOCK_FIELDS.get(type(stmt))
    if fields is None:  # looked up once a type: most statements have none, and this runs for each
        fields = _BLOCK_FIELDS[type(stmt)] = tuple(f for f in _BLOCK_ORDER if hasattr(stmt, f))
    blocks = []
    for field in fields:
        value = getattr(stmt, field)
        if field in ("handlers", "cases"):
            blocks.extend(part.body for part in value)
        elif value is not None:
            blocks.append(value)
    return blocks


def always_exits(body: list[ast.stmt], holding: tuple[ast.expr, ...] = (), exits: tuple[type, ...] = (ast.Return, ast.Raise, ast.Continue, ast.Break)) -> bool:
    """A block that never runs on to the next statement: it returns, raises, continues or breaks.
    A `with` block exits when its body does (unless it suppresses exceptions); an `if` on a test
    `holding` (the enclosing `if`s' tests, compared only when an `if` ends a block) takes its body: double-checked locking,
    `if k not in d: with lock: if k not in d: ...; continue`, read as one value per test. `exits`
    are the statements that count as leaving."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, exits):
        return True
    if isinstance(last, ast.If):
        alike = [test for test in holding if type(test) is type(last.test)]  # (printed only where they may be equal)
        if alike and ast.dump(last.test) in map(ast.dump, alike):
            return always_exits(last.body, holding, exits)
        inner = (*holding, last.test)
        return always_exits(last.body, inner, exits) and bool(last.orelse) and always_exits(last.orelse, holding, exits)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return not suppresses(last) and always_exits(last.body, holding, exits)
    return False


def suppresses(stmt: ast.With | ast.AsyncWith) -> bool:
    """A `with` whose context manager swallows exceptions (`contextlib.suppress`): a `raise` in its
    body may go on to the statement after it."""
    return any(dotted(strip_call(item.context_expr)) in _SUPPRESSING for item in stmt.items)


def leaves_function(body: list[ast.stmt], raising: bool) -> bool:
    """A block every path of which returns (or raises, when no `try` around it may catch that):
    what it changes never reaches a later statement of the function. A `continue` or `break` in it
    for a loop around it would carry its changes on to the next iteration or past the loop."""
    return always_exits(body, exits=(ast.Return, ast.Raise) if raising else (ast.Return,)) and not jumps_out(body)


def jumps_out(nodes: list, jumps: tuple[type, ...] = (ast.Continue, ast.Break)) -> bool:
    """A `continue`/`break` (of `jumps`) among `nodes` that is not for a loop inside them."""
    for node in nodes:
        if isinstance(node, jumps):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            if jumps_out(node.orelse, jumps):  # a loop's `else` is outside it
                return True
        elif isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if any(jumps_out(block, jumps) for block in child_blocks(node)):
                return True
    return False


_SUPPRESSING = frozenset({"suppress", "contextlib.suppress"})  # context managers that swallow exceptions


def rethrows(exc: ast.expr) -> bool:
    """`raise err`, `raise self.error`: no new exception but one made elsewhere (caught, kept,
    handed over), raised again. Its message and origin are another raise's, so like a bare
    `raise` it is counted, not catalogued; classes are CamelCase, objects are not."""
    name = dotted(exc) if isinstance(exc, (ast.Name, ast.Attribute)) else None
    return name is not None and is_value_name(name)


def is_value_name(name: str) -> bool:
    """A dotted name whose last part names an object, not a class: `err`, `self._error`."""
    last = name.rsplit(".", 1)[-1]
    return last[:1].islower() or last[:1] == "_"


def bindings(node: ast.AST, definitions: Sequence[str] = ()) -> tuple[frozenset[str], frozenset[str]]:
    """(locals bound exactly once, every local bound) in a function or module; parameters are bound
    but never count as once, and nested scopes' own names stay theirs. `definitions` names functions
    and classes the body defines beyond those in the tree (ones left out of its parse)."""
    return bindings_of(*binding_counts(node, definitions))


def bindings_of(counts: Counter[str], defined: set[str]) -> tuple[frozenset[str], frozenset[str]]:
    """`bindings` from the counts `binding_counts` made."""
    return frozenset(name for name, n in counts.items() if n == 1), frozenset(counts) - defined


def rebound_parameters(node: ast.FunctionDef | ast.AsyncFunctionDef, counts: Counter[str]) -> tuple[str, ...]:
    """The parameters the body assigns again: a test of one is not about the value passed in."""
    args = node.args
    return tuple(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if counts[a.arg] > 2)


def binding_counts(node: ast.AST, definitions: Sequence[str] = ()) -> tuple[Counter[str], set[str]]:
    """How many times each name is bound in a function or module (a parameter counts twice), and
    the names of the functions and classes it defines.

    Only statements are walked (binding forms, plus walrus in `if`/`while` tests), which keeps this
    pass a small fraction of a full tree walk.
    """
    counts: Counter[str] = Counter()
    counts.update(definitions)
    defined = set(definitions)  # names of nested functions and classes: code, not data
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None:
                counts[a.arg] += 2
    stack: list[ast.stmt] = list(getattr(node, "body", []))
    while stack:
        stmt = stack.pop()
        targets: list[ast.expr] = []
        kind = type(stmt)
        if kind is ast.Assign:
            targets = stmt.targets
        elif kind is ast.AnnAssign or kind is ast.AugAssign:
            targets = [stmt.target]
            if kind is ast.AugAssign:
                counts.update(bound_names(stmt.target))
        elif kind is ast.For or kind is ast.AsyncFor:
            targets = [stmt.target]
        elif kind is ast.With or kind is ast.AsyncWith:
            targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            counts[stmt.name] += 1
            defined.add(stmt.name)
            continue
        elif kind is ast.Import or kind is ast.ImportFrom:
            counts.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif (kind is ast.If or kind is ast.While) and type(stmt.test) is ast.NamedExpr:
            targets = [stmt.test.target]
        for target in targets:
            counts.update(bound_names(target))
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                counts[f"self.{target.attr}"] += 1
        for handler in getattr(stmt, "handlers", ()):
            if handler.name:
                counts[handler.name] += 1
        for block in child_blocks(stmt):
            stack.extend(block)
    return counts, defined


def last_name(node: ast.expr) -> str:
    """The name a name or an attribute ends in (`x`, `a.b.x`): "" for anything else."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def dotted(node: ast.expr | None) -> str | None:
    """A name as dotted text (`a.b.c`; `Generic[T]` and the annotation `"a.B"` as `Generic`, `a.B`),
    or None for any other expression."""
    kind = type(node)  # (not `isinstance`: this runs for most nodes of a tree, and parsed nodes are never of a subclass)
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute:
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if kind is ast.Subscript:  # Generic[T] -> Generic
        return dotted(node.value)
    if kind is ast.Constant and isinstance(node.value, str):  # "VllmConfig" annotations
        return node.value if node.value.replace(".", "").isidentifier() else None
    return None


def bound_name(target: ast.expr) -> str | None:
    """The dotted name an assignment target binds (`x`, `self.x`, `a.b`); None for an item or a
    slice, which changes an object in place: `mask[:n] = False` leaves `mask` the tensor it was."""
    node = target
    while isinstance(node, ast.Attribute):
        node = node.value
    return dotted(target) if isinstance(node, ast.Name) else None


def strip_optional(node: ast.expr | None) -> ast.expr | None:
    """`X | None` and `Optional[X]` -> X: the type an attribute or parameter holds when set."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = node.left, node.right
        if isinstance(right, ast.Constant) and right.value is None:
            return strip_optional(left)
        if isinstance(left, ast.Constant) and left.value is None:
            return strip_optional(right)
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("Optional", "typing.Optional"):
        return strip_optional(node.slice)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return strip_optional(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    return node


def admits_none(node: ast.expr | None) -> bool:
    """Whether an annotation lets the value be None (`X | None`, `Optional[X]`, `Union[X, None]`):
    what `strip_optional` leaves out."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return admits_none(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return True
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return admits_none(node.left) or admits_none(node.right)
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("Optional", "typing.Optional"):
        return True
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("Union", "typing.Union"):
        return any(admits_none(e) for e in (node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]))
    return False


def strip_call(node: ast.expr) -> ast.expr:
    """`dec(...)` -> `dec`: a decorator by the name it is called by."""
    return node.func if isinstance(node, ast.Call) else node


def bound_names(target: ast.expr) -> list[str]:
    """The plain names an assignment target binds, unpacking included."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in bound_names(elt)]
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    return []


UNKNOWN_ARGUMENT = "..."  # an argument whose value is not written at the call


def constant_text(node: ast.expr) -> str | None:
    """The source of a constant a chain can carry (None, a bool, an int, a short string), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        inner = constant_text(node.operand)
        return f"-{inner}" if inner and inner[0].isdigit() else None
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, (bool, int)) or (isinstance(value, str) and len(value) <= 80):
            return repr(value)
    return None


def argument_text(node: ast.expr) -> str:
    """An argument as a chain can carry it into the callee: a constant's source, a dotted name, an
    item of one by a name or constant (`self.kv_caches[name]`: what the callee's checks of it are
    about), a tuple or list of those (`Thread(args=(...))`), a set or dict as a tuple of as many
    unknown items; `*` for a starred one; else `UNKNOWN_ARGUMENT`."""
    if isinstance(node, ast.Starred):
        return "*"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return dotted(node) or UNKNOWN_ARGUMENT
    if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Name, ast.Attribute)):
        key = dotted(node.slice) if isinstance(node.slice, (ast.Name, ast.Attribute)) else constant_text(node.slice)
        held = dotted(node.value)
        return f"{held}[{key}]" if held and key else UNKNOWN_ARGUMENT
    if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return "(" + "".join(f"{argument_text(e)}, " for e in node.elts) + ")"
    if isinstance(node, (ast.Set, ast.Dict)) and not any(isinstance(e, ast.Starred) or e is None for e in
                                                         (node.elts if isinstance(node, ast.Set) else node.keys)):
        return "(" + f"{UNKNOWN_ARGUMENT}, " * len(node.elts if isinstance(node, ast.Set) else node.keys) + ")"  # its size
    return constant_text(node) or UNKNOWN_ARGUMENT
