"""Lines the fix made too long, split as ruff's formatter splits them.

A marker makes a signature longer (`query: str | None` → `query: Annotated[str | None,
NoPreParse]`), a merged import grows, a guarded class has a longer name. Where the result no
longer fits the project's line length, `ruff format --check` fails and `E501` may fire, on code
that passed both before the fix. So a line the fix edited that no longer fits is split as the
formatter (black's algorithm) would split it:

- at the last pair of brackets whose opening line fits (for a `def`, its parameters first), the
  content on one indented line between them ("hugging"), when it fits and holds a comma or is
  not a `def` (a lone parameter gets a trailing comma, and with it a line of its own);
- otherwise one element per line, each ending with a comma, each split again if still too long;
- `from m import a, b` in parentheses, one name per line (isort's and the formatter's layout).

A trailing comment stays at the end of the last line. Lines the fix did not touch are left as
they are, and so are lines that cannot be split (no brackets): the formatter could not split
them either. `tests/fix/test_ruff_oracle.py` holds the output to ruff's own verdict.
"""

from __future__ import annotations

import io
import itertools
import tokenize
from dataclasses import dataclass

from mcp_codemod.analysis.scan.positions import line_offsets

_OPENING = {"(": ")", "[": "]", "{": "}"}
_CLOSING = {")", "]", "}"}


@dataclass(frozen=True)
class LineStyle:
    """What the formatter is told: the line length and the indentation unit."""

    line_length: int = 88
    indent: str = "    "
    tab_width: int = 4

    def width(self, line: str) -> int:
        return len(line.expandtabs(self.tab_width))

    def fits(self, line: str) -> bool:
        """Whether the formatter leaves `line` as it is: a trailing pragma comment (`# noqa`,
        `# type: ignore`...) does not count, as in ruff."""
        # A line without `#` has no comment: asked of every edited line, most of them.
        scan = _scan(line) if "#" in line else None
        if scan is not None and scan.comment and _is_pragma(scan.comment):
            line = scan.code
        return self.width(line) <= self.line_length


def carries_pragma(line: str) -> bool:
    """Whether the line ends in a comment that is or holds a pragma (`# noqa`, `# type:
    ignore`, `# pyright:`, `# pragma: no cover`...), which covers the code of its line."""
    scan = _scan(line) if "#" in line else None
    if scan is None or not scan.comment:
        return False
    return any(
        _is_pragma(f"#{part}") or part.lstrip().startswith("pragma:")
        for part in scan.comment.split("#")[1:]
    )


def _is_pragma(comment: str) -> bool:
    """ruff's list of pragma comments, which it leaves out of a line's width."""
    content = comment[1:].lstrip()
    if content[:4].lower() == "noqa" or content.startswith("nosec"):
        return True
    prefix, colon, _ = content.partition(":")
    return bool(colon) and prefix in {"isort", "type", "pyright", "pylint", "flake8", "ruff"}


def wrap_edited_lines(text: str, edited_lines: set[int], style: LineStyle) -> str:
    """`text` with each line in `edited_lines` (0-based) that is too long split; lines whose
    layout is not one this module knows are left as they are."""
    offsets = [*line_offsets(text), len(text)]
    lines = [text[start:end] for start, end in itertools.pairwise(offsets) if start < end]
    long = {
        number
        for number in edited_lines
        if number < len(lines) and not style.fits(lines[number].rstrip("\r\n"))
    }
    if not long:
        return text
    try:
        inside = _inside_brackets(text, max(long))
    except (tokenize.TokenError, SyntaxError):  # not for this module to judge: left as it is
        return text
    out: list[str] = []
    for number, line in enumerate(lines):
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if number in long:
            split = _split(body, style, number in inside)
            if split is not None:
                out += [piece + (ending or "\n") for piece in split[:-1]]
                out.append(split[-1] + ending)
                continue
        out.append(line)
    return "".join(out)


def _inside_brackets(text: str, last: int) -> set[int]:
    """The lines (0-based, up to `last`) that start inside brackets opened on an earlier line."""
    if "\r" in text.replace("\r\n", ""):
        raise tokenize.TokenError("lines end in a lone carriage return; not followed here")
    inside: set[int] = set()
    depth = 0
    row = 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        start_row = token.start[0] - 1
        if start_row > last:
            break
        while row < start_row:
            row += 1
            if depth:
                inside.add(row)
        if token.type == tokenize.OP:
            if token.string in _OPENING:
                depth += 1
            elif token.string in _CLOSING:
                depth -= 1
    return inside


