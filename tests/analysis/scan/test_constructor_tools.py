"""Tools given to a server's constructor (`FastMCP("t", tools=[...])`) are registrations like any
other (docs/registrations.md): checked where their functions can be read, unseen (MCP004) where
they cannot."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main

FUNCTIONS = """\
def search(query: str | None = None) -> str:
    return query or ""


def lookup(key: str | None = None) -> str:
    return key or ""
"""
SDK = "from mcp.server.fastmcp import FastMCP\nfrom mcp.server.fastmcp.tools import Tool\n\n\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(root: Path, source: str):
    """`check` with the rules about what the pre-parse does and what is unseen."""
    (root / "server.py").write_text(dedent(source), encoding="utf-8")
    return CliRunner().invoke(main, ["check", "--no-cache", "--select", "MCP001,MCP004", "."])


def test_each_tool_made_from_a_function_is_checked_under_its_name(project):
    result = check(
        project,
        SDK
        + FUNCTIONS
        + '\n\nmcp = FastMCP("t", tools=[Tool.from_function(search), '
        + 'Tool.from_function(lookup, name="find")])\n',
    )
    assert result.exit_code == 1
    assert "server.py:5:12: MCP001 [*] Tool `search`: `query: str | None`" in result.output
    assert "server.py:9:12: MCP001 [*] Tool `find`: `key: str | None`" in result.output


def test_a_named_list_of_tools_is_read_where_it_is_bound(project):
    result = check(
        project,
        SDK
        + FUNCTIONS
        + '\n\nTOOLS = [Tool.from_function(search)]\nmcp = FastMCP("t", tools=TOOLS)\n',
    )
    assert "MCP001 [*] Tool `search`" in result.output, result.output


def test_tools_the_analysis_cannot_read_are_unseen(project):
    result = check(
        project, SDK + 'from .catalog import make_tools\n\nmcp = FastMCP("t", tools=make_tools())\n'
    )
    assert result.exit_code == 1
    assert "MCP004" in result.output and "All checks passed!" not in result.output
    assert "tool function `make_tools()` not found" in result.output, result.output


def test_fastmcp_takes_plain_functions_and_does_not_pre_parse(project):
    result = check(
        project,
        "from fastmcp import FastMCP\n\n\n"
        + FUNCTIONS
        + '\n\nmcp = FastMCP("t", tools=[search])\n',
    )
    assert result.exit_code == 0, result.output
    assert "not checked" not in result.output


def test_the_fix_guards_a_server_given_its_tools(project):
    (project / "server.py").write_text(
        SDK + FUNCTIONS + '\n\nmcp = FastMCP("t", tools=[Tool.from_function(search)])\n',
        encoding="utf-8",
    )
    CliRunner().invoke(main, ["fix", "--write", "--no-cache", "."])
    text = (project / "server.py").read_text(encoding="utf-8")
    assert 'mcp = GuardedFastMCP("t", tools=[Tool.from_function(search)])' in text
    assert "def search(query: Annotated[str | None, NoPreParse] = None) -> str:" in text
