"""What `fix` prints besides the diff: the summary line, the findings its fixes leave and the
step that fixes each, the summary of a fixed buffer (`fix -`); and `check --add-noqa`'s."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod.engine.file_facts import display_path
from mcp_codemod.report import plural
from mcp_codemod.rules.findings import Finding


@dataclass(frozen=True)
class FixSummary:
    """The counts the summary line says."""

    write: bool  # the changes were written (else: a dry run)
    fixed: int  # findings fixed
    partly: int  # findings fixed in part (an edit is outside the given paths)
    files: int  # the user's files changed
    unimportable: bool  # the fixed code would not import with the installed mcp
    guard_modules: tuple[str, ...]  # the guard modules (`runtime-module`) written
    incomplete: int  # findings that need an edit outside the given paths
    left: int  # findings whose fix does not apply (none, or unsafe without --unsafe-fixes)
    hidden: int  # of those, the ones `--unsafe-fixes` would fix


def fix_summary(summary: FixSummary) -> str:
    """One line; never "Fixed" over a server that no longer imports."""
    files = plural(summary.files, "file")
    if not summary.files:
        line = "Nothing to fix"
    elif summary.unimportable:
        line = (
            f"{'Changed' if summary.write else 'Would change'} {files}, "
            "but the fixed code would not import with the installed mcp (see the errors above)"
        )
    else:
        line = f"{'Fixed' if summary.write else 'Would fix'} {plural(summary.fixed, 'issue')}"
        if summary.partly:
            line += f" and {summary.partly} in part"
        line += f" in {files}"
    wrote = "wrote" if summary.write else "would write"
    for module in summary.guard_modules:
        line += f"; {wrote} the guard module {display_path(Path(module))}"
    line += "."
    if summary.incomplete:
        line += f" {summary.incomplete} need an edit outside the given paths (see the notes)."
    if summary.left:
        line += f" {summary.left} not fixed: see `mcp-codemod check`."
    if summary.hidden:
        hidden = plural(summary.hidden, "hidden fix", "hidden fixes")
        line += f" {hidden} can be enabled with `--unsafe-fixes`."
    return line


def finding_line(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {finding.message}"


def remaining_text(remaining: Sequence[tuple[Finding, str]]) -> str:
    """Each finding the fixes leave and the step that fixes it; empty when none is left."""
    if not remaining:
        return ""
    lines = [f"{plural(len(remaining), 'issue')} left after the fixes:"]
    for finding, step in remaining:
        lines += [finding_line(finding), f"  help: {step}"]
    return "\n".join(lines)


def buffer_summary(fixed: int, left: int, unimportable: bool) -> str:
    if unimportable:
        return "The fixed module would not import with the installed mcp (see the errors above)."
    return f"Fixed {plural(fixed, 'issue')}; {left} left."


def error_line(path: str, message: str) -> str:
    """A file that could not be checked, fixed or written."""
    return f"{path}: error: {message}"


def advice_note(advice: str) -> str:
    return f"note: {advice}"


def guard_module_written(path: str) -> str:
    return f"Wrote the guard module {os.path.relpath(path)}."


def noqa_summary(added: int, files: int) -> str:
    where = f" in {plural(files, 'file')}" if added else ""
    return f"Added {plural(added, 'noqa directive')}{where}."
