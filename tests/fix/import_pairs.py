"""Before/after pairs of the imports `fix` adds and removes. Every pair is also fixed a second
time (nothing may change), parsed, and linted with `ruff check --isolated --select I` (import
order, default settings): a file that passed before passes after.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

from mcp_codemod.engine.checker import check_files
from mcp_codemod.fix.apply import fix_findings, write
from mcp_codemod.rules import select_rules


def fix_once(paths: list[Path]) -> list[Path]:
    """Fix `paths` in place; the files that changed."""
    result = check_files(paths, select_rules(None, []))
    outcome = fix_findings(result.findings, result.digests, {p.resolve() for p in paths})
    assert outcome.failures == ()
    for change in outcome.files:
        write(change)
    return [Path(change.path) for change in outcome.files]


def sorted_imports(directory: Path, name: str) -> bool:
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", "I", name],
        cwd=directory,
        capture_output=True,
        text=True,
    )
    assert lint.returncode in (0, 1), lint.stderr
    return lint.returncode == 0


def assert_fix(tmp_path: Path, files: dict[str, str], expected: dict[str, str]) -> None:
    """Write `files`, fix them, compare with `expected` (the files that change), then fix again."""
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8", newline="")
        paths.append(path)
    sorted_before = {name: sorted_imports(tmp_path, name) for name in files}
    fix_once(paths)
    for name, text in expected.items():
        assert (tmp_path / name).read_bytes().decode() == dedent(text), name
    for name in files:
        fixed = (tmp_path / name).read_bytes().decode()
        ast.parse(fixed)
        if sorted_before[name]:
            assert sorted_imports(tmp_path, name), f"{name} passed ruff's I rules before the fix"
    assert fix_once(paths) == []
