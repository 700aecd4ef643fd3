"""Closed or broken standard streams, in a real process: every command ends with one line and a
non-zero exit (or quietly when nothing can be written), never a traceback; `fix --write` does
nothing it could not report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from demo_servers import EXPOSED

COMMANDS = [
    "--version",
    "--help",
    "rules",
    "rule MCP001",
    "check --no-cache",
    "check --no-cache --output-format sarif",
    "fix --no-cache",
    "fix --write --no-cache",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "server.py").write_text(EXPOSED)
    return tmp_path


def shell(project: Path, command: str, redirect: str) -> subprocess.CompletedProcess[str]:
    program = f"{sys.executable} -m mcp_codemod"
    return subprocess.run(
        ["sh", "-c", f"{program} {command} {redirect}"],
        cwd=project,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_closed_standard_output_is_one_line_and_exit_2(project, command):
    result = shell(project, command, ">&-")
    assert result.returncode == 2
    assert result.stderr == "mcp-codemod: error: standard output closed; nothing was done\n"
    assert (project / "server.py").read_text() == EXPOSED


@pytest.mark.parametrize("command", COMMANDS)
def test_closed_standard_error_is_one_line_on_standard_output(project, command):
    result = shell(project, command, "2>&-")
    assert result.returncode == 2
    assert result.stdout == "mcp-codemod: error: standard error closed; nothing was done\n"
    assert (project / "server.py").read_text() == EXPOSED


@pytest.mark.parametrize("command", COMMANDS)
def test_both_closed_ends_quietly_with_exit_2(project, command):
    result = shell(project, command, ">&- 2>&-")
    assert result.returncode == 2
    assert (project / "server.py").read_text() == EXPOSED


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "command", ["--version", "--help", "rules", "check --no-cache", "fix --write --diff --no-cache"]
)
def test_a_full_standard_output_is_one_line_and_exit_2(project, command):
    result = shell(project, command, "> /dev/full")
    assert result.returncode == 2
    assert result.stderr.endswith(
        "mcp-codemod: error: cannot write the output: No space left on device\n"
    ), result.stderr
    assert "Traceback" not in result.stderr
    # The diff could not be shown: nothing was written.
    assert (project / "server.py").read_text() == EXPOSED


def test_a_closed_standard_input_is_one_line(project):
    result = shell(project, "check --no-cache -", "<&-")
    assert result.returncode == 2
    assert result.stderr == "mcp-codemod: error: standard input is closed\n"
