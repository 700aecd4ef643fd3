"""isort's order and layout (default settings, as ruff's `I` rules apply them): the sections in
their order, the sort keys of import statements and of the names of a `from` import, and a
`from` import spelled as ruff's isort and formatter lay it out."""

from __future__ import annotations

import ast

from mcp_codemod.fix.line_wrap import LineStyle

# Sections in isort's order.
FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)


def member_key(name: str) -> tuple:
    """isort's `order-by-type`: CONSTANTS, then Classes, then the rest; case-insensitively."""
    if len(name) > 1 and name.isupper():
        kind = 0
    elif name[:1].isupper():
        kind = 1
    else:
        kind = 2
    return (kind, name.lower(), name)


def statement_key(node: ast.Import | ast.ImportFrom) -> tuple:
    if isinstance(node, ast.Import):
        module = node.names[0].name
        return (0, 0, module.lower(), module, ())
    first = node.names[0]
    return (
        1,
        -node.level,
        (node.module or "").lower(),
        node.module or "",
        (member_key(first.name), first.asname or ""),
    )


def new_statement_key(module: str, name: str, alias: str | None) -> tuple:
    return (1, 0, module.lower(), module, (member_key(name), alias or ""))


def sections_apart(statements: list[tuple[int, str]], eol: str) -> str:
    parts: list[str] = []
    for index, (section, statement) in enumerate(statements):
        if index and section != statements[index - 1][0]:
            parts.append(eol)
        parts.append(statement)
    return "".join(parts)


def from_import(
    module: str, names: list[tuple[str, str | None]], eol: str, style: LineStyle
) -> str:
    """`from module import names`, wrapped one name a line when longer than ruff allows."""
    spelled = [f"{n} as {alias}" if alias else n for n, alias in names]
    line = f"from {module} import {', '.join(spelled)}"
    if style.width(line) <= style.line_length:
        return line
    inner = "".join(f"{style.indent}{n},{eol}" for n in spelled)
    return f"from {module} import ({eol}{inner})"
