"""`[tool.mcp-codemod]`: every wrong shape is one line and exit 2, never a traceback."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main


@pytest.mark.parametrize(
    ("pyproject", "message"),
    [
        ("tool = 5", "`tool` must be a table"),
        ('tool = "mcp-codemod"', "`tool` must be a table"),
        ("[tool]\nmcp-codemod = 5", "`tool.mcp-codemod` must be a table"),
        ("[[tool.mcp-codemod]]\nselect = []", "`tool.mcp-codemod` must be a table"),
        ("[tool.mcp-codemod]\nexclude = 3", "`exclude` must be a list of strings"),
        ("[tool.mcp-codemod]\nextend-exclude = [1]", "`extend-exclude` must be a list of strings"),
        ("[tool.mcp-codemod]\nignore = {}", "`ignore` must be a list of strings"),
        ("[tool.mcp-codemod]\nframework = 3", "`framework` must be one of mcp1, mcp2, fastmcp"),
        ("[tool.mcp-codemod]\noutput-format = []", "`output-format` must be one of"),
        ("[tool.mcp-codemod]\ncache-dir = 3", "`cache-dir` must be a path"),
        ("[tool.mcp-codemod]\nrespect-gitignore = 1", "`respect-gitignore` must be true or false"),
        ('[tool.mcp-codemod]\nforce-exclude = "yes"', "`force-exclude` must be true or false"),
        ("[tool.mcp-codemod]\nmax-file-size = 0", "`max-file-size` must be a positive number"),
        ('[tool.mcp-codemod]\nmax-file-size = "5MB"', "`max-file-size` must be a positive"),
        ("[tool.mcp-codemod]\nmax-file-size = true", "`max-file-size` must be a positive"),
        ("[tool.mcp-codemod.sub]\nx = 1", "unknown option(s) in [tool.mcp-codemod]: sub"),
        ("[tool", "cannot read"),
        # tomllib recurses into nested arrays: the run ended in "internal error (RecursionError)".
        ("x = " + "[" * 1000 + "]" * 1000, "cannot read: nested too deeply"),
        ("[tool.mcp-codemod]\nselect = " + "[" * 1000 + "]" * 1000, "nested too deeply"),
        ("x = " + "{a = " * 1000 + "1" + "}" * 1000, "nested too deeply"),
    ],
)
@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_wrong_shape_is_one_line_and_exit_2(tmp_path, monkeypatch, pyproject, message, command):
    (tmp_path / "pyproject.toml").write_text(pyproject + "\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    result = CliRunner().invoke(main, [command, "--no-cache", "a.py"])

    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1, result.output
    assert result.output.startswith(f"mcp-codemod: error: {tmp_path / 'pyproject.toml'}: ")
    assert message in result.output


def test_force_exclude_from_the_configuration_file(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nextend-exclude = ["generated"]\nforce-exclude = true\n',
        encoding="utf-8",
    )
    (tmp_path / "generated").mkdir()
    exposed = (
        "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n\n\n@mcp.tool()\n"
        "def f(q: str | None = None) -> str:\n    return ''\n"
    )
    (tmp_path / "generated" / "server.py").write_text(exposed, encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    configured = CliRunner().invoke(main, ["check", "--no-cache", "generated/server.py"])
    overridden = CliRunner().invoke(
        main, ["check", "--no-cache", "--no-force-exclude", "generated/server.py"]
    )

    assert configured.exit_code == 0, configured.output
    assert overridden.exit_code == 1, overridden.output
    assert "generated/server.py:6:7: MCP001" in overridden.output


def test_force_exclude_applies_to_the_stdin_filename(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nextend-exclude = ["generated"]\n', encoding="utf-8"
    )
    exposed = (
        "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n\n\n@mcp.tool()\n"
        "def f(q: str | None = None) -> str:\n    return ''\n"
    )
    monkeypatch.chdir(tmp_path)
    args = ["check", "--no-cache", "--stdin-filename", "generated/server.py", "-"]

    forced = CliRunner().invoke(main, [*args[:2], "--force-exclude", *args[2:]], input=exposed)
    checked = CliRunner().invoke(main, args, input=exposed)

    assert forced.exit_code == 0, forced.output
    assert "MCP001" not in forced.output
    assert checked.exit_code == 1, checked.output
    assert "generated/server.py:6:7: MCP001" in checked.output


def test_max_file_size_from_the_configuration_file_and_the_command_line(tmp_path):
    from mcp_codemod.api import Options, settings_for
    from mcp_codemod.engine.settings import DEFAULT_MAX_FILE_SIZE

    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.mcp-codemod]\nselect = []\n", encoding="utf-8")
    assert settings_for(Options(config=config)).max_file_size == DEFAULT_MAX_FILE_SIZE == 2**20 * 10
    config.write_text("[tool.mcp-codemod]\nmax-file-size = 20_000_000\n", encoding="utf-8")
    assert settings_for(Options(config=config)).max_file_size == 20_000_000
    assert settings_for(Options(config=config, max_file_size=5)).max_file_size == 5
