"""Whether a server class import that a swap replaced is still referred to, as ruff's F401,
F821 and F822 count: in code, `__all__`, string annotations and `cast("Name", ...)`."""

from __future__ import annotations

import ast
import re
import sys

from mcp_codemod.fix.imports.bindings import Binding, BindingKind, char_offset, module_statements


def still_used(
    name: str,
    text: str,
    tree: ast.Module,
    offsets: list[int],
    swapped: list[tuple[int, int]],
    bindings: dict[str, list[Binding]],
    outside: list[int],
) -> bool:
    """Whether anything but the swapped spans and its imports still refers to `name`: code,
    `__all__`, a string annotation or a `cast("Name", ...)`, as ruff's F401 and F822 count.
    `outside`: where the name occurs in the text but not in those spans or module imports."""
    if any(b.kind is BindingKind.OTHER for b in bindings.get(name, [])):
        return True  # not only an import: leave it
    if not outside:
        return False
    swapped_starts = {start for start, _ in swapped}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Name)
            and node.id == name
            and char_offset(text, offsets, node.lineno, node.col_offset) not in swapped_starts
        ):
            return True
        for expression in _type_strings(node):
            if name in _names_in(expression):
                return True
        if _is_all(node) and any(
            isinstance(e, ast.Constant) and e.value == name for e in _elements(node.value)
        ):
            return True
    return False


def occurrences_outside(
    name: str, text: str, tree: ast.Module, offsets: list[int], swapped: list[tuple[int, int]]
) -> list[int]:
    """Offsets of `name` as a word, except in the swapped spans and module-level imports."""
    imports = _import_spans(tree, offsets)
    return [
        match.start()
        for match in re.finditer(rf"\b{re.escape(name)}\b", text)
        if not any(start <= match.start() < end for start, end in swapped)
        and not any(start <= match.start() < end for start, end in imports)
    ]


def _import_spans(tree: ast.Module, offsets: list[int]) -> list[tuple[int, int]]:
    spans = []
    for statement, _ in module_statements(tree.body):
        if isinstance(statement, ast.Import | ast.ImportFrom):
            start = offsets[statement.lineno - 1]
            end = offsets[statement.end_lineno] if statement.end_lineno < len(offsets) else None
            spans.append((start, end if end is not None else sys.maxsize))
    return spans


def _type_strings(node: ast.AST) -> list[str]:
    """String literals that type checkers read as expressions: annotations and `cast` types."""
    candidates: list[ast.expr | None] = []
    if isinstance(node, ast.arg | ast.AnnAssign):
        candidates = [node.annotation]
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        candidates = [node.returns]
    elif isinstance(node, ast.Call) and node.args:
        function = node.func
        called = function.attr if isinstance(function, ast.Attribute) else None
        if isinstance(function, ast.Name):
            called = function.id
        if called == "cast":
            candidates = [node.args[0]]
    strings = []
    for candidate in candidates:
        for inner in ast.walk(candidate) if candidate is not None else ():
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                strings.append(inner.value)
    return strings


def _names_in(expression: str) -> set[str]:
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:  # not ours to judge
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def _is_all(node: ast.AST) -> bool:
    targets = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _elements(value: ast.expr | None) -> list[ast.expr]:
    return list(value.elts) if isinstance(value, ast.List | ast.Tuple | ast.Set) else []
