"""Optional imports: a name that is None when its package is not installed, tested before use.

Two shapes: `try: from pkg import X` / `except ImportError: X = None` in the raising module, and a
name imported from a module of the package that has no such binding but a module `__getattr__`
that imports it on first use and gives None when that import fails (`from .nixl_utils import
NixlWrapper`, where nixl_utils imports the `nixl` package lazily). Either way the package is missing,
and installing it is the fix. A lazy import may take its package's name from a platform test
(`"nixl_rocm" if current_platform.is_rocm() else "nixl"`): the fix then names each platform's."""

from __future__ import annotations

import ast
import re

from errscan.analysis.phases import in_phase, with_cause
from errscan.extract.conditions import Condition, parse_expression
from errscan.extract.facts import ModuleFacts
from errscan.extract.unparse import fast_unparse
from errscan.graph.calls import CallGraph
from errscan.model import Explanation, Fix
from errscan.profiles import Profile

# (name, import root, what pip installs it by ("" when the profile does not say), and the roots
# imported instead on some platforms: (root, their names))
Missing = tuple[str, str, str, tuple[tuple[str, tuple[str, ...]], ...]]

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
_QUOTED = re.compile(r"""['"](\w+)['"]""")


def missing_package(own: Condition, module: ModuleFacts | None, profile: Profile,
                    graph: CallGraph | None = None) -> Missing | None:
    """`X is None` (or `not X`) of a name an optional import binds: the package is not installed."""
    if module is None:
        return None
    imported = module.imports.get("", {})
    for term in own:
        for code in dict.fromkeys((term.code, term.deep)):
            name = _tested_none(code)
            if not name or name not in imported:
                continue
            root, instead = (imported[name].split(".")[0], ()) if module.module_values.get(name) == "None" else \
                _lazy_root(graph, imported[name], profile) if graph is not None else (None, ())
            if root and root != profile.package:
                return name, root, dict(profile.distributions).get(root, ""), instead
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


def _lazy_root(graph: CallGraph, target: str, profile: Profile) -> tuple[str | None, tuple[tuple[str, tuple[str, ...]], ...]]:
    """The package a module of the tree imports `target`'s name from on first use, when its module
    `__getattr__` gives it and a `try` there catches the import's failure: the root among the
    profile's known packages that the module names in a string (`"nixl"`), and the roots a platform
    test picks instead of it."""
    owner, _, name = target.rpartition(".")
    facts = graph.index.modules.get(owner)
    if facts is None or f"{owner}.__getattr__" not in graph.functions or name in facts.module_values \
            or f"{owner}.{name}" in graph.functions or f"{owner}.{name}" in graph.index.classes:
        return None, ()
    if not any(_IMPORT_ERRORS.intersection(t.rsplit(".", 1)[-1] for t in h.types) for t in facts.tries for h in t.handlers):
        return None, ()
    named = {word for r in facts.returns for word in _QUOTED.findall(r.expression)}
    named |= {text for call in facts.calls for text in call.literal_args if text}
    root = next((root for root, _ in profile.distributions if root in named), None)
    return root, _by_platform(facts, root, profile) if root else ()


def _by_platform(facts: ModuleFacts, root: str, profile: Profile) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The names a returned `"a" if <platform test> else "b"` gives instead of `root` on the test's
    platforms: `"nixl_rocm" if current_platform.is_rocm() else "nixl"` gives (("nixl_rocm", ("rocm",)),)."""
    tests = {fast_unparse(parse_expression(code)): names for code, names in profile.platforms.tests} if profile.platforms else {}
    instead = []
    for returned in facts.returns:
        tree = parse_expression(returned.expression)
        if not isinstance(tree, ast.IfExp) or fast_unparse(tree.test) not in tests:
            continue
        chosen, default = tree.body, tree.orelse
        if all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in (chosen, default)) \
                and default.value == root and chosen.value != root:
            instead.append((chosen.value, tests[fast_unparse(tree.test)]))
    return tuple(dict.fromkeys(instead))


def not_installed(missing: Missing, subject: str, when: str | None, where: str | None, profile: Profile) -> Explanation:
    """An optional import that failed: the package is missing, and installing it is the fix."""
    name, root, distribution, instead = missing
    project = profile.title or profile.name
    summary = (f"{subject} reports this{with_cause(in_phase(when))} the package providing `{root}` is not "
               f"installed (importing `{name}` from it failed); no setting of yours decides it.")
    text = (f"Install it in the same Python environment as {project}: `pip install {distribution}`."
            if distribution else f"Install the package that provides the `{root}` module in the same Python "
            f"environment as {project}.")
    for other, platforms in instead:  # found from the profile's platform tests, so it has them
        pip = dict(profile.distributions).get(other)
        text += (f" On {profile.platforms.shown(platforms)}, {project} "
                 f"imports `{other}` instead: " + (f"`pip install {pip}`." if pip else
                 f"install the package that provides it (`python -c \"import {other}\"` checks it)."))
    return Explanation(summary, "environment", when, where, (Fix("", None, text),), check=f'python -c "import {root}"')
