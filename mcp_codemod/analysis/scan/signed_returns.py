"""Factories of tools whose signature is generated at run time: functions that return a nested
function after giving it a `__signature__` (the SDK reads that, not the `def`)."""

from __future__ import annotations

import ast

from mcp_codemod.analysis.scan.scope import Scope, SymbolKind
from mcp_codemod.analysis.scan.syntax import nested_bodies


def returns_signed_functions(body: list[ast.stmt], local: Scope) -> bool:
    """Whether every `return` of the body returns None or a function nested in it whose
    `__signature__` a statement of the body itself assigns (unconditionally, then) before the
    statement that holds the `return`; and one at least returns such a function."""
    if not any(_signed(statement) for statement in body):  # most functions: decided here
        return False
    signed: set[str] = set()
    returns_function = False
    for statement in body:
        for value in _returned(statement):
            if value is None or (isinstance(value, ast.Constant) and value.value is None):
                continue
            name = value.id if isinstance(value, ast.Name) else ""
            symbol = local.names.get(name)
            if symbol is None or symbol.kind is not SymbolKind.FUNCTION or name not in signed:
                return False
            returns_function = True
        signed.update(_signed(statement))
    return returns_function


def _signed(statement: ast.stmt) -> list[str]:
    """`name.__signature__ = ...` (or `__annotations__`, `__wrapped__`): the names given a
    signature."""
    if not isinstance(statement, ast.Assign):
        return []
    return [
        target.value.id
        for target in statement.targets
        if isinstance(target, ast.Attribute)
        and target.attr in ("__signature__", "__annotations__", "__wrapped__")
        and isinstance(target.value, ast.Name)
    ]


def _returned(statement: ast.stmt) -> list[ast.expr | None]:
    """What the `return` statements in a statement return, not those of nested functions."""
    found = []
    pending = [statement]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return):
            found.append(node.value)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for nested in nested_bodies(node):
                pending.extend(nested)
    return found
