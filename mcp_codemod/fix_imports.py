"""Imports for fixed code: add what the markers and guarded classes need, and drop the import
of a renamed server class when nothing uses it any more. The only module that needs libcst."""

from __future__ import annotations

import ast
import contextlib

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from mcp_codemod.fixer import FixError

RUNTIME = "mcp_codemod.runtime"


def update_imports(text: str, needed: set[str], replaced: set[str]) -> str:
    """`text` importing every name in `needed` (`Annotated` from typing, the rest from the
    runtime), without imports that only the `replaced` class expressions used."""
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError) as error:
        raise FixError(f"libcst cannot parse the file: {str(error).splitlines()[0]}") from None
    unused = {expression.split(".")[0] for expression in replaced} - _used_names(text)
    if unused:
        runtime_names = sorted(name for name in needed if name != "Annotated")
        module = module.visit(_ReplaceUnusedImport(unused, runtime_names))
    context = CodemodContext()
    for name in sorted(needed):
        AddImportsVisitor.add_needed_import(
            context, "typing" if name == "Annotated" else RUNTIME, name
        )
    return AddImportsVisitor(context).transform_module(module).code


def _used_names(text: str) -> set[str]:
    """Names the module still reads, also inside string annotations (as ruff's F401 counts)."""
    used: set[str] = set()
    pending = [ast.parse(text)]
    while pending:
        for node in ast.walk(pending.pop()):
            if isinstance(node, ast.Name):
                used.add(node.id)
            for annotation in _annotations(node):
                if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                    with contextlib.suppress(SyntaxError):  # not ours to judge
                        pending.append(ast.parse(annotation.value.strip(), mode="eval"))
    return used


def _annotations(node: ast.AST) -> list[ast.expr | None]:
    if isinstance(node, ast.arg | ast.AnnAssign):
        return [node.annotation]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.returns]
    return []


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.evaluated_alias or ""
    return alias.evaluated_name.split(".")[0]


class _ReplaceUnusedImport(cst.CSTTransformer):
    """Drop, in place, the import of a renamed server class that nothing uses any more.

    An import line that bound only that name becomes the runtime import, so the line keeps its
    place, its comments and the blank lines around it; otherwise only the name goes.
    """

    def __init__(self, unused: set[str], runtime_names: list[str]) -> None:
        super().__init__()
        self.unused = unused
        self.runtime_names = runtime_names

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        body = updated_node.body
        if len(body) != 1 or not isinstance(body[0], cst.Import | cst.ImportFrom):
            return updated_node
        statement = body[0]
        if isinstance(statement.names, cst.ImportStar):
            return updated_node
        kept = [alias for alias in statement.names if _bound_name(alias) not in self.unused]
        if len(kept) == len(statement.names):
            return updated_node
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(body=[statement.with_changes(names=kept)])
        if not self.runtime_names:
            return cst.RemoveFromParent()
        replacement = cst.ImportFrom(
            module=cst.parse_expression(RUNTIME),
            names=[cst.ImportAlias(cst.Name(name)) for name in self.runtime_names],
        )
        self.runtime_names = []  # AddImportsVisitor finds them here from now on
        return updated_node.with_changes(body=[replacement])
