"""`fix` through the command line: a diff without `--write`, nothing left after it, the file's
encoding, line endings and mode kept, a file with a syntax error left alone, and fixed fixtures
that parse, pass ruff and are stable.
"""

from __future__ import annotations

import ast
import json
import stat
import subprocess
import sys

from conftest import run_cli

EXPOSED = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n\n\n@mcp.tool()\ndef f(q: str | None = None) -> str:\n    return q or ""\n'


def test_without_write_prints_a_diff_and_changes_nothing(tmp_path):
    (tmp_path / "server.py").write_text(EXPOSED)
    result = run_cli("fix", "server.py", cwd=tmp_path)
    assert result.exit_code == 1
    assert "+def f(q: Annotated[str | None, NoPreParse] = None) -> str:" in result.output
    assert (tmp_path / "server.py").read_text() == EXPOSED


def test_write_then_nothing_left_to_do(tmp_path):
    (tmp_path / "server.py").write_text(EXPOSED)
    assert run_cli("fix", "--write", "server.py", cwd=tmp_path).exit_code == 0
    fixed = (tmp_path / "server.py").read_text()
    assert "GuardedFastMCP" in fixed
    second = run_cli("fix", "--write", "--diff", "server.py", cwd=tmp_path)
    assert second.exit_code == 0 and second.stdout == ""  # no diff: nothing to fix
    assert (tmp_path / "server.py").read_text() == fixed
    assert run_cli("check", "server.py", cwd=tmp_path).exit_code == 0


def test_crlf_bom_and_declared_encoding_survive(tmp_path):
    crlf = EXPOSED.replace("\n", "\r\n").encode("utf-8")
    (tmp_path / "crlf.py").write_bytes(b"\xef\xbb\xbf" + crlf)
    latin = ("# -*- coding: latin-1 -*-\n# caf\u00e9\n" + EXPOSED).encode("latin-1")
    (tmp_path / "latin.py").write_bytes(latin)
    assert run_cli("fix", "--write", ".", cwd=tmp_path).exit_code == 0
    data = (tmp_path / "crlf.py").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"NoPreParse" in data and data.count(b"\r\n") == data.count(b"\n")
    text = (tmp_path / "latin.py").read_bytes().decode("latin-1")
    assert "caf\u00e9" in text and "NoPreParse" in text


def test_write_keeps_the_mode_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "server.py"
    path.write_text(EXPOSED)
    path.chmod(0o750)
    assert run_cli("fix", "--write", "server.py", cwd=tmp_path).exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == [".mcp-codemod-cache", "server.py"]


def test_a_file_with_a_syntax_error_is_reported_and_left_alone(tmp_path):
    broken = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP(\n@mcp.tool()\ndef f(:\n"
    (tmp_path / "broken.py").write_text(broken)
    (tmp_path / "server.py").write_text(EXPOSED)
    result = run_cli("fix", "--write", ".", cwd=tmp_path)
    assert result.exit_code == 1
    assert "broken.py: error: cannot parse (line " in result.output
    assert "Traceback" not in result.output
    assert (tmp_path / "broken.py").read_text() == broken
    assert "NoPreParse" in (tmp_path / "server.py").read_text()


def test_fixed_fixtures_parse_pass_ruff_and_are_stable(fixtures_copy):
    before = {p: p.read_bytes() for p in fixtures_copy.rglob("*.py")}
    # Exit 1: the servers with only unchecked tools are left to the unsafe fix.
    assert run_cli("fix", "--write", ".", cwd=fixtures_copy).exit_code == 1
    after = {p: p.read_bytes() for p in fixtures_copy.rglob("*.py")}
    for data in after.values():
        ast.parse(data)
    # Only files with fixable findings (or their servers and aliases) change.
    changed = {p.relative_to(fixtures_copy).as_posix() for p in after if after[p] != before[p]}
    assert "guarded_server.py" not in changed and "unresolved_server.py" not in changed
    again = run_cli("fix", "--write", ".", cwd=fixtures_copy).output
    # Every server with tools the analysis cannot see is guarded (MCP004's swap is safe, and
    # MCP001's guards the probe servers), also those that unresolved_server.py's registration
    # of unknown framework counted against; what is left is the parameters that take anything,
    # whose marker is the author's decision: `fix` does not pass while they are left.
    assert again.startswith("9 issues left after the fixes:")
    assert "Nothing to fix. 9 not fixed" in again
    assert "unprotected" not in again
    assert again.count("protected: the server is guarded") == 23
    check = json.loads(run_cli("check", "--output-format", "json", ".", cwd=fixtures_copy).stdout)
    findings = [f for f in check if f["type"] == "finding"]
    left = {(f["path"], f["parameter"], f["code"], f["fix"]["applicability"]) for f in findings}
    assert left == {
        ("mcp1_decorators.py", "value", "MCP001", "unsafe"),
        ("mcp1_decorators.py", "untyped", "MCP001", "unsafe"),
        ("variadic_server.py", "kwargs", "MCP001", "unsafe"),
        *(
            ("anything_server.py", name, "MCP001", "unsafe")
            for name in ("value", "raw", "thing", "either", "kwargs")
        ),
    }
    assert len(findings) == 9  # `kwargs` of two tools in variadic_server.py
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "E4,E7,E9,F", "."],
        cwd=fixtures_copy,
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout
    # The hidden fixes the summary promised are there to apply, and then none is left.
    # The markers make four `Any` parameters of unannotated ones, untyped schema nodes that
    # MCP007 fixes safely: the second round of the same run fixes them.
    unsafe = run_cli("fix", "--write", "--unsafe-fixes", ".", cwd=fixtures_copy)
    assert unsafe.output.startswith("Fixed 13 issues in 3 files.")
    after = run_cli("check", ".", cwd=fixtures_copy).stdout
    assert "MCP001" not in after and "MCP007" not in after and "hidden fix" not in after
