"""Tools given to a server's constructor (`FastMCP("t", tools=[...])`) are registrations like any
other (docs/registrations.md): checked where their functions can be read, unchecked (MCP004) where
they cannot."""

from __future__ import annotations

import json
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
    """`check` with the rules about what the pre-parse does and what is unchecked."""
    (root / "server.py").write_text(dedent(source), encoding="utf-8")
    return CliRunner().invoke(main, ["check", "--no-cache", "--select", "MCP001,MCP004", "."])


def records(root: Path, source: str) -> list[tuple]:
    """What `check` reports (the same rules), as data: each finding's code, place and tool, each
    unchecked registration's kind and place."""
    (root / "server.py").write_text(dedent(source), encoding="utf-8")
    arguments = ["check", "--no-cache", "--select", "MCP001,MCP004", "--output-format", "json"]
    result = CliRunner().invoke(main, [*arguments, "."])
    assert result.exit_code in (0, 1), result.output
    return [
        (r["code"], r["line"], r["column"], r["tool"])
        if r["type"] == "finding"
        else (r["type"], r["kind"], r["line"])
        for r in json.loads(result.stdout)
    ]


def test_each_tool_made_from_a_function_is_checked_under_its_name(project):
    found = records(
        project,
        SDK
        + FUNCTIONS
        + '\n\nmcp = FastMCP("t", tools=[Tool.from_function(search), '
        + 'Tool.from_function(lookup, name="find")])\n',
    )
    assert found == [("MCP001", 5, 12, "search"), ("MCP001", 9, 12, "find")]


def test_a_named_list_of_tools_is_read_where_it_is_bound(project):
    found = records(
        project,
        SDK
        + FUNCTIONS
        + '\n\nTOOLS = [Tool.from_function(search)]\nmcp = FastMCP("t", tools=TOOLS)\n',
    )
    assert found == [("MCP001", 5, 12, "search")]


def test_tools_the_analysis_cannot_read_are_unchecked(project):
    result = check(
        project, SDK + 'from .catalog import make_tools\n\nmcp = FastMCP("t", tools=make_tools())\n'
    )
    assert result.exit_code == 1 and "All checks passed!" not in result.output
    found = records(
        project, SDK + 'from .catalog import make_tools\n\nmcp = FastMCP("t", tools=make_tools())\n'
    )
    assert found == [("MCP004", 7, 1, None), ("unchecked-registration", "not-found", 7)]


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


SUBCLASS = """\
from mcp.server.fastmcp import FastMCP


class Notes(FastMCP):
    pass
"""


def test_tools_given_to_a_project_subclass_in_another_module_are_checked(project):
    (project / "app").mkdir()
    (project / "app" / "__init__.py").write_text("")
    (project / "app" / "base.py").write_text(SUBCLASS)
    # The module names no server class and says no `.tool`: only `tools=`.
    source = (
        "from mcp.server.fastmcp.tools import Tool\n\nfrom .base import Notes\n\n\n"
        + FUNCTIONS
        + '\n\nmcp = Notes("t", tools=[Tool.from_function(search)])\n'
    )
    (project / "app" / "server.py").write_text(source)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--select", "MCP001,MCP004", "."])
    assert result.exit_code == 1, result.output
    assert "app/server.py:6:12: MCP001 [*] Tool `search`" in result.output, result.output


def test_tools_given_to_a_project_subclass_the_analysis_cannot_read_are_unchecked(project):
    result = check(
        project,
        SUBCLASS + '\n\nfrom .catalog import make_tools\n\nmcp = Notes("t", tools=make_tools())\n',
    )
    assert result.exit_code == 1
    assert "tool function `make_tools()` not found" in result.output, result.output


def test_tools_given_to_a_class_that_is_no_server_are_no_registration(project):
    result = check(
        project,
        "from agents import Agent\n\n\n"
        + FUNCTIONS
        + "\n\nclass Crew:\n    def __init__(self, tools):\n        self.tools = tools\n\n\n"
        + 'agent = Agent("a", tools=[search])\ncrew = Crew(tools=[lookup])\n',
    )
    assert result.exit_code == 0, result.output
    assert "not checked" not in result.output