@dataclass(frozen=True)
class _Scan:
    """A line's top-level structure: its code without the comment, the comment, and the
    (opening, closing) positions of its top-level bracket pairs."""

    code: str
    comment: str
    pairs: list[tuple[int, int]]
    commas: list[int]  # top-level commas
    unbalanced: bool  # brackets that open or close outside the line


def _scan(line: str) -> _Scan | None:
    """None when the line holds a string this scanner does not follow (a triple-quoted one)."""
    depth: list[tuple[str, int]] = []
    pairs: list[tuple[int, int]] = []
    commas: list[int] = []
    unbalanced = False
    index = 0
    while index < len(line):
        char = line[index]
        if char in "'\"":
            if line.startswith(char * 3, index):
                return None
            end = index + 1
            while end < len(line) and line[end] != char:
                end += 2 if line[end] == "\\" else 1
            if end >= len(line):
                return None
            index = end + 1
            continue
        if char == "#":
            code = line[:index].rstrip()
            return _Scan(code, line[index:], pairs, commas, unbalanced or bool(depth))
        if char in _OPENING:
            depth.append((char, index))
        elif char in _CLOSING:
            if not depth:
                unbalanced = True
            else:
                _, start = depth.pop()
                if not depth:
                    pairs.append((start, index))
        elif char == "," and not depth:
            commas.append(index)
        index += 1
    return _Scan(line.rstrip(), "", pairs, commas, unbalanced or bool(depth))


def _split(line: str, style: LineStyle, inside: bool) -> list[str] | None:
    """`inside`: the line continues brackets opened above (one or more elements of them)."""
    scan = _scan(line)
    if scan is None or scan.unbalanced:
        return None
    indent = line[: len(line) - len(line.lstrip())]
    code = scan.code[len(indent) :]
    comment = f"  {scan.comment}" if scan.comment else ""
    if not inside and code.startswith("from ") and " import " in code and "(" not in code:
        return _split_import(indent, code, comment, style)
    if inside and any(comma < len(scan.code) - 1 for comma in scan.commas):
        return _explode(indent, scan, comment, style)
    if not scan.pairs:
        return None
    candidates = list(reversed(scan.pairs))
    if code.startswith(("def ", "async def ")):
        # The parameters are split before anything in the return annotation.
        candidates = [next(pair for pair in scan.pairs if line[pair[0]] == "(")]
    for number, (start, end) in enumerate(candidates):
        head = line[: start + 1]
        if style.width(head) <= style.line_length or number == len(candidates) - 1:
            return _bracket_split(line, indent, start, end, scan, comment, style)
    return None


def _bracket_split(
    line: str, indent: str, start: int, end: int, scan: _Scan, comment: str, style: LineStyle
) -> list[str]:
    head = line[: start + 1]
    body = line[start + 1 : end].strip()
    tail = scan.code[end:] + comment
    inner = indent + style.indent
    is_def = line.lstrip().startswith(("def ", "async def "))
    body_scan = _scan(body)
    has_comma = body_scan is not None and bool(body_scan.commas)
    magic = body.endswith(",")
    if not body:
        return [line]
    if not magic and (has_comma or not is_def) and style.width(inner + body) <= style.line_length:
        return [head, inner + body, indent + tail]
    if body_scan is None:
        return [head, inner + body, indent + tail]
    elements = _elements(body, body_scan)
    lines = [head]
    for element in elements:
        element_line = f"{inner}{element},"
        if style.width(element_line) > style.line_length:
            lines += _split(element_line, style, True) or [element_line]
        else:
            lines.append(element_line)
    return [*lines, indent + tail]


def _elements(body: str, scan: _Scan) -> list[str]:
    bounds = [-1, *scan.commas, len(body)]
    pieces = [body[a + 1 : b].strip() for a, b in itertools.pairwise(bounds)]
    return [piece for piece in pieces if piece]


def _explode(indent: str, scan: _Scan, comment: str, style: LineStyle) -> list[str] | None:
    """A hugged line of elements inside brackets opened above: one element per line."""
    code = scan.code[len(indent) :]
    body_scan = _scan(code)
    if body_scan is None:
        return None
    lines = []
    for element in _elements(code, body_scan):
        element_line = f"{indent}{element},"
        if style.width(element_line) > style.line_length:
            lines += _split(element_line, style, True) or [element_line]
        else:
            lines.append(element_line)
    lines[-1] += comment
    return lines


def _split_import(indent: str, code: str, comment: str, style: LineStyle) -> list[str]:
    module, names = code.split(" import ", 1)
    members = [name.strip() for name in names.split(",") if name.strip()]
    inner = indent + style.indent
    return [
        f"{indent}{module} import ({comment}".rstrip(),
        *(f"{inner}{member}," for member in members),
        f"{indent})",
    ]
