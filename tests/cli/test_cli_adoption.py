"""Adopting the tool on a big repository, ruff's way: report-only runs (`--exit-zero`, the
report in a file), per-file ignores, a baseline (`--add-noqa`), rules added to the defaults
(`extend-select`), and a look at what it decided (`--show-files`, `--show-settings`)."""

from __future__ import annotations

import ast
import json
import re
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
    unwritable = run("check", "--no-cache", "-o", "missing/out.txt")
    assert unwritable.exit_code == 2
    assert unwritable.output.count("\n") == 1, unwritable.output


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


def test_add_noqa_does_not_write_through_a_link_out_of_the_given_paths(tmp_path, monkeypatch):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "server.py").write_text(EXPOSED)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "pyproject.toml").write_text("[tool.mcp-codemod]\n")
    (tmp_path / "project" / "linked.py").symlink_to(tmp_path / "outside" / "server.py")
    monkeypatch.chdir(tmp_path / "project")

    result = run("check", "--no-cache", "--add-noqa", ".")

    assert result.exit_code == 1, result.output
    refused = [line for line in result.output.splitlines() if "linked.py" in line]
    assert refused == [
        "linked.py: error: outside the given paths (a module an import leads to, or a link "
        "out of them): pass its path; left unchanged"
    ]
    assert (tmp_path / "outside" / "server.py").read_text() == EXPOSED
    # `fix --write` refuses the same file.
    assert run("fix", "--no-cache", "--write", ".").exit_code == 1
    assert (tmp_path / "outside" / "server.py").read_text() == EXPOSED


def test_add_noqa_keeps_the_mode_and_refuses_a_file_changed_since_it_was_checked(
    project, monkeypatch
):
    from mcp_codemod.fix import noqa

    (project / "server.py").chmod(0o640)
    assert run("check", "--no-cache", "--add-noqa").exit_code == 0
    assert (project / "server.py").stat().st_mode & 0o777 == 0o640
    assert "# noqa: MCP001" in (project / "server.py").read_text()

    (project / "server.py").write_text(EXPOSED)
    read = noqa.read_for_rewrite

    def edited_meanwhile(path, data=None):
        path.write_text(EXPOSED + "# edited\n")  # an editor saves between check and write
        return read(path, data)

    monkeypatch.setattr(noqa, "read_for_rewrite", edited_meanwhile)
    result = run("check", "--no-cache", "--add-noqa")
    assert result.exit_code == 1
    assert "server.py: error: changed while fixing" in result.output
    assert (project / "server.py").read_text() == EXPOSED + "# edited\n"


def test_add_noqa_keeps_every_directive_working_for_its_own_tool(project):
    source = EXPOSED.replace(
        "def search(query: str | None = None) -> str:",
        "def search(query: str | None = None) -> str:  # hello  # noqa: E501",
    ) + (
        "\n\n@mcp.tool()\n"
        "def fetch(url: str | None = None) -> str:  # type: ignore[misc]\n"
        "    return url or ''\n"
    )
    (project / "server.py").write_text(source)
    ruff = [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "E501"]
    lint = [*ruff, "--line-length", "60", "server.py"]
    assert subprocess.run(lint, capture_output=True).returncode == 0

    result = run("check", "--no-cache", "--add-noqa")

    assert result.exit_code == 0, result.output
    text = (project / "server.py").read_text()
    assert "-> str:  # hello  # noqa: E501, MCP001\n" in text
    assert "-> str:  # type: ignore[misc]  # noqa: MCP001\n" in text
    # ruff still reads its E501 (a second directive in front hid it), Python's parser (what
    # mypy reads) still sees the type ignore.
    assert subprocess.run(lint, capture_output=True).returncode == 0
    ignores = ast.parse(text, type_comments=True).type_ignores
    assert [i.lineno for i in ignores] == [12]
    # mypy's reading of the tag (`fastparse.parse_type_ignore_tag`): codes, then any comment.
    assert re.match(r"\s*\[([^]#]*)\]\s*(#.*)?$", ignores[0].tag).group(1) == "misc"
    assert run("check", "--no-cache").exit_code == 0


@pytest.mark.parametrize("ending", ["\r", "\r\n"])
def test_add_noqa_in_a_file_of_any_line_ending(project, ending):
    source = EXPOSED.replace("\n", ending).encode()
    (project / "server.py").write_bytes(source)

    result = run("check", "--no-cache", "--add-noqa")

    assert result.exit_code == 0, result.output
    assert (project / "server.py").read_bytes() == source.replace(
        f"-> str:{ending}".encode(), f"-> str:  # noqa: MCP001{ending}".encode()
    )
    assert run("check", "--no-cache").exit_code == 0


def test_noqa_inside_a_string_literal_suppresses_nothing(project):
    (project / "server.py").write_text(
        EXPOSED.replace("= None)", '= None, note: str = "# noqa")')
        + '\n\nTEXT = """\n@mcp.tool()  # noqa\n"""\n'
    )
    result = run("check", "--no-cache")
    assert result.exit_code == 1, result.output
    assert "server.py:7:12: MCP001" in result.output
