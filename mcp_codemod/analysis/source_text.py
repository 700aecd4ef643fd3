"""A module's source text, for positions and spans in characters: `ast` counts UTF-8 bytes."""

from __future__ import annotations

import ast

from mcp_codemod.analysis.facts import Position, Span
from mcp_codemod.sources import split_lines


class SourceText:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = split_lines(source)

    def position(self, line: int, byte_column: int) -> Position:
        # ast columns count UTF-8 bytes; findings and the fixer count characters.
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return Position(line, byte_column)
        return Position(line, len(text.encode("utf-8")[:byte_column].decode("utf-8", "replace")))

    def start(self, node: ast.AST) -> Position:
        return self.position(node.lineno, node.col_offset)

    def span(self, node: ast.AST) -> Span:
        return Span(self.start(node), self.position(node.end_lineno, node.end_col_offset))

    def segment(self, node: ast.AST) -> str:
        """The node's source text (`ast.get_source_segment` re-splits the whole file per call)."""
        first, last = node.lineno - 1, node.end_lineno - 1
        lines = [line.encode("utf-8") for line in self.lines[first : last + 1]]
        if first == last:
            return lines[0][node.col_offset : node.end_col_offset].decode("utf-8", "replace")
        lines[0], lines[-1] = lines[0][node.col_offset :], lines[-1][: node.end_col_offset]
        return b"\n".join(lines).decode("utf-8", "replace")

    def text(self, node: ast.AST) -> str:
        """The node's source as one line, for messages."""
        if node.lineno == node.end_lineno:
            return self.segment(node)
        return ast.unparse(node)

    def label(self, node: ast.AST) -> str:
        """A short label of the node for messages: its first line (`ast.unparse` costs more than
        scanning, and this is asked for every argument that cannot be followed)."""
        if node.lineno == node.end_lineno:
            return self.segment(node)
        first = self.lines[node.lineno - 1].encode("utf-8")[node.col_offset :]
        return first.decode("utf-8", "replace").rstrip() + " ..."
