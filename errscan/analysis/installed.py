"""A check of an installed package's version: `Version(version("safetensors")) < Version("0.8.0")`,
`version.parse(triton.__version__) >= version.parse("3.0.0")`. What decides it is which release of
that package is installed, so the fix is installing one the check accepts, and `pip show` checks it.

The installed version is read by `version("dist")` (`importlib.metadata.version`, also as
`metadata.version`) or as `module.__version__` of an imported package; the other side is a constant
version (`Version("x")`, `version.parse("x")`, `parse_version("x")`, or the string itself).
"""

from __future__ import annotations

import ast

from errscan.analysis.advice import verb
from errscan.analysis.phases import in_phase, with_cause
from errscan.extract.astutil import last_name
from errscan.extract.conditions import Condition, parse_expression
from errscan.extract.facts import ModuleFacts
from errscan.model import ErrorSite, Explanation, Fix
from errscan.profiles import Profile

_PARSERS = frozenset({"Version", "parse", "parse_version", "LooseVersion"})  # what wraps a version to compare it
# The comparison under which the error fires -> (its words, the pip specifier that avoids it).
_AVOID = {ast.Lt: ("older than {v}", ">={v}"), ast.LtE: ("{v} or older", ">{v}"), ast.Gt: ("newer than {v}", "<={v}"),
          ast.GtE: ("{v} or newer", "<{v}"), ast.Eq: ("exactly {v}", "!={v}"), ast.NotEq: ("any other than {v}", "=={v}")}
_MIRRORED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}

# (the distribution pip installs, the comparison's operator as the installed version's, the constant version)
Checked = tuple[str, type, str]


def version_check(own: Condition, module: ModuleFacts | None, scope: str, profile: Profile) -> Checked | None:
    """The first of the site's own terms (in `scope`) that compares an installed package's version with a constant."""
    imported = module.lookup("" if scope == "<module>" else scope) if module is not None else {}
    for term in own:
        tree = parse_expression(term.code)
        if not isinstance(tree, ast.Compare) or len(tree.ops) != 1 or type(tree.ops[0]) not in _AVOID:
            continue
        left, right, op = tree.left, tree.comparators[0], type(tree.ops[0])
        for installed, constant, as_installed in ((left, right, op), (right, left, _MIRRORED[op])):
            package, wanted = _installed(installed, imported, profile), _constant(constant)
            if package and wanted:
                return package, as_installed, wanted
    return None


def _unwrapped(node: ast.expr) -> ast.expr:
    """`Version(x)`, `version.parse(x)` -> x."""
    while isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and last_name(node.func) in _PARSERS:
        node = node.args[0]
    return node


def _installed(node: ast.expr, imported: dict[str, str], profile: Profile) -> str | None:
    """The distribution whose installed version `node` reads."""
    node = _unwrapped(node)
    if isinstance(node, ast.Call) and last_name(node.func) == "version" and len(node.args) == 1 \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    if isinstance(node, ast.Attribute) and node.attr == "__version__" and isinstance(node.value, ast.Name):
        root = imported.get(node.value.id, "").split(".")[0]
        if root and root != profile.package:
            return dict(profile.distributions).get(root, root)
    return None


def _constant(node: ast.expr) -> str | None:
    node = _unwrapped(node)
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value[:1].isdigit() else None


def version_explanation(checked: Checked, error: ErrorSite, subject: str, when: str | None, where: str | None,
                        profile: Profile) -> Explanation:
    """The installed release decides it: the words for the versions it fires with, and the pip command that avoids them."""
    package, op, wanted = checked
    words, specifier = (text.format(v=wanted) for text in _AVOID[op])
    project = profile.title or profile.name
    summary = (f"{subject} {verb(error, subject)} this{with_cause(in_phase(when))} the installed `{package}` is "
               f"{words}; no setting of yours decides it.")
    fix = f"Install a release of `{package}` the check accepts, in the same Python environment as {project}: " \
          f"`pip install '{package}{specifier}'`."
    return Explanation(summary, "environment", when, where, (Fix("", None, fix),), check=f"pip show {package}")
