"""A module's source text, for positions and spans in characters: `ast` counts UTF-8 bytes."""

from __future__ import annotations

import ast
import re

from mcp_codemod.analysis.facts import Position, Span
from mcp_codemod.sources import split_lines


class SourceText:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = split_lines(source)
        # Most modules: characters are bytes, and positions and slices need no encoding.
        self.is_ascii = source.isascii()

    def lines_matching(self, pattern: re.Pattern[str]) -> list[int]:
        """The numbers of the lines where `pattern` (which matches no line break) matches, in
        order: one search over the text instead of one per line."""
        source = self.source
        found: list[int] = []
        line = 1
        counted = 0  # the offset up to which line breaks are counted
        for match in pattern.finditer(source):
            start = match.start()
            line += _line_breaks(source, counted, start)
            counted = start
            if not found or found[-1] != line:
                found.append(line)
        return found

    def position(self, line: int, byte_column: int) -> Position:
        # ast columns count UTF-8 bytes; findings and the fixer count characters.
        if self.is_ascii:
            return Position(line, byte_column)
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
        if self.is_ascii:
            if first == last:
                return self.lines[first][node.col_offset : node.end_col_offset]
            text = self.lines[first : last + 1]
            text[0], text[-1] = text[0][node.col_offset :], text[-1][: node.end_col_offset]
            return "\n".join(text)
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
        if self.is_ascii:
            return self.lines[node.lineno - 1][node.col_offset :].rstrip() + " ..."
        first = self.lines[node.lineno - 1].encode("utf-8")[node.col_offset :]
        return first.decode("utf-8", "replace").rstrip() + " ..."


def _line_breaks(source: str, start: int, end: int) -> int:
    """The line breaks (`\r\n`, `\r` or `\n`, as `split_lines` splits) in `source[start:end]`,
    where neither end splits a `\r\n`."""
    count = source.count("\n", start, end)
    if "\r" in source:
        count += source.count("\r", start, end) - source.count("\r\n", start, end)
    return count
