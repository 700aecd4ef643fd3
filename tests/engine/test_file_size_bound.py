"""A file larger than `max-file-size` that could hold a tool is reported as not checked, one
line per file, instead of being parsed (a parse holds many times the file's size:
bench/HISTORY.md)."""

from __future__ import annotations

import pytest
from conftest import run_cli

from mcp_codemod.engine.settings import DEFAULT_MAX_FILE_SIZE

SERVER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("t")


@mcp.tool()
def search(query: str) -> str:
    return query
"""


def test_a_server_over_the_default_bound_is_reported_not_parsed(tmp_path):
    padding = "VALUES = [\n" + "    1,\n" * (DEFAULT_MAX_FILE_SIZE // 7) + "]\n"
    big = SERVER + padding
    (tmp_path / "generated.py").write_text(big)
    (tmp_path / "data.py").write_text(padding)  # cannot register a tool: nothing unchecked
    (tmp_path / "server.py").write_text(SERVER)
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"generated.py: error: not checked: {len(big):,} bytes, over max-file-size "
        f"({DEFAULT_MAX_FILE_SIZE:,} bytes)",
        "No issues found in the files checked.",
        "1 file could not be checked.",
    ]


@pytest.mark.parametrize("cache", [False, True])
def test_the_bound_is_a_setting_and_the_cache_does_not_lift_it(tmp_path, cache):
    (tmp_path / "server.py").write_text(SERVER)
    options = ["--cache-dir", str(tmp_path / "cache")] if cache else ["--no-cache"]
    assert run_cli("check", *options, ".", cwd=tmp_path).output == "All checks passed!\n"
    small = run_cli("check", *options, "--max-file-size", "100", ".", cwd=tmp_path)
    assert small.exit_code == 1
    assert small.output.splitlines()[0] == (
        f"server.py: error: not checked: {len(SERVER):,} bytes, over max-file-size (100 bytes)"
    )
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-codemod]\nmax-file-size = 100\n")
    assert run_cli("check", *options, ".", cwd=tmp_path).output == small.output
    fixed = run_cli("fix", "--write", *options, ".", cwd=tmp_path)
    assert fixed.exit_code == 1 and "over max-file-size" in fixed.output
