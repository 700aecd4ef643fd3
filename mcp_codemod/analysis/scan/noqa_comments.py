"""The `noqa` directives of a module's comments, by line, read from the tokens as ruff reads
them."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_right
from collections.abc import Iterator

from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.syntax import statements

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)


def noqa_lines(text: SourceText, tree: ast.Module) -> dict[int, frozenset[str] | None]:
    """The `noqa` directives of the module's comments, by line. Read from the tokens, as ruff
    reads them: `"# noqa"` inside a string literal is text, and suppresses nothing."""
    found: dict[int, frozenset[str] | None] = {}
    if "noqa" not in text.source and "NOQA" not in text.source:
        return found
    candidates = [n for n in text.lines_with(("#",)) if _NOQA.search(text.lines[n - 1])]
    if not candidates:
        return found
    for line, comment in _comments_on(text, tree, candidates):
        match = _NOQA.search(comment)
        if match:
            codes = match.group("codes")
            found[line] = frozenset(c.strip().upper() for c in codes.split(",")) if codes else None
    return found


def _comments_on(text: SourceText, tree: ast.Module, lines: list[int]) -> Iterator[tuple[int, str]]:
    """The comments on `lines` (sorted), as the tokenizer reads them. Tokenizing the whole
    module would cost more than parsing it: each line's text is tokenized from the start of the
    last statement that begins at or before it (outside any string, whatever came before),
    inside an opening bracket (so that indentation does not matter), once per such start."""
    starts: dict[int, int] = {}
    for statement in statements(tree.body):
        line, column = statement.lineno, statement.col_offset
        if column < starts.get(line, column + 1):
            starts[line] = column
    ordered = sorted(starts)
    groups: dict[tuple[int, int], list[int]] = {}
    for line in lines:
        index = bisect_right(ordered, line) - 1
        start = (ordered[index], starts[ordered[index]]) if index >= 0 else (1, 0)
        groups.setdefault(start, []).append(line)
    for (first, column), wanted in groups.items():
        head = text.lines[first - 1]
        head = (
            head[column:] if head.isascii() else head.encode()[column:].decode("utf-8", "replace")
        )
        fragment = "\n".join(["(" + head, *text.lines[first : wanted[-1]]]) + "\n"
        wanted_lines = set(wanted)
        tokens = tokenize.generate_tokens(io.StringIO(fragment).readline)
        try:
            for token in tokens:
                line = first + token.start[0] - 1
                if token.type == tokenize.COMMENT and line in wanted_lines:
                    yield line, token.string
        except (tokenize.TokenError, SyntaxError):
            pass  # the fragment ends inside a bracket or a string: what it held is read
