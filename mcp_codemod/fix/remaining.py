"""What would fix a finding that `fix` left: the line `fix` prints under each one it could not fix.

`fix` re-checks what it was given after its changes; a finding still there means its fix was not
applied, and the user needs the one step that applies it: the command with the paths its edits
reach, `--unsafe-fixes`, the line to add by hand, or the rule's page.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from mcp_codemod.fix.line_wrap import carries_pragma
from mcp_codemod.rules.findings import Finding

FIX_COMMAND = ("mcp-codemod", "fix", "--write")


def what_fixes(
    finding: Finding,
    unsafe_fixes: bool,
    writable: Callable[[str], bool],
    paths: Sequence[str],
) -> str:
    """One line: how to fix `finding`, given the `paths` `fix` ran on (as typed) and which
    files it may edit (`writable`)."""
    fix = finding.fix
    if fix is None:
        return f"no automatic fix: `mcp-codemod rule {finding.code}` says what to change by hand"
    # Named by what they resolve to: the edit of a linked file is made in the file it links to.
    outside = sorted(
        {
            os.path.relpath(Path(edit.path).resolve())
            for edit in (*fix.markers, *fix.swaps)
            if not writable(edit.path)
        }
    )
    options = () if finding.applies(unsafe_fixes) else ("--unsafe-fixes",)
    command = shlex.join([*FIX_COMMAND, *options, *(paths or ["."]), *outside])
    if outside:
        where = ", ".join(outside)
        return f"its fix edits {where}, outside the given paths: `{command}`"
    if options:
        return f"its fix is unsafe (review the diff it prints without --write): `{command}`"
    if fix.advice:
        return fix.advice
    if _on_a_pragma_line(finding):
        return (
            "not fixed: the edit would split its line, whose pragma comment covers that line's "
            "code; make the edit by hand (`mcp-codemod rule " + finding.code + "`)"
        )
    return "its fix could not be applied (see the errors above)"


def _on_a_pragma_line(finding: Finding) -> bool:
    # `fix` leaves such a line as it was (fix/apply.py): a split would move the comment.
    try:
        lines = Path(finding.path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return 0 < finding.line <= len(lines) and carries_pragma(lines[finding.line - 1])
