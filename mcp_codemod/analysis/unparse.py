"""`ast.unparse` of the shapes annotations take, written the way it writes them, in a fraction of
its time (a parameter's annotation that spans lines, `Annotated[str, Field(description=...)]`,
is shown on one line: `ast.unparse` cost as much as the rest of its parameter facts).

Names, attributes, subscripts, calls, lists, `|` unions and plain constants; anything else, or a
shape whose parentheses or commas `ast.unparse` decides by precedence (a tuple of one element, a
union on the right of `|`), is left to `ast.unparse`.
"""

from __future__ import annotations

import ast

# Constants written as `repr` writes them (floats are not: `ast.unparse` spells infinity).
_REPR_CONSTANTS = (str, int, bool, type(None), bytes)
# What an attribute, a subscript or a call may apply to without parentheses.
_ATOMS = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)


class _Unwritten(Exception):
    """A shape outside the ones written here."""


def unparse(node: ast.AST) -> str:
    try:
        return _expression(node)
    except _Unwritten:
        return ast.unparse(node)


def _expression(node: ast.AST) -> str:
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined]
    if kind is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if node.kind is None and type(value) in _REPR_CONSTANTS:  # type: ignore[attr-defined]
            return repr(value)
        if value is Ellipsis:
            return "..."
    elif kind is ast.Attribute:
        return f"{_atom(node.value)}.{node.attr}"  # type: ignore[attr-defined]
    elif kind is ast.Subscript:
        return f"{_atom(node.value)}[{_slice(node.slice)}]"  # type: ignore[attr-defined]
    elif kind is ast.Call:
        arguments = [_expression(argument) for argument in node.args]  # type: ignore[attr-defined]
        arguments += [_keyword(keyword) for keyword in node.keywords]  # type: ignore[attr-defined]
        return f"{_atom(node.func)}({', '.join(arguments)})"  # type: ignore[attr-defined]
    elif kind is ast.List:
        return f"[{', '.join(_expression(e) for e in node.elts)}]"  # type: ignore[attr-defined]
    elif kind is ast.BinOp and type(node.op) is ast.BitOr:  # type: ignore[attr-defined]
        right = node.right  # type: ignore[attr-defined]
        if type(right) is not ast.BinOp:  # `a | (b | c)` keeps its parentheses
            return f"{_expression(node.left)} | {_expression(right)}"  # type: ignore[attr-defined]
    raise _Unwritten


def _atom(node: ast.expr) -> str:
    if not isinstance(node, _ATOMS):
        raise _Unwritten  # parenthesized, or `1 .real`
    return _expression(node)


def _slice(node: ast.expr) -> str:
    if type(node) is ast.Tuple:
        elements = node.elts  # type: ignore[attr-defined]
        if len(elements) < 2:  # `x[()]`, `x[a,]`
            raise _Unwritten
        return ", ".join(_expression(element) for element in elements)
    return _expression(node)


def _keyword(node: ast.keyword) -> str:
    value = _expression(node.value)
    return f"**{value}" if node.arg is None else f"{node.arg}={value}"
