import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# `CODE parameter`, or `CODE server` for a finding about a server.
_EXPECT = re.compile(r"expect: ((?:MCP\d{3} \w+(?:, )?)+)")


def expected_findings(directory: Path) -> set[tuple[str, int, str, str]]:
    """The `# expect: CODE parameter` comments of the fixture servers: (file, line, code, name)."""
    expected = set()
    for path in sorted(directory.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = _EXPECT.search(line)
            if match:
                for item in match.group(1).split(", "):
                    code, name = item.split()
                    expected.add((path.relative_to(directory).as_posix(), number, code, name))
    return expected


@pytest.fixture
def fixtures_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture servers."""
    import shutil

    target = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def run_cli(*args: str, cwd: Path):
    """`mcp-codemod ARGS` run in `cwd`, in this process."""
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(previous)
