"""Ruff's conventions where users look for them: errors name the option or file they come from,
excludes resolved against the project root, buffers fixed through standard input, quiet and
silent runs, colour, and summaries that count honestly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_servers import EXPOSED

from mcp_codemod.cli import main


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-codemod]\n")
    (tmp_path / "server.py").write_text(EXPOSED)
    return tmp_path


def run(*args: str, stdin: bytes | None = None, **kwargs):
    return CliRunner().invoke(main, list(args), input=stdin, **kwargs)


def test_an_unknown_code_on_the_command_line_blames_the_option(project):
    result = run("check", "--no-cache", "--select", "MCP999")
    assert result.exit_code == 2
    assert result.output == (
        "mcp-codemod: error: option --select: unknown rule code(s) in `select`: MCP999\n"
    )
    assert "pyproject.toml" not in run("check", "--extend-select", "X1").output
    (project / "pyproject.toml").write_text('[tool.mcp-codemod]\nignore = ["MCP999"]\n')
    configured = run("check", "--no-cache")
    assert configured.output.startswith(f"mcp-codemod: error: {project / 'pyproject.toml'}: ")


def test_a_missing_config_file_names_the_option(project):
    result = run("check", "--config", "nope.toml")
    assert result.exit_code == 2
    assert result.output == "mcp-codemod: error: --config nope.toml: no such configuration file\n"


def test_excludes_are_resolved_against_the_project_root_not_the_working_directory(
    project, monkeypatch
):
    (project / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nextend-exclude = ["pkg/generated.py", "pkg/vendor"]\n'
    )
    (project / "pkg" / "vendor").mkdir(parents=True)
    for name in ("generated.py", "kept.py", "vendor/lib.py"):
        (project / "pkg" / name).write_text(EXPOSED)
    monkeypatch.chdir(project / "pkg")
    forced = run("check", "--no-cache", "--force-exclude", "generated.py", "vendor/lib.py")
    assert forced.exit_code == 0, forced.output
    walked = run("check", "--no-cache", ".")
    assert walked.exit_code == 1
    assert "kept.py:7:12: MCP001" in walked.output
    assert "generated.py" not in walked.output and "lib.py" not in walked.output
    # And ruff, with the same exclude, skips the same file.
    (project / "pyproject.toml").write_text(
        '[tool.ruff]\nextend-exclude = ["pkg/generated.py"]\n'
        '[tool.mcp-codemod]\nextend-exclude = ["pkg/generated.py"]\n'
    )
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--force-exclude", "generated.py"],
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0 and "generated.py" not in ruff.stdout, ruff.stdout


@pytest.mark.parametrize("command", [("check", "--fix"), ("fix",)])
def test_a_buffer_is_fixed_to_standard_output(project, command):
    result = run(
        *command, "--no-cache", "--stdin-filename", "app/server.py", "-", stdin=EXPOSED.encode()
    )
    assert result.exit_code == 0, result.output
    assert "def search(query: Annotated[str | None, NoPreParse] = None) -> str:" in result.stdout
    assert result.stdout.startswith("from typing import Annotated\n")
    assert not (project / "app").exists()
    assert (project / "server.py").read_text() == EXPOSED


def test_a_buffer_with_nothing_to_fix_comes_back_as_it_was(project):
    clean = EXPOSED.replace("str | None = None", 'str = ""')
    result = run("fix", "--no-cache", "-", stdin=clean.encode())
    assert result.exit_code == 0
    assert result.stdout == clean


def test_fix_diff_of_a_buffer(project):
    result = run("fix", "--no-cache", "--diff", "-", stdin=EXPOSED.encode())
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/stdin.py\n+++ b/stdin.py\n")


def test_quiet_prints_the_findings_only_and_silent_nothing(project):
    quiet = run("check", "--no-cache", "--quiet")
    assert quiet.exit_code == 1
    assert quiet.output.startswith("server.py:7:12: MCP001")
    assert quiet.output.count("\n") == 1
    silent = run("check", "--no-cache", "--silent")
    assert (silent.exit_code, silent.output) == (1, "")
    (project / "server.py").write_text(EXPOSED.replace("str | None = None", 'str = ""'))
    assert run("check", "--no-cache", "-q").output == ""
    assert run("fix", "--write", "--no-cache", "-s").output == ""


def test_colour_follows_the_option_and_the_environment(project, monkeypatch):
    plain = run("check", "--no-cache").output
    assert "\x1b[" not in plain
    assert "\x1b[31m\x1b[1mMCP001\x1b[0m" in run("check", "--no-cache", "--color", "always").output
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run("check", "--no-cache", color=True).output
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run("check", "--no-cache", color=True).output
    assert "\x1b[" in run("check", "--no-cache", "--color", "always").output
    monkeypatch.delenv("NO_COLOR")
    assert "\x1b[" not in run("check", "--no-cache", "--color", "never", color=True).output


def test_colour_on_a_terminal_only(project):
    """A real terminal (a pseudo-terminal) gets colour; a pipe does not."""
    import pty

    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    command = [sys.executable, "-m", "mcp_codemod", "check", "--no-cache"]
    piped = subprocess.run(command, capture_output=True, text=True, env=environment)
    assert "\x1b[" not in piped.stdout
    leader, follower = pty.openpty()
    with subprocess.Popen(command, stdout=follower, stderr=follower, env=environment):
        os.close(follower)
        output = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    os.close(leader)
    assert b"\x1b[1mserver.py\x1b[0m" in output


def test_fix_summary_counts_files_and_names_the_guard_module(project):
    (project / "pyproject.toml").write_text('[tool.mcp-codemod]\nruntime-module = "guards"\n')
    (project / "tools.py").write_text(EXPOSED.replace("search", "fetch"))
    result = run("fix", "--write", "--no-cache")
    assert result.exit_code == 0, result.output
    assert "Fixed 2 issues in 2 files; wrote the guard module guards.py." in result.output
    assert (project / "guards.py").exists()
