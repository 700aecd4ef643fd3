"""The command line as users meet it: exit codes, configuration, bad input (what each output
format prints: tests/report)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main

EXPOSED = """\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

mcp = FastMCP("demo")


@mcp.tool()
def search(query: str | None = None, page: StrictInt = 1, user_id: int = 0) -> str:
    return ""
"""
CLEAN = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool()
def search(query: str = "") -> str:
    return query
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(EXPOSED)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_findings_exit_1_clean_exit_0(project):
    result = run("check")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "server.py:8:12: MCP001 [*] Tool `search`: `query: str | None` is JSON-pre-parsed by "
        'mcp 1.x FastMCP: the string "null" arrives as None and "[1, 2]" as a list'
    )
    assert "Found 2 issues (2 fixable with `mcp-codemod fix --write`)." in result.output
    (project / "server.py").write_text(CLEAN)
    clean = run("check")
    assert clean.exit_code == 0 and "All checks passed!" in clean.output


def test_findings_turned_off_exit_0_without_saying_every_check_passed(project):
    # The user's decision stands (exit 0), but a parameter still mangled is no passed check.
    (project / "server.py").write_text(
        EXPOSED.replace("user_id: int = 0) -> str:", "user_id: int = 0) -> str:  # noqa")
    )
    noqa = run("check", "--no-cache")
    assert noqa.exit_code == 0, noqa.output
    assert "All checks passed!" not in noqa.output
    assert "No issues reported: 2 findings turned off by `noqa` or `per-file-ignores`." in (
        noqa.output
    )
    (project / "server.py").write_text(EXPOSED)
    (project / "pyproject.toml").write_text(
        '[tool.mcp-codemod.per-file-ignores]\n"server.py" = ["MCP001"]\n'
    )
    ignored = run("check", "--no-cache")
    assert ignored.exit_code == 1  # MCP002 on `page` is not turned off
    assert "Found 1 issue" in ignored.output
    only_mcp001 = run("check", "--no-cache", "--ignore", "MCP002")
    assert only_mcp001.exit_code == 0
    assert "All checks passed!" not in only_mcp001.output
    assert "1 finding turned off" in only_mcp001.output


def test_exit_zero_and_statistics(project):
    result = run("check", "--exit-zero", "--statistics")
    assert result.exit_code == 0
    assert "    1\tMCP001\t[*] json-pre-parsed-parameter" in result.output
    assert "server.py:8" not in result.output


def test_select_and_ignore(project):
    codes = lambda result: {item["code"] for item in json.loads(result.output)}  # noqa: E731
    assert codes(run("check", "--output-format", "json", "--select", "MCP003")) == {"MCP003"}
    assert codes(run("check", "--output-format", "json", "--select", "MCP")) == {
        "MCP001",
        "MCP002",
        "MCP003",
        "MCP103",  # `page: StrictInt = 1`: a default OpenAI strict mode never applies
    }
    assert codes(run("check", "--output-format", "json", "--ignore", "MCP001")) == {"MCP002"}


def test_pyproject_settings(project):
    (project / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nselect = ["MCP002"]\noutput-format = "json"\n'
    )
    assert {item["code"] for item in json.loads(run("check").output)} == {"MCP002"}
    # The command line wins over the file.
    assert run("check", "--output-format", "text").output.startswith("server.py:8:")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('selct = ["MCP001"]', "unknown option(s) in [tool.mcp-codemod]: selct"),
        ('select = ["MCP999"]', "unknown rule code(s) in `select`: MCP999"),
        ('output-format = "xml"', "`output-format` must be one of text, json, github, sarif"),
        ('framework = "flask"', "`framework` must be one of mcp1, mcp2, fastmcp"),
        ('select = "MCP001"', "`select` must be a list of strings"),
    ],
)
def test_configuration_errors_exit_2_with_one_line(project, table, message):
    (project / "pyproject.toml").write_text(f"[tool.mcp-codemod]\n{table}\n")
    result = run("check")
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_usage_errors_exit_2(project):
    assert run("check", "--output-format", "xml").exit_code == 2
    assert run("check", "--select", "NOPE").exit_code == 2
    missing = run("check", "missing.py")
    assert missing.exit_code == 2 and "missing.py: no such file or directory" in missing.output
    assert run("rule", "MCP999").exit_code == 2


def test_unreadable_and_undecodable_files_are_one_line_each(project):
    (project / "latin.py").write_bytes(b"x = '\xe9'  # .tool\n")
    (project / "broken.py").write_text("@mcp.tool()\ndef f(:\n")
    result = run("check")
    assert result.exit_code == 1
    assert "latin.py: error: not valid utf-8: invalid continuation byte" in result.output
    assert "broken.py: error: cannot parse (line 2, column 7): " in result.output
    assert "server.py:8:12: MCP001" in result.output  # the others are still checked
    assert "2 files could not be checked." in result.output


def test_gitignore_and_default_excludes(project):
    for folder in (".venv", "build", "ignored", "kept"):
        (project / folder).mkdir()
        (project / folder / "server.py").write_text(EXPOSED)
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("ignored/\n")
    paths = {item["path"] for item in json.loads(run("check", "--output-format", "json").output)}
    assert paths == {"server.py", os.path.join("kept", "server.py")}
    # A path given explicitly is checked even where it is excluded.
    explicit = run("check", "--output-format", "json", "ignored/server.py")
    assert {item["path"] for item in json.loads(explicit.output)} == {"ignored/server.py"}


def test_extend_exclude(project):
    (project / "examples").mkdir()
    (project / "examples" / "demo.py").write_text(EXPOSED)
    result = run("check", "--output-format", "json", "--extend-exclude", "examples")
    assert {item["path"] for item in json.loads(result.output)} == {"server.py"}


def test_noqa(project):
    source = EXPOSED.replace("-> str:", "-> str:  # noqa: MCP001")
    (project / "server.py").write_text(source)
    codes = [item["code"] for item in json.loads(run("check", "--output-format", "json").output)]
    assert codes == ["MCP002"]
    (project / "server.py").write_text(EXPOSED.replace("-> str:", "-> str:  # noqa"))
    assert run("check").exit_code == 0


def test_console_script_runs(project):
    result = subprocess.run(
        [sys.executable, "-m", "mcp_codemod", "check", "--statistics"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "MCP001" in result.stdout


def test_the_console_script_ends_without_teardown_and_loses_no_output(project):
    # `run` ends the process with os._exit: every line must still reach a pipe, far more than
    # a pipe's buffer holds, and the exit codes must stay those of `main`.
    tools = "".join(
        f"@mcp.tool()\ndef tool_{n}(text: str | None = None) -> str:\n    return ''\n\n\n"
        for n in range(400)
    )
    server = "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('many')\n\n\n" + tools
    (project / "server.py").write_text(server)
    script = [sys.executable, "-m", "mcp_codemod"]
    found = subprocess.run([*script, "check", "--no-cache"], capture_output=True, text=True)
    assert found.returncode == 1
    assert found.stdout.count("MCP001") == 400
    assert found.stdout.endswith("(400 fixable with `mcp-codemod fix --write`).\n")
    # Printed while the options are parsed, before any command runs.
    version = subprocess.run([*script, "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("mcp-codemod, version")
    usage = subprocess.run([*script, "check", "--bogus"], capture_output=True, text=True)
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_an_internal_error_in_one_file_is_one_line(project, monkeypatch):
    import mcp_codemod.analysis.scan.scanner as scanner

    def broken(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(scanner, "scan_module", broken)
    result = run("check", "--no-cache", "--jobs", "1")
    assert result.exit_code == 1
    assert "server.py: error: internal error while analysing (ValueError: boom)" in result.output
    assert "Traceback" not in result.output
