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
    return "its fix could not be applied (see the errors above)"
