"""`check --add-noqa`: a `# noqa: CODE` comment on the line of each finding, ruff's way to accept
today's findings (a baseline) and block only new ones.

Idempotent (a suppressed finding is no longer found), and every directive already on the line
keeps working for its own tool: codes already in the line's `noqa` directive stay (the new ones
are added to it, wherever it stands in the comment: a second directive would hide the first
from ruff), a comment that starts with another pragma (`# type: ignore[...]`, which Python's
parser and mypy read only at the start of a comment; `# pyright:`, `# pylint:`...) keeps its
place and the directive follows it, and any other comment stays after the directive. The
comment then starts with a pragma, which ruff's formatter does not count in a line's width, so
no line that `ruff format` keeps is reflowed. A line whose end lies inside a string or
continues with a backslash cannot take a comment: it is reported.

Files are written under `fix --write`'s rules (`engine/file_io.write_source`): only files
discovery found under the paths given (a link found there that points out of them is refused),
only while they hold the bytes that were checked, owner and mode kept; one line per refused
file. Lines end as Python ends them (`\r\n`, `\r`, `\n`), and each keeps its own ending.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod.engine.facts_cache import digest
from mcp_codemod.engine.file_io import CHANGED, SourceError, read_for_rewrite, write_source
from mcp_codemod.rules.findings import Finding

# A noqa comment, blanket or with its codes, in ruff's form.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)
# A comment that starts with a pragma of another tool, as ruff's formatter recognises them
# (`type:` must stay first for Python's parser and mypy; the others keep their place too).
_PRAGMA = re.compile(r"#\s*(?:(?:type|pyright|pylint|flake8|ruff|isort|mypy):|nosec\b)")
# A physical line and its ending, as Python ends lines (`str.splitlines` also splits at
# `\x0c`, `\x1c`, `\u2028`...).
_LINE_END = re.compile(r"(\r\n|\r|\n)")
_OUTSIDE = (
    "outside the given paths (a module an import leads to, or a link out of them): pass its path"
)


@dataclass(frozen=True)
class NoqaResult:
    added: int  # codes added, over all lines
    files: int  # files changed
    failures: tuple[tuple[str, str], ...]  # (path, message), one per file or line


def add_noqa(
    findings: tuple[Finding, ...], digests: Mapping[str, bytes], writable: Collection[Path]
) -> NoqaResult:
    """Add the findings' codes on their lines, in the files of `writable` (resolved: what
    discovery found under the paths given) that still hold the bytes that were checked
    (`digests`, by absolute path)."""
    by_file: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for finding in findings:
        by_file[finding.path][finding.line].add(finding.code)
    added = files = 0
    failures: list[tuple[str, str]] = []
    targets: set[Path] = set()
    for path, lines in sorted(by_file.items()):
        target = Path(path).resolve()
        if target not in writable:
            failures.append((path, f"{_OUTSIDE}; left unchanged"))
            continue
        if target in targets:  # the same file under another name: its lines are done
            continue
        targets.add(target)
        try:
            data, source = read_for_rewrite(Path(path))
            if digest(data) != digests.get(os.path.abspath(path)):
                raise SourceError(CHANGED)
            text, count, refused = with_noqa(source.text, lines)
            failures.extend((f"{path}:{line}", message) for line, message in refused)
            if count:
                write_source(Path(path), text, source.encoding, data)
                added += count
                files += 1
        except SourceError as error:
            failures.append((path, str(error)))
    return NoqaResult(added, files, tuple(failures))


def with_noqa(text: str, wanted: dict[int, set[str]]) -> tuple[str, int, list[tuple[int, str]]]:
    """The text with the codes added on their lines, how many were added, and the lines that
    cannot take a comment (the language server's noqa action makes the same edit)."""
    lines = _physical_lines(text)
    comments, closed = _line_ends(text)
    added = 0
    refused = []
    for number, codes in sorted(wanted.items()):
        if number > len(lines):
            continue
        if number not in closed:
            refused.append(
                (number, "cannot add `# noqa`: the line ends inside a string or a continuation")
            )
            continue
        body, ending = lines[number - 1]
        column = comments.get(number)
        if column is None:
            new = sorted(codes)
            body = f"{body.rstrip()}  # noqa: {', '.join(new)}"
        else:
            code, comment = body[:column], body[column:]
            match = _NOQA.search(comment)
            if match is not None and match.group("codes") is None:
                continue  # a blanket noqa comment suppresses every code already
            if match is not None:
                present = [c.strip() for c in match.group("codes").split(",")]
                new = sorted(codes - {c.upper() for c in present})
                if not new:
                    continue
                directive = f"# noqa: {', '.join([*present, *new])}"
                comment = comment[: match.start()] + directive + comment[match.end() :]
            elif _PRAGMA.match(comment):
                new = sorted(codes)
                comment = f"{comment.rstrip()}  # noqa: {', '.join(new)}"
            else:
                new = sorted(codes)
                comment = f"# noqa: {', '.join(new)}  {comment}"
            body = code + comment
        lines[number - 1] = (body, ending)
        added += len(new)
    return "".join(body + ending for body, ending in lines), added, refused


def _physical_lines(text: str) -> list[tuple[str, str]]:
    """Each line's text and its ending."""
    parts = _LINE_END.split(text)
    lines = list(zip(parts[0::2], [*parts[1::2], ""], strict=True))
    return lines[:-1] if lines[-1] == ("", "") else lines


def _line_ends(text: str) -> tuple[dict[int, int], set[int]]:
    """The column of each line's comment, and the lines whose end closes a logical or
    physical line outside any string (where a comment may go)."""
    comments: dict[int, int] = {}
    closed: set[int] = set()
    # Universal newlines: the tokenizer numbers the lines of a CR-only file as Python does.
    tokens = tokenize.generate_tokens(io.StringIO(text, newline=None).readline)
    try:
        for token in tokens:
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.start[1]
            elif token.type in (tokenize.NEWLINE, tokenize.NL):
                closed.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass  # the lines seen so far are known; the others are refused
    return comments, closed
