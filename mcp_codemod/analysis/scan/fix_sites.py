"""Where a fix puts a marker in an annotation: around it, appended to an existing `Annotated[...]`,
or inside a string annotation's quotes; or nowhere, where rewriting it is unsafe."""

from __future__ import annotations

import ast

from mcp_codemod.analysis.facts import AnnotationSite, Position, Span
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.scope import Names, Scope
from mcp_codemod.analysis.type_exprs import ANNOTATED


class FixSites:
    def __init__(self, text: SourceText, names: Names, postponed_annotations: bool) -> None:
        self.text = text
        self.names = names
        self.postponed_annotations = postponed_annotations

    def site(self, node: ast.expr, scope: Scope) -> AnnotationSite | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.string_site(node, scope)
        append_at = self.append_position(node, scope)
        description = _sole_description(node) if append_at is not None else None
        described = self.text.span(description) if description is not None else None
        return AnnotationSite(self.text.span(node), append_at, described)

    def append_position(self, node: ast.expr, scope: Scope) -> Position | None:
        if isinstance(node, ast.Subscript) and self.names.qualify(node.value, scope) in ANNOTATED:
            elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            last = elements[-1]
            return self.text.position(last.end_lineno, last.end_col_offset)
        return None

    def string_site(self, node: ast.Constant, scope: Scope) -> AnnotationSite | None:
        """The text inside a plain one-line string annotation; None where rewriting it is unsafe.

        Under `from __future__ import annotations` the SDK evaluates the annotation once and
        gets the string back: names inside it would then be resolved as a nested forward
        reference, outside the module's namespace. There the marker goes outside the quotes.
        """
        if self.postponed_annotations:
            return AnnotationSite(self.text.span(node), None)
        text = self.text.segment(node)
        if (
            text is None
            or node.lineno != node.end_lineno
            or len(text) < 2
            or text[0] not in "'\""
            or text[-1] != text[0]
            or text[1:-1] != node.value
            or "\\" in text
        ):
            return None
        try:
            inner = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
        if node.value != node.value.strip():
            return None
        start = self.text.start(node)
        end = self.text.position(node.end_lineno, node.end_col_offset)
        span = Span(Position(start.line, start.column + 1), Position(end.line, end.column - 1))
        append_at = None
        if isinstance(inner, ast.Subscript) and self.names.qualify(inner.value, scope) in ANNOTATED:
            elements = inner.slice.elts if isinstance(inner.slice, ast.Tuple) else [inner.slice]
            append_at = Position(start.line, start.column + 1 + elements[-1].end_col_offset)
        description = _sole_description(inner) if append_at is not None else None
        described = None
        if description is not None:  # one line: columns in the string are columns in the file
            column = start.column + 1
            described = Span(
                Position(start.line, column + description.col_offset),
                Position(start.line, column + description.end_col_offset),
            )
        return AnnotationSite(span, append_at, described)


def _sole_description(annotated: ast.expr) -> ast.Constant | None:
    """The string of `Annotated[T, "text"]`: a type and one string literal."""
    elements = annotated.slice.elts if isinstance(annotated.slice, ast.Tuple) else []  # type: ignore[attr-defined]
    if (
        len(elements) == 2
        and isinstance(elements[1], ast.Constant)
        and isinstance(elements[1].value, str)
    ):
        return elements[1]
    return None
