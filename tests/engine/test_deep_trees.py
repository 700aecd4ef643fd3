"""A file far below the project's root is found, checked and fixed like any other."""

from __future__ import annotations

import os
import sys

import pytest
from conftest import run_cli
from demo_servers import EXPOSED as SERVER

# Deeper than Python recurses (1,000 by default; issue 24 used 1,500).
DEPTH = sys.getrecursionlimit() + 100


@pytest.mark.parametrize("packages", [False, True], ids=["directories", "packages"])
def test_a_file_deeper_than_python_recurses_is_checked_and_fixed(tmp_path, packages):
    directory = str(tmp_path)
    for _ in range(DEPTH):
        directory = os.path.join(directory, "d")
        os.mkdir(directory)
        if packages:
            open(os.path.join(directory, "__init__.py"), "w").close()
    server = os.path.join(directory, "server.py")
    with open(server, "w") as file:
        file.write(SERVER)

    try:
        checked = run_cli("check", "--no-cache", ".", cwd=tmp_path)
        assert checked.exit_code == 1 and ":7:12: MCP001" in checked.output
        fixed = run_cli("fix", "--write", "--no-cache", ".", cwd=tmp_path)
        assert fixed.exit_code == 0, fixed.output[-300:]
        assert "internal error" not in fixed.output
        with open(server) as file:
            assert "Annotated[str | None, NoPreParse]" in file.read()
    finally:
        _remove_chain(directory, str(tmp_path))


def _remove_chain(deepest: str, top: str) -> None:
    """Remove the chain of directories from the deepest up, without recursion: pytest's own
    clean-up of old temporary directories (`shutil.rmtree`) recurses once per level and would
    fail on this tree in a later session."""
    while deepest != top:
        for name in os.listdir(deepest):
            os.remove(os.path.join(deepest, name))
        os.rmdir(deepest)
        deepest = os.path.dirname(deepest)
