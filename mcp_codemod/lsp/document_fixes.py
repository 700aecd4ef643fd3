"""The edits of quick fixes, from the fix engine `fix --write` runs: each file's edits as
character offsets in the text they apply to (the open buffer, or another file the fix reaches)."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod import fix_workflow
from mcp_codemod.analysis.scan.positions import line_offsets
from mcp_codemod.engine.file_io import SourceError, read_for_rewrite
from mcp_codemod.engine.settings import ConfigError
from mcp_codemod.fix.apply import FixError, edit, plan
from mcp_codemod.fix.format_style import FormatStyles
from mcp_codemod.fix.guard_module import guard_module_change
from mcp_codemod.fix.imports.dependents import Importers
from mcp_codemod.fix.imports.plan import RUNTIME
from mcp_codemod.fix.noqa import with_noqa
from mcp_codemod.fix.runtime_names import ModuleImports
from mcp_codemod.lsp.document_check import DocumentCheck
from mcp_codemod.rules.findings import Finding

_LINE_END = re.compile(r"(?:\r\n|\r|\n)$")

TextEdit = tuple[int, int, str]  # start and end offsets (characters) and the replacement


@dataclass(frozen=True)
class FileEdits:
    path: Path
    text: str  # the text the edits apply to
    edits: tuple[TextEdit, ...]
    version: int | None  # the open buffer's version; None: the file on disk
    create: bool = False  # the file does not exist yet (the project's guard module)


class FixUnavailable(Exception):
    """Why a fix cannot be offered as an edit here, one line (it says where to fix by hand)."""


# What the editor holds of a file other than the checked one: its text and version, or None
# when it is not open.
OpenText = Callable[[Path], tuple[str, int | None] | None]


def fix_edits(
    check: DocumentCheck,
    findings: tuple[Finding, ...],
    open_text: OpenText,
    editable: Callable[[Path], bool],
) -> tuple[FileEdits, ...]:
    """The edits of the findings' fixes, per file, as `fix --write` would make them. A fix that
    reaches another file (a server constructed elsewhere, an alias defined elsewhere) edits it
    too, if it is `editable` (in the workspace) and the editor's text of it is the file's; else
    raises FixUnavailable saying where. Raises FixUnavailable also when the fix engine refuses,
    and when the fixed code would import a runtime name the installed mcp lacks (as `fix`, which
    never says "Fixed" over it: `fix_workflow.missing_runtime_names`)."""
    planned = plan(findings, lambda _path: True)
    runtime = (check.settings.runtime_module if check.settings else None) or RUNTIME
    importers = (
        Importers(check.settings.excludes, check.settings.respect_gitignore)
        if check.settings
        else Importers()
    )
    styles = FormatStyles()
    here = os.path.normpath(check.path)
    changes = []
    # The path as shown, the text and the fixed text of each file (what the fix read of their
    # trees).
    fixed_texts: list[tuple[str, str | ModuleImports, str | ModuleImports]] = []
    swapped: dict[str, frozenset[str]] = {}  # the guarded classes swapped in, per file
    for display, file_plan in sorted(planned.files.items()):
        target = Path(os.path.normpath(os.path.join(os.getcwd(), display)))
        line = min(
            [span.start.line for span in (*file_plan.swaps, *file_plan.guards)]
            + [span.start.line for span in file_plan.markers]
            + [position.line for position in file_plan.annotations]
        )
        # Paths as the document's directory sees them: the server's working directory is
        # whichever the editor chose.
        shown = os.path.relpath(target, check.path.parent)
        if shown.startswith(os.pardir):
            shown = str(target)
        if str(target) == here:
            text, version = check.text, check.version
        else:
            text, version = _other_file(target, shown, line, open_text, editable)
        try:
            edited = edit(
                text,
                file_plan,
                path=target,
                runtime=runtime,
                style=styles.of(target),
                importers=importers,
            )
        except FixError as error:
            raise FixUnavailable(f"{shown}:{line}: {error}") from None
        changes.append(FileEdits(target, text, edited.edits, version))
        fixed_texts.append(
            (shown, edited.original_imports or text, edited.fixed_imports or edited.text)
        )
        swapped[shown] = frozenset(file_plan.swaps.values())
    unimportable = fix_workflow.missing_runtime_names(fixed_texts, {RUNTIME, runtime}, swapped)
    if unimportable:
        raise FixUnavailable(unimportable[0].replace(": error: ", ": ", 1))
    if check.settings is not None and check.settings.runtime_module is not None and changes:
        changes.extend(_guard_module(check))
    return tuple(changes)


def _other_file(
    target: Path, shown: str, line: int, open_text: OpenText, editable: Callable[[Path], bool]
) -> tuple[str, int | None]:
    if not editable(target):
        raise FixUnavailable(f"the fix edits {shown}:{line}, outside the workspace: fix it there")
    try:
        _data, source = read_for_rewrite(target)
    except SourceError as error:
        raise FixUnavailable(f"the fix edits {shown}:{line}, which {error}") from None
    opened = open_text(target)
    if opened is None:
        return source.text, None
    text, version = opened
    if text != source.text:
        # The analysis read the file on disk: its spans are not the buffer's.
        raise FixUnavailable(f"the fix edits {shown}:{line}: save it first")
    return text, version


def _guard_module(check: DocumentCheck) -> list[FileEdits]:
    """The project's guard module (`runtime-module`), written or refreshed as `fix` does."""
    settings = check.settings
    assert settings is not None and settings.runtime_module is not None
    try:
        change = guard_module_change(settings.runtime_module, settings.config_file, needed=True)
    except (SourceError, ConfigError) as error:
        raise FixUnavailable(f"`runtime-module` {settings.runtime_module}: {error}") from None
    if change is None:
        return []
    path = Path(os.path.abspath(change.path))
    edits = ((0, len(change.original), change.fixed),)
    return [FileEdits(path, change.original, edits, None, create=not change.data)]


def noqa_edit(text: str, line: int, code: str) -> TextEdit | None:
    """The edit that suppresses `code` on `line` (1-based), as `check --add-noqa` makes it
    (`fix.noqa.with_noqa`): the line's `noqa` directive gains the code, or one is added. None
    where a comment cannot go (the line ends inside a string or with a backslash) or the text
    does not parse."""
    offsets = line_offsets(text)
    if line > len(offsets):
        return None
    try:
        ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    fixed, added, _refused = with_noqa(text, {line: {code}})
    if not added:
        return None
    start = offsets[line - 1]
    end = offsets[line] if line < len(offsets) else len(text)
    body = _LINE_END.sub("", text[start:end])
    # Only this line changed: its new text is what stands between the same neighbours.
    after = len(text) - start - len(body)
    return (start, start + len(body), fixed[start : len(fixed) - after])
