"""Message templates: what an exception's message looks like, rebuilt from its expression.

The template language is Python's format-string syntax, so a reader already knows it:
literal text as printed, `{expr}` where a value is inserted (with `!r` / `:spec` as written),
and `{{` / `}}` for a literal brace. See docs/templates.md for every rule.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import libcst as cst

from errscan.model import Placeholder

# A name's single earlier assignment in the same function, or None when there is not exactly one.
LocalLookup = Callable[[str], "cst.BaseExpression | None"]

_PERCENT_SPEC = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])"
)
_MAX_VARIABLE_DEPTH = 4


@dataclass(frozen=True)
class Template:
    text: str
    placeholders: tuple[Placeholder, ...]

    def __add__(self, other: "Template") -> "Template":
        return Template(self.text + other.text, self.placeholders + other.placeholders)


EMPTY = Template("", ())


def escape_literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


class TemplateBuilder:
    """Renders message expressions of one module; `lookup` resolves local message variables."""

    def __init__(self, module: cst.Module, lookup: LocalLookup):
        self._module = module
        self._lookup = lookup

    def source(self, node: cst.CSTNode) -> str:
        """The code of a node on one line: line breaks and their indentation fold to one space."""
        return one_line(self._module.code_for_node(node))

    def render(self, node: cst.BaseExpression, depth: int = 0) -> Template:
        if isinstance(node, cst.SimpleString):
            return self._simple_string(node)
        if isinstance(node, cst.ConcatenatedString):
            return self.render(node.left, depth) + self.render(node.right, depth)
        if isinstance(node, cst.FormattedString):
            return self._fstring(node)
        if isinstance(node, cst.BinaryOperation) and self._is_text(node.left):
            if isinstance(node.operator, cst.Add):
                return self.render(node.left, depth) + self._operand(node.right, depth, "concat")
            if isinstance(node.operator, cst.Modulo):
                return self._percent(node, depth)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            if self._is_text(node.right):
                return self._operand(node.left, depth, "concat") + self.render(node.right, depth)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver, method = node.func.value, node.func.attr.value
            if method == "format" and isinstance(receiver, (cst.SimpleString, cst.ConcatenatedString)):
                return self._format_call(receiver, node.args)
            if method == "join" and self._is_text(receiver) and len(node.args) == 1:
                return self._placeholder(node.args[0].value, "join")
        if isinstance(node, cst.Name) and depth < _MAX_VARIABLE_DEPTH:
            assigned = self._lookup(node.value)
            if assigned is not None:
                return self.render(assigned, depth + 1)
            return self._placeholder(node, "variable")
        return self._placeholder(node, "unresolved")

    # pieces
    def _is_text(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Modulo)):
            return self._is_text(node.left)
        return False

    def _operand(self, node: cst.BaseExpression, depth: int, how: str) -> Template:
        if self._is_text(node) or isinstance(node, cst.Name) or _is_format_or_join(node):
            rendered = self.render(node, depth)
            if rendered.placeholders and rendered.placeholders[-1].source == "unresolved":
                return self._placeholder(node, how)
            return rendered
        return self._placeholder(node, how)

    def _placeholder(self, node: cst.CSTNode, how: str, conversion: str = "") -> Template:
        return field_template(self.source(node), how, conversion)

    def _simple_string(self, node: cst.SimpleString) -> Template:
        value = node.evaluated_value
        if isinstance(value, bytes):
            value = value.decode("utf-8", errors="backslashreplace")
        return Template(escape_literal(value), ())

    def _fstring(self, node: cst.FormattedString) -> Template:
        raw = "r" in node.prefix.lower()
        result = EMPTY
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                # f-string text already doubles its literal braces, as templates do.
                result += Template(part.value if raw else _unescape(part.value), ())
                continue
            expr = self.source(part.expression)
            conversion = part.conversion or ""
            spec = "".join(self._module.code_for_node(p) for p in part.format_spec or ())
            if part.equal is not None:
                # `{x=}` prints "x=" and then repr(x) unless a conversion or spec says otherwise.
                result += Template(escape_literal(expr + "="), ())
                conversion = conversion or ("" if spec else "r")
            result += field_template(expr, "fstring", conversion, spec)
        return result

    def _percent(self, node: cst.BinaryOperation, depth: int) -> Template:
        values = node.right
        positional = [e.value for e in values.elements] if isinstance(values, cst.Tuple) else [values]
        return self._percent_of(node.left, positional, values, depth)

    def log_message(self, fmt: cst.BaseExpression, args: Sequence[cst.BaseExpression]) -> Template:
        """A logging call's message: logging prints `fmt % args` when there are args (a lone
        mapping fills `%(key)s`), else `fmt` as it is."""
        if not args:
            return self.render(fmt)
        return self._percent_of(fmt, list(args), args[0] if len(args) == 1 else None, 0)

    def _percent_of(
        self, fmt_node: cst.BaseExpression, positional: list[cst.BaseExpression],
        mapping: cst.BaseExpression | None, depth: int,
    ) -> Template:
        """`fmt % values`: `positional` fill the specs in turn, `mapping` (a dict display) the keyed ones."""
        fmt = self.render(fmt_node, depth)
        whole = ", ".join(self.source(value) for value in positional)
        if fmt.placeholders:  # the format itself is not a plain literal: cannot expand its specs
            return fmt + field_template(whole, "percent")
        keyed = {}
        if isinstance(mapping, cst.Dict):
            for element in mapping.elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                    keyed[element.key.evaluated_value] = self.source(element.value)
        literal = fmt.text.replace("{{", "{").replace("}}", "}")
        return percent_template(literal, [self.source(value) for value in positional], keyed, whole)

    def _format_call(self, receiver: cst.BaseExpression, args: tuple[cst.Arg, ...]) -> Template:
        fmt = self.render(receiver)
        literal = fmt.text.replace("{{", "{").replace("}}", "}")
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        result, auto_index = EMPTY, 0
        try:
            fields = list(string.Formatter().parse(literal))
        except ValueError:
            return self._placeholder(receiver, "format")
        for text, field_name, spec, conversion in fields:
            result += Template(escape_literal(text), ())
            if field_name is None:
                continue
            head = re.match(r"[^.\[]*", field_name).group()
            rest = field_name[len(head) :]
            if head == "":
                head, auto_index = str(auto_index), auto_index + 1
            value = positional[int(head)] if head.isdigit() and int(head) < len(positional) else keywords.get(head)
            expr = field_name if value is None else self.source(value) + rest
            result += field_template(expr, "format", conversion or "", spec or "")
        return result


def percent_template(literal: str, positional: Sequence[str], keyed: Mapping[str, str], whole: str) -> Template:
    """`literal % values`, each conversion a placeholder holding the source of its value: the next of
    `positional`, or a key's of `keyed`; `whole` (the source of all values) where neither says."""
    result, index, last = EMPTY, 0, 0
    for match in _PERCENT_SPEC.finditer(literal):
        result += Template(escape_literal(literal[last : match.start()]), ())
        last = match.end()
        kind = match.group("type")
        if kind == "%":
            result += Template("%", ())
            continue
        conversion = "r" if kind == "r" else ""
        key = match.group("key")
        if key is not None and key in keyed:
            result += field_template(keyed[key], "percent", conversion)
        elif key is None and index < len(positional):
            result += field_template(positional[index], "percent", conversion)
            index += 1
        else:
            result += field_template(whole, "percent", conversion)
    return result + Template(escape_literal(literal[last:]), ())


def one_line(code: str) -> str:
    """Code on one line: line breaks and their indentation fold to one space (none inside brackets)."""
    code = re.sub(r"\(\s*\n\s*", "(", code.strip())
    code = re.sub(r"\s*\n\s*\)", ")", code)
    return re.sub(r"\s*\n\s*", " ", code)


def field_template(expr: str, how: str, conversion: str = "", spec: str = "") -> Template:
    """One `{expr!conversion:spec}` field."""
    suffix = (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
    return Template("{" + expr + suffix + "}", (Placeholder(expr, conversion, spec, how),))


def _is_format_or_join(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("format", "join")
    )


def _unescape(text: str) -> str:
    """Backslash escapes of a non-raw literal, as Python reads them (non-ASCII kept intact)."""
    if "\\" not in text:
        return text
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
