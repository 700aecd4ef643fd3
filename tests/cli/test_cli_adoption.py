"""Adopting the tool on a big repository, ruff's way: report-only runs (`--exit-zero`, the
report in a file), per-file ignores, a baseline (`--add-noqa`), rules added to the defaults
(`extend-select`), and a look at what it decided (`--show-files`, `--show-settings`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_servers import EXPOSED, UNKNOWN_FRAMEWORK

from mcp_codemod.cli import main

# A test that writes a mock tool onto a real server: MCP004 (the server is not guarded).
MOCK_TEST = """\
from mcp.server.fastmcp import FastMCP


def make_handler():
    def handler(x):
        return x

    return handler


def test_server():
    server = FastMCP("test")
    server.add_tool(make_handler())
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-codemod]\n")
    (tmp_path / "server.py").write_text(EXPOSED)
    return tmp_path


def run(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def codes(result) -> list[str]:
    return sorted(item["code"] for item in json.loads(result.stdout) if item["type"] == "finding")


def test_exit_zero_exits_0_even_with_unchecked_registrations(project):
    (project / "company.py").write_text(UNKNOWN_FRAMEWORK)
    (project / "server.py").unlink()
    assert run("check", "--no-cache").exit_code == 1
    result = run("check", "--no-cache", "--exit-zero")
    assert result.exit_code == 0, result.output
    assert "company.py:6" in result.output  # still reported
    # Usage errors stay 2.
    assert run("check", "--no-cache", "--exit-zero", "--select", "MCP999").exit_code == 2


def test_output_file_holds_the_report_and_standard_output_stays_empty(project):
    result = run("check", "--no-cache", "--output-format", "sarif", "--output-file", "out.sarif")
    assert result.exit_code == 1
    assert result.stdout == ""
    report = json.loads((project / "out.sarif").read_text())
    assert report["runs"][0]["results"][0]["ruleId"] == "MCP001"
    (project / "server.py").write_text("x = 1\n")
    unwritable = run("check", "--no-cache", "-o", "server.py/out.txt")  # a file, not a folder
    assert unwritable.exit_code == 2
    assert unwritable.output.count("\n") == 1, unwritable.output


def test_output_file_makes_the_missing_folders_of_its_path(project):
    # As ruff does: `-o reports/ci/mcp.sarif` in a fresh checkout.
    result = run("check", "--no-cache", "--output-format", "sarif", "-o", "reports/ci/mcp.sarif")

    assert result.exit_code == 1, result.output
    assert json.loads((project / "reports/ci/mcp.sarif").read_text())["version"] == "2.1.0"
    made = sorted(p.relative_to(project).as_posix() for p in (project / "reports").rglob("*"))
    assert made == ["reports/ci", "reports/ci/mcp.sarif"]


def test_output_file_is_never_written_through_a_symbolic_link(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (project / "linked").symlink_to(elsewhere, target_is_directory=True)
    (project / "report.txt").symlink_to(elsewhere / "report.txt")

    through_folder = run("check", "--no-cache", "-o", "linked/new/out.txt")
    through_file = run("check", "--no-cache", "-o", "report.txt")

    assert (through_folder.exit_code, through_file.exit_code) == (2, 2)
    assert through_folder.stderr == (
        "mcp-codemod: error: --output-file linked/new/out.txt: linked is a symbolic link; "
        "not written\n"
    )
    assert through_file.stderr == (
        "mcp-codemod: error: --output-file report.txt: report.txt is a symbolic link; not written\n"
    )
    assert list(elsewhere.iterdir()) == []


def test_per_file_ignores_are_relative_to_the_configuration_file(project, monkeypatch):
    (project / "tests").mkdir()
    (project / "tests" / "test_server.py").write_text(MOCK_TEST)
    (project / "tests" / "server.py").write_text(EXPOSED)
    (project / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nper-file-ignores = { "tests/**" = ["MCP004"] }\n'
        'extend-per-file-ignores = { "!tests/**" = ["MCP002"], "server.py" = ["MCP00"] }\n'
    )
    before = run("check", "--no-cache", "--output-format", "json", "tests")
    assert codes(before) == [], before.output
    # From a subdirectory, the globs still mean the project's tests/ (not <cwd>/tests/).
    monkeypatch.chdir(project / "tests")
    below = run("check", "--no-cache", "--output-format", "json", ".")
    assert codes(below) == [], below.output
    (project / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nper-file-ignores = { "tests/**" = ["MCP004"] }\n'
    )
    kept = run("check", "--no-cache", "--output-format", "json", ".")
    assert codes(kept) == ["MCP001"], kept.output
    assert [i["path"] for i in json.loads(kept.stdout) if i["type"] == "finding"] == ["server.py"]
    # The mock's registration is still listed (not checked), without failing the run.
    assert kept.exit_code == 1
    assert run("check", "--no-cache", "--exit-zero", ".").exit_code == 0


def test_a_per_file_ignore_with_an_unknown_code_blames_the_file(project):
    (project / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nper-file-ignores = { "tests/**" = ["MCP999"] }\n'
    )
    result = run("check", "--no-cache")
    assert result.exit_code == 2
    assert result.output == (
        f"mcp-codemod: error: {project / 'pyproject.toml'}: unknown rule code(s) in "
        "`per-file-ignores` 'tests/**': MCP999\n"
    )


def test_extend_select_adds_to_the_defaults_and_select_replaces_them(project):
    (project / "server.py").write_text(
        EXPOSED + "\n\n@mcp.tool()\ndef get(user_id: int = 0) -> str:\n    return ''\n"
    )
    assert codes(run("check", "--no-cache", "--output-format", "json")) == ["MCP001"]
    extended = run("check", "--no-cache", "--output-format", "json", "--extend-select", "MCP003")
    assert codes(extended) == ["MCP001", "MCP003"]
    selected = run("check", "--no-cache", "--output-format", "json", "--select", "MCP003")
    assert codes(selected) == ["MCP003"]
    (project / "pyproject.toml").write_text('[tool.mcp-codemod]\nextend-select = ["MCP003"]\n')
    assert codes(run("check", "--no-cache", "--output-format", "json")) == ["MCP001", "MCP003"]
    # The command line's --ignore applies on top of the configuration's selection.
    ignored = run("check", "--no-cache", "--output-format", "json", "--ignore", "MCP001")
    assert codes(ignored) == ["MCP003"]


def test_show_files_and_show_settings(project):
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(EXPOSED)
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text('[tool.mcp-codemod]\nselect = ["MCP003"]\n')
    (project / "sub" / "tool.py").write_text("x = 1\n")
    files = run("check", "--show-files")
    assert files.exit_code == 0
    assert files.stdout.splitlines() == [str(project / "server.py"), str(project / "sub/tool.py")]
    settings = run("check", "--show-settings", "sub")
    assert settings.exit_code == 0
    lines = settings.stdout.splitlines()
    assert lines[0] == f"Resolved settings for: {project / 'sub' / 'tool.py'}"
    assert lines[1] == f"Settings path: {project / 'sub' / 'pyproject.toml'}"
    assert "rules = ['MCP003']" in lines


def test_add_noqa_is_a_baseline_that_keeps_existing_codes_and_the_formatting(project):
    source = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool()
def search(
    query: str | None = None,  # what to look for
    limit: str | None = None,  # noqa: E501
    other: str | None = None,
) -> str:
    return query or ""


@mcp.tool()
def fetch(url: str | None = None) -> str:
    return url or ""
"""
    (project / "server.py").write_text(source)
    ruff = [sys.executable, "-m", "ruff"]
    formatted = subprocess.run([*ruff, "format", "--check", "server.py"], capture_output=True)
    assert formatted.returncode == 0, formatted.stdout

    result = run("check", "--no-cache", "--add-noqa")

    assert result.exit_code == 0, result.output
    assert "Added 4 noqa directives in 1 file." in result.output
    text = (project / "server.py").read_text()
    assert "    query: str | None = None,  # noqa: MCP001  # what to look for\n" in text
    assert "    limit: str | None = None,  # noqa: E501, MCP001\n" in text
    assert "    other: str | None = None,  # noqa: MCP001\n" in text
    assert "def fetch(url: str | None = None) -> str:  # noqa: MCP001\n" in text
    assert run("check", "--no-cache").exit_code == 0
    again = run("check", "--no-cache", "--add-noqa")
    assert "Added 0 noqa directives." in again.output
    assert (project / "server.py").read_text() == text
    # ruff keeps the lines as they are, and still reads its own code.
    assert subprocess.run([*ruff, "format", "--check", "server.py"]).returncode == 0
    lint = subprocess.run(
        [*ruff, "check", "--isolated", "--select", "E501", "--line-length", "20", "server.py"],
        capture_output=True,
        text=True,
    )
    assert "server.py:9:" not in lint.stdout


def test_add_noqa_refuses_a_line_that_ends_inside_a_string(project):
    (project / "server.py").write_text(
        EXPOSED.replace(
            "def search(query: str | None = None) -> str:",
            'def search(query: str | None = """a\nb""") -> str:',
        )
    )
    before = (project / "server.py").read_text()
    result = run("check", "--no-cache", "--add-noqa")
    assert result.exit_code == 1
    assert "server.py:7: error: cannot add `# noqa`" in result.output
    assert (project / "server.py").read_text() == before
