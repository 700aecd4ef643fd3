"""`check --add-noqa`: a `# noqa: CODE` comment on the line of each finding, ruff's way to accept
today's findings (a baseline) and block only new ones.

Idempotent (a suppressed finding is no longer found), and it keeps what is there: codes already
in the line's `noqa` comment stay (the new ones are added to it), and another comment on the
line stays after it. The comment starts with `# noqa`, a pragma comment that ruff's formatter
does not count in a line's width, so no line that `ruff format` keeps is reflowed. A line whose
end lies inside a string or continues with a backslash cannot take a comment: it is reported.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod.engine.source_files import SourceError, read_for_rewrite, write_source
from mcp_codemod.rules.findings import Finding

# A noqa comment, blanket or with its codes, in ruff's form.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)


@dataclass(frozen=True)
class NoqaResult:
    added: int  # codes added, over all lines
    files: int  # files changed
    failures: tuple[tuple[str, str], ...]  # (path, message), one per file or line


def add_noqa(findings: tuple[Finding, ...]) -> NoqaResult:
    by_file: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for finding in findings:
        by_file[finding.path][finding.line].add(finding.code)
    added = files = 0
    failures: list[tuple[str, str]] = []
    for path, lines in sorted(by_file.items()):
        try:
            data, source = read_for_rewrite(Path(path))
            text, count, refused = _with_noqa(source.text, lines)
            failures.extend((f"{path}:{line}", message) for line, message in refused)
            if count:
                write_source(Path(path), text, source.encoding, data)
                added += count
                files += 1
        except SourceError as error:
            failures.append((path, str(error)))
    return NoqaResult(added, files, tuple(failures))


def _with_noqa(text: str, wanted: dict[int, set[str]]) -> tuple[str, int, list[tuple[int, str]]]:
    """The text with the codes added on their lines, how many were added, and the lines that
    cannot take a comment."""
    lines = text.splitlines(keepends=True)
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
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        column = comments.get(number)
        if column is None:
            new = sorted(codes)
            body = f"{body.rstrip()}  # noqa: {', '.join(new)}"
        else:
            code, comment = body[:column], body[column:]
            match = _NOQA.match(comment)
            if match is not None and match.group("codes") is None:
                continue  # a blanket noqa comment suppresses every code already
            if match is not None:
                present = [c.strip() for c in match.group("codes").split(",")]
                new = sorted(codes - {c.upper() for c in present})
                if not new:
                    continue
                comment = f"# noqa: {', '.join([*present, *new])}" + comment[match.end() :]
            else:
                new = sorted(codes)
                comment = f"# noqa: {', '.join(new)}  {comment}"
            body = code + comment
        lines[number - 1] = body + ending
        added += len(new)
    return "".join(lines), added, refused


def _line_ends(text: str) -> tuple[dict[int, int], set[int]]:
    """The column of each line's comment, and the lines whose end closes a logical or
    physical line outside any string (where a comment may go)."""
    comments: dict[int, int] = {}
    closed: set[int] = set()
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    try:
        for token in tokens:
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.start[1]
            elif token.type in (tokenize.NEWLINE, tokenize.NL):
                closed.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass  # the lines seen so far are known; the others are refused
    return comments, closed
