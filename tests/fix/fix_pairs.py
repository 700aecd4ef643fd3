"""Before/after pairs of the codemod (libcst's CodemodTest style): files written, fixed once in
memory with the safe fixes (as `fix --write`), and compared.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from mcp_codemod.engine.checker import check_files
from mcp_codemod.fix.apply import fix_findings
from mcp_codemod.rules import select_rules


def fix_tree(tmp_path: Path, files: dict[str, str], rules=None) -> dict[str, str]:
    """Write `files`, fix them once in memory with the safe fixes (as `fix --write`), and return
    every file's text afterwards."""
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")
        paths.append(path)
    result = check_files(paths, rules or select_rules(None, []))
    safe = tuple(f for f in result.findings if f.applies(unsafe_fixes=False))
    outcome = fix_findings(safe, result.digests, frozenset(path.resolve() for path in paths))
    assert outcome.failures == ()
    fixed = {Path(change.path).resolve(): change.fixed for change in outcome.files}
    return {
        name: fixed.get((tmp_path / name).resolve(), dedent(text)) for name, text in files.items()
    }


def assert_fix(tmp_path: Path, before: str, after: str, rules=None) -> None:
    assert fix_tree(tmp_path, {"server.py": before}, rules)["server.py"] == dedent(after)
