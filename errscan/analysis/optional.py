"""Optional imports: a name that is None when its package is not installed, tested before use.

Two shapes: `try: from pkg import X` / `except ImportError: X = None` in the raising module, and a
name imported from a module of the package that has no such binding but a module `__getattr__`
that imports it on first use and gives None when that import fails (`from .nixl_utils import
NixlWrapper`, where nixl_utils imports the `nixl` package lazily). Either way the package is missing,
and installing it is the fix."""

from __future__ import annotations

import ast
import re

from errscan.extract.conditions import Condition, parse_expression
from errscan.extract.facts import ModuleFacts
from errscan.graph.calls import CallGraph
from errscan.model import Explanation, Fix
from errscan.profiles import Profile

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
_QUOTED = re.compile(r"""['"](\w+)['"]""")


def missing_package(own: Condition, module: ModuleFacts | None, profile: Profile,
                    graph: CallGraph | None = None) -> tuple[str, str, str] | None:
    """`X is None` (or `not X`) of a name an optional import binds: the package is not installed.
    (name, import root, what pip installs it by: "" when the profile does not say)."""
    if module is None:
        return None
    imported = module.imports.get("", {})
    for term in own:
        for code in dict.fromkeys((term.code, term.deep)):
            name = _tested_none(code)
            if not name or name not in imported:
                continue
            root = imported[name].split(".")[0] if module.module_values.get(name) == "None" else \
                _lazy_root(graph, imported[name], profile) if graph is not None else None
            if root and root != profile.package:
                return name, root, dict(profile.distributions).get(root, "")
    return None


def _tested_none(code: str) -> str | None:
    """The name `code` tests for None: `X is None`, `X == None`, `not X`."""
    tree = parse_expression(code)
    if isinstance(tree, ast.Compare) and isinstance(tree.left, ast.Name) and len(tree.ops) == 1:
        none = isinstance(tree.comparators[0], ast.Constant) and tree.comparators[0].value is None
        return tree.left.id if none and isinstance(tree.ops[0], (ast.Is, ast.Eq)) else None
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not) and isinstance(tree.operand, ast.Name):
        return tree.operand.id
    return None


def _lazy_root(graph: CallGraph, target: str, profile: Profile) -> str | None:
    """The package a module of the tree imports `target`'s name from on first use, when its module
    `__getattr__` gives it and a `try` there catches the import's failure: the root among the
    profile's known packages that the module names in a string (`"nixl"`)."""
    owner, _, name = target.rpartition(".")
    facts = graph.index.modules.get(owner)
    if facts is None or f"{owner}.__getattr__" not in graph.functions or name in facts.module_values \
            or f"{owner}.{name}" in graph.functions or f"{owner}.{name}" in graph.index.classes:
        return None
    if not any(_IMPORT_ERRORS.intersection(t.rsplit(".", 1)[-1] for t in h.types) for t in facts.tries for h in t.handlers):
        return None
    named = {word for r in facts.returns for word in _QUOTED.findall(r.expression)}
    named |= {text for call in facts.calls for text in call.literal_args if text}
    return next((root for root, _ in profile.distributions if root in named), None)


def not_installed(missing: tuple[str, str, str], subject: str, when: str | None, where: str | None, profile: Profile) -> Explanation:
    """An optional import that failed: the package is missing, and installing it is the fix."""
    name, root, distribution = missing
    project = profile.title or profile.name
    first = when.split("; or ")[0] if when else None
    summary = (f"{subject} reports this{f' {first}' if first else ''} when the package providing `{root}` is not "
               f"installed (importing `{name}` from it failed); no setting of yours decides it.")
    text = (f"Install it in the same Python environment as {project}: `pip install {distribution}`."
            if distribution else f"Install the package that provides the `{root}` module in the same Python "
            f"environment as {project}.")
    return Explanation(summary, "environment", when, where, (Fix("", None, text),), check=f'python -c "import {root}"')
