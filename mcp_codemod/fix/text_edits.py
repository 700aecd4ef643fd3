"""The text edits a fix is made of, on a module's source: the one edit between two texts,
many edits made in one pass (and the lines they touched), an annotation given to a parameter,
a marker appended to `Annotated[...]` metadata laid out as its elements are."""

from __future__ import annotations

import bisect
import re

from mcp_codemod.analysis.scan.positions import line_offsets


class FixError(Exception):
    """A file the fixer refuses to change; the message is one line."""


def changed_span(before: str, after: str) -> tuple[int, int, str]:
    """The one edit of `before` that makes `after`: everything between their common ends."""
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and before[len(before) - 1 - suffix] == after[len(after) - 1 - suffix]
    ):
        suffix += 1
    return prefix, len(before) - suffix, after[prefix : len(after) - suffix]


def splice(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, dict[int, int | None]]:
    """`text` with every edit made in one pass (insertions at one offset keep their order), and
    the lines (0-based) of the result that the edits touched, each with the line of `text` it
    was (None for the lines of a new statement)."""
    pieces: list[str] = []
    position = 0
    length = 0  # of the result so far
    old_offsets = line_offsets(text)
    touched: list[tuple[int, int, int | None]] = []  # spans of the result, their line before
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        if start < position:
            raise FixError("overlapping edits (a bug of ours); left unchanged")
        kept = text[position:start]
        pieces += [kept, replacement]
        length += len(kept)
        before = bisect.bisect_right(old_offsets, start) - 1
        touched.append((length, length + len(replacement), None if "\n" in replacement else before))
        length += len(replacement)
        position = end
    pieces.append(text[position:])
    result = "".join(pieces)
    offsets = line_offsets(result)
    lines: dict[int, int | None] = {}
    for start, end, before in touched:
        first = bisect.bisect_right(offsets, start) - 1
        last = bisect.bisect_right(offsets, max(start, end - 1)) - 1
        for line in range(first, last + 1):
            if lines.get(line, -1) is not None:
                lines[line] = before
    return result, lines


# An unannotated parameter's default: `name=value`, written `name: T = value` once annotated.
_DEFAULT = re.compile(r"[ \t]*=[ \t]*")


def annotate_parameter(text: str, at: int, annotation: str) -> tuple[int, int, str]:
    """The edit that annotates the parameter whose name ends at `at`, spacing its default as
    PEP 8 and ruff's formatter want an annotated one."""
    default = _DEFAULT.match(text, at)
    if default is None:
        return at, at, f": {annotation}"
    value_follows = text[default.end() : default.end() + 1] not in ("", "\r", "\n")
    return at, default.end(), f": {annotation} =" + (" " if value_follows else "")


# After the last element of a multi-line `Annotated[...]`: a trailing comma (and maybe a comment)
# ending the line, or a line break before the closing bracket.
_TRAILING_COMMA_LINE = re.compile(r",[ \t]*(?:#[^\r\n]*)?(\r\n|\r|\n)")
_BREAK_BEFORE_BRACKET = re.compile(r"[ \t]*(\r\n|\r|\n)[ \t]*\]")


def append_metadata(text: str, at: int, names: str) -> tuple[int, int, str]:
    """The edit that appends `names` to the `Annotated[...]` metadata ending at `at`, laid out
    as the surrounding elements are: one per line where they are one per line."""
    indent = re.match(r"[ \t]*", text[text.rfind("\n", 0, at) + 1 :]).group()
    trailing = _TRAILING_COMMA_LINE.match(text, at)
    if trailing:
        end = trailing.end()
        return end, end, f"{indent}{names},{trailing.group(1)}"
    closing = _BREAK_BEFORE_BRACKET.match(text, at)
    if closing:
        return at, at, f",{closing.group(1)}{indent}{names}"
    return at, at, f", {names}"
