"""Sources at the edges of what Python accepts: each is checked, or reported on one line with
its position, and a run with a file it could not check never says "All checks passed!"."""

from __future__ import annotations

from conftest import run_cli

HEADER = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("t")\n\n\n@mcp.tool()\n'


def test_a_union_of_1500_members_that_cpython_compiles_is_checked_and_fixed(tmp_path):
    members = " | ".join(["int"] * 1500)
    source = HEADER + f"def search(query: {members} | str | None = None) -> str:\n    return ''\n"
    compile(source, "server.py", "exec")
    (tmp_path / "server.py").write_text(source)
    checked = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert "cannot parse" not in checked.output
    assert "server.py:7:12: MCP001" in checked.output and checked.exit_code == 1
    fixed = run_cli("fix", "--write", "--no-cache", ".", cwd=tmp_path)
    assert fixed.exit_code == 0, fixed.output
    compile((tmp_path / "server.py").read_text(), "server.py", "exec")
    assert run_cli("check", "--no-cache", ".", cwd=tmp_path).output == "All checks passed!\n"


def test_a_nul_byte_is_reported_with_its_line_and_column(tmp_path):
    (tmp_path / "server.py").write_bytes(
        (HEADER + 'def search(query: str) -> str:\n    return "a\0"\n').encode()
    )
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "server.py: error: cannot parse (line 8, column 14): a NUL byte (source code cannot hold one)"
    )


def test_a_file_that_could_not_be_checked_means_not_all_checks_passed(tmp_path):
    (tmp_path / "clean.py").write_text(HEADER + "def search(query: str) -> str:\n    return ''\n")
    (tmp_path / "broken.py").write_text("@mcp.tool()\ndef f(:\n")
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert result.exit_code == 1
    assert "All checks passed!" not in result.output
    assert result.output.splitlines()[1:] == [
        "No issues found in the files checked.",
        "1 file could not be checked.",
    ]
