"""One open document checked as `mcp-codemod check - --stdin-filename PATH` checks it: the
unsaved text, its imports followed on disk, the configuration of its own project."""

from __future__ import annotations

import os
import re
import traceback
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod import api
from mcp_codemod.analysis.subjects import UncheckedRegistration
from mcp_codemod.engine.settings import ConfigError, Settings, find_config
from mcp_codemod.rules.findings import Finding

# PEP 263: a coding declaration on the first or second line.
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)
# What `file_facts` says of a file `ast` cannot parse: "cannot parse (line 3, column 5): …".
_WHERE = re.compile(r"\(line (\d+)(?:, column (\d+))?\)")


@dataclass(frozen=True)
class DocumentCheck:
    path: Path  # absolute, as the editor names the document
    text: str  # the text checked
    version: int | None  # the editor's version of that text
    settings: Settings | None  # None when the configuration cannot be read
    findings: tuple[Finding, ...]  # in this document
    # Registrations in this document on a server whose framework is unknown: nothing reports
    # them, and the document is not clean while they go unchecked.
    unchecked: tuple[UncheckedRegistration, ...] = ()
    # Why the document could not be checked (its syntax, the configuration), one line.
    error: str | None = None
    error_position: tuple[int, int] = (1, 1)  # 1-based line and column of the error


def check_document(
    path: Path, text: str, version: int | None, workspace: Path | None
) -> DocumentCheck:
    """`workspace`: the folder the document belongs to, where the cache is kept when no
    `pyproject.toml` with a `[tool.mcp-codemod]` table is at or above the document."""
    try:
        config = find_config(path.parent)
    except ConfigError as error:
        return DocumentCheck(path, text, version, None, (), error=str(error))
    options = api.Options(
        config=config,
        project=workspace or path.parent,
        # One process: forking the server's threads to parse one buffer would cost more than
        # it saves.
        jobs=1,
    )
    try:
        settings, result = api.check_paths((), options, stdin=(path, source_bytes(text)))
    except api.UsageError as error:
        return DocumentCheck(path, text, version, None, (), error=str(error))
    except Exception as error:  # a bug of ours: the document's error, and the server goes on
        if os.environ.get("MCP_CODEMOD_DEBUG"):
            traceback.print_exc()  # standard error: the editor's log of the server
        message = f"internal error ({type(error).__name__}: {error}); please report it"
        return DocumentCheck(path, text, version, None, (), error=message)
    is_here = _is_document(path)
    findings = tuple(f for f in result.findings if is_here(f.path))
    unchecked = tuple(
        tool for tool in result.unchecked if tool.server.framework is None and is_here(tool.path)
    )
    for error in result.errors:
        if is_here(error.path):
            where = _WHERE.search(error.message)
            position = (int(where.group(1)), int(where.group(2) or 1)) if where else (1, 1)
            return DocumentCheck(
                path, text, version, settings, findings, unchecked, error.message, position
            )
    return DocumentCheck(path, text, version, settings, findings, unchecked)


def source_bytes(text: str) -> bytes:
    """The buffer's text as the file would hold it: in its declared encoding, else UTF-8."""
    head = text.split("\n", 2)[:2]
    match = _CODING.search("\n".join(head))
    if match:
        try:
            return text.encode(match.group(1))
        except (LookupError, UnicodeError):
            pass  # the analysis reports the declaration as it reports it for the file
    # A lone surrogate (JSON can carry one) stays a byte sequence UTF-8 cannot decode: the
    # analysis reports the document as undecodable instead of this server failing.
    return text.encode("utf-8", "surrogatepass")


def _is_document(path: Path):
    """Whether a path as findings show it (relative to the working directory) is `path`: asked
    of every finding, of a few paths."""
    here, cwd = os.path.normpath(path), os.getcwd()
    answers: dict[str, bool] = {}

    def is_here(display: str) -> bool:
        if display not in answers:
            answers[display] = os.path.normpath(os.path.join(cwd, display)) == here
        return answers[display]

    return is_here
