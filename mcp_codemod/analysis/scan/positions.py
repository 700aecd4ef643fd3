"""A module's source text, for positions and spans in characters: `ast` counts UTF-8 bytes."""

from __future__ import annotations

import ast
import bisect
import re
import unicodedata
from collections.abc import Iterable

from mcp_codemod.analysis.facts import Position, Span

# Python ends lines at \r\n, \r or \n only; str.splitlines() also splits at \x0c, \x1c, \u2028…
# which would shift every line number after them.
_NEWLINE = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` as Python numbers them, without their endings."""
    if "\r" not in text:  # most files: str.split is ten times faster than the pattern
        return text.split("\n")
    return _NEWLINE.split(text)


def line_offsets(text: str) -> list[int]:
    """The offset in `text` where each line starts; index 0 is line 1."""
    return [0, *(match.end() for match in _NEWLINE.finditer(text))]


class SourceText:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = split_lines(source)
        # Most modules: characters are bytes, and positions and slices need no encoding.
        self.is_ascii = source.isascii()
        # Python reads identifiers in NFKC form: in text already in that form (any ASCII text,
        # and most other: emoji and accented letters are) the names are those the text says.
        self.names_as_written = self.is_ascii or unicodedata.is_normalized("NFKC", source)
        self.texts: dict[str, str] = {}

    def may_name(self, word: str) -> bool:
        """Whether an identifier or attribute `word` (ASCII) may occur: the text has it, or has
        characters that NFKC may turn into it (Python normalizes identifiers)."""
        return not self.names_as_written or word in self.source

    def lines_with(self, words: Iterable[str]) -> list[int]:
        """The numbers of the lines that hold any of `words` (which hold no line break), in
        order: `str.find` over the text, many times faster than a search of each line."""
        source = self.source
        offsets = []
        for word in words:
            at = source.find(word)
            while at >= 0:
                offsets.append(at)
                at = source.find(word, at + len(word))
        offsets.sort()
        found: list[int] = []
        if "\r" in source:  # rare: three kinds of line break
            starts = line_offsets(source)
            for offset in offsets:
                line = bisect.bisect_right(starts, offset)
                if not found or found[-1] != line:
                    found.append(line)
            return found
        line = 1
        counted = 0  # the offset up to which line breaks are counted
        for offset in offsets:
            line += source.count("\n", counted, offset)
            counted = offset
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
        if self.is_ascii:  # `position`'s first case, asked for every parameter: written out
            return Position(node.lineno, node.col_offset)
        return self.position(node.lineno, node.col_offset)

    def span(self, node: ast.AST) -> Span:
        if self.is_ascii:
            start = Position(node.lineno, node.col_offset)
            return Span(start, Position(node.end_lineno, node.end_col_offset))
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
        """The node's source as one line, for messages. The same text is one string object (a
        module writes `str` and `mcp` many times over), which pickle writes and reads once."""
        text = self.segment(node) if node.lineno == node.end_lineno else ast.unparse(node)
        return self.texts.setdefault(text, text)

    def label(self, node: ast.AST) -> str:
        """A short label of the node for messages: its first line (`ast.unparse` costs more than
        scanning, and this is asked for every argument that cannot be followed)."""
        if node.lineno == node.end_lineno:
            return self.segment(node)
        if self.is_ascii:
            return self.lines[node.lineno - 1][node.col_offset :].rstrip() + " ..."
        first = self.lines[node.lineno - 1].encode("utf-8")[node.col_offset :]
        return first.decode("utf-8", "replace").rstrip() + " ..."


def any_line_within(lines: list[int], node: ast.AST) -> bool:
    """Whether one of `lines` (sorted line numbers) is one of the node's."""
    index = bisect.bisect_left(lines, node.lineno)
    return index < len(lines) and lines[index] <= node.end_lineno
