"""Tools registered through a tool registry whose methods return a decorator (excel-mcp-server's
shape: `@tools.reader("Title")` → `self.server.tool(title=...)(_as_tool_errors(function))`), and
through helpers called with the tool by keyword. On fixtures/registry_app, `check` agrees with
the probe (the SDK's own argument handling, mcp 1.x or 2.x as installed) parameter for parameter,
and `fix` rewrites each tool function where it is defined."""

from __future__ import annotations

import importlib
import itertools
import shutil
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner
from conftest import FIXTURES
from probe.servers import MCP_MAJOR

from mcp_codemod.cli import main
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import select_rules

FOUND = {
    ("read_range", "sheet"),  # `@tools.reader(...)`, `tools` imported from server.py
    ("rename_sheet", "name"),  # `@tools.writer(...)`
    ("clear_range", "sheet"),  # `@tools.named("clear_range")`: the name the decoration passes
    ("add_chart", "title"),  # `@tools.writer(...)` in `register(tools: ToolRegistry)`
    ("find", "query"),  # `_register_tool(name="find", fn=search)`
    ("lookup", "key"),  # `add_read_only_tool(server=mcp, tool=lookup)`
    ("fetch", "url"),  # `add_read_only_tool(tool=fetch, server=mcp)`
}
_copies = itertools.count()


def registry_app(tmp_path: Path) -> tuple[Path, str]:
    """A copy of fixtures/registry_app, spelled for the installed mcp major, under a fresh name."""
    name = f"registry_app_{next(_copies)}"
    target = tmp_path / name
    shutil.copytree(FIXTURES / "registry_app", target, ignore=shutil.ignore_patterns("__pycache__"))
    if MCP_MAJOR == 2:
        for path in (target / "server.py", target / "registry.py"):
            path.write_text(
                path.read_text().replace(
                    "from mcp.server.fastmcp import FastMCP",
                    "from mcp.server.mcpserver import MCPServer as FastMCP",
                )
            )
    return target, name


def served(tmp_path: Path, name: str, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("sheets", "keywords"):
        importlib.import_module(f"{name}.{module}")
    return sys.modules[f"{name}.server"].mcp


@pytest.mark.sdk
def test_check_agrees_with_the_probe(tmp_path, monkeypatch):
    target, name = registry_app(tmp_path)
    result = check_files(
        discover([target], DEFAULT_EXCLUDE, respect_gitignore=True), select_rules(None, [])
    )
    report = probe_server(served(tmp_path, name, monkeypatch))

    assert {(f.tool, f.parameter) for f in result.findings if f.code == "MCP001"} == FOUND
    assert {(p.tool, p.parameter) for p in report.problems} == FOUND
    assert result.unchecked == ()
    assert result.tools == len(report.tools) == 7


def test_only_the_server_module_given_still_finds_the_decorated_tools(tmp_path):
    # The registry's decorations are in files without a registration word: the prefilter rules
    # them out, and the decorator factory's search reads them all the same.
    target, _ = registry_app(tmp_path)
    result = check_files([target / "server.py", target / "registry.py"], select_rules(None, []))
    # The registry's four; keywords.py registers its own, counted when it is given.
    assert result.tools == 4 and result.unchecked == ()
    assert result.findings == ()  # findings stay in the files given


@pytest.mark.sdk
def test_fix_rewrites_each_tool_where_it_is_defined(tmp_path, monkeypatch):
    target, name = registry_app(tmp_path)
    fixed = CliRunner().invoke(main, ["fix", "--write", "--no-cache", str(target)])
    assert fixed.exit_code == 0, fixed.output
    assert (target / "sheets.py").read_text() == dedent(
        '''\
        """Tools decorated by the registry instance that server.py makes."""

        from typing import Annotated

        from mcp_codemod.runtime import NoPreParse

        from .server import tools


        @tools.reader("Read range")
        def read_range(sheet: Annotated[str | None, NoPreParse] = None, cells: str = "A1") -> str:  # expect: MCP001 sheet
            return repr((sheet, cells))


        @tools.writer("Rename sheet")
        def rename_sheet(
            sheet: str, name: Annotated[str | None, NoPreParse] = None
        ) -> str:  # expect: MCP001 name
            return repr((sheet, name))


        @tools.named("clear_range")
        def clear(
            sheet: Annotated[str | None, NoPreParse] = None,
        ) -> str:  # expect: MCP001 sheet
            return repr(sheet)
        '''
    )
    before = {path: path.read_bytes() for path in target.glob("*.py")}
    again = CliRunner().invoke(main, ["fix", "--write", "--no-cache", str(target)])
    assert again.exit_code == 0 and again.output.startswith("Nothing to fix"), again.output
    assert {path: path.read_bytes() for path in target.glob("*.py")} == before
    assert probe_server(served(tmp_path, name, monkeypatch)).problems == ()
