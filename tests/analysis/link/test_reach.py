"""`check` follows tools through helpers, wrappers, loops, star imports and into a library, and
agrees with the probe (the SDK's own argument handling) on fixtures/reach_app, on the installed
mcp 1.x or 2.x: every parameter the SDK mangles is a finding, except on the tools `check` reports
as unchecked, and those are exactly the tools it cannot follow."""

from __future__ import annotations

import importlib
import itertools
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES
from probe.servers import MCP_MAJOR

from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.cli import main
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import select_rules

# What `check` reports, by the shape the tool is registered in (fixtures/reach_app/tools.py).
FOLLOWED = {
    ("search", "query"),  # `_register_tool("search", search)`: a helper, through `paginating()`
    ("lookup", "key"),  # `add_read_only_tool(mcp, lookup)`
    ("annotate", "comment"),  # `@tool(name=...)`: a decorator factory of the project
    ("read_page", "page"),  # `@tools.reader("read_page")`: a registry class's method
    ("tag_note", "tag"),  # `for fn in [tag_note, untag_note]`
    ("list_notes", "prefix"),  # `for _tool in read_tools`, a list literal of catalog.py
    ("count_notes", "tag"),
    ("rename_note", "title"),  # `for _name, _handler in renames.items()`
    ("archive_note", "reason"),  # `for _group, cls, flag in groups: cls(flag).register(mcp)`
    ("summarize", "text"),  # a library's function, read from its source on sys.path
}
# What it cannot follow exactly: reported as unchecked, with why.
UNSEEN = {
    ("generated", "text", Unchecked.GENERATED_SIGNATURE),  # `generated.__signature__ = ...`
    ("built_note", "body", Unchecked.LOOP_VARIABLE),  # `for _built_tool in _built()`
}
_copies = itertools.count()


def reach_app(tmp_path: Path) -> tuple[Path, str]:
    """A copy of fixtures/reach_app, spelled for the installed mcp major, under a fresh name."""
    name = f"reach_app_{next(_copies)}"
    target = tmp_path / name
    shutil.copytree(FIXTURES / "reach_app", target, ignore=shutil.ignore_patterns("__pycache__"))
    if MCP_MAJOR == 2:
        runtime = target / "runtime.py"
        runtime.write_text(
            runtime.read_text().replace(
                "from mcp.server.fastmcp import FastMCP",
                "from mcp.server.mcpserver import MCPServer as FastMCP",
            )
        )
    return target, name


def check(target: Path):
    files = discover([target], DEFAULT_EXCLUDE, respect_gitignore=True)
    return check_files(files, select_rules(None, []))


def served(tmp_path: Path, name: str, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module(f"{name}.tools")
    return sys.modules[f"{name}.runtime"].mcp


@pytest.mark.sdk
def test_check_agrees_with_the_probe(tmp_path, monkeypatch):
    target, name = reach_app(tmp_path)
    result = check(target)
    report = probe_server(served(tmp_path, name, monkeypatch))

    probed = {(problem.tool, problem.parameter) for problem in report.problems}
    checked = {(f.tool, f.parameter) for f in result.findings if f.code == "MCP001"}
    assert checked == FOLLOWED
    assert probed == FOLLOWED | {(tool, parameter) for tool, parameter, _ in UNSEEN}
    assert sorted(u.kind for u in result.unchecked) == sorted(kind for *_, kind in UNSEEN)
    assert {u.server.origin for u in result.unchecked} == {(f"{name}.runtime", 7)}
    # Every registration is counted, once per tool it registers: the loops register several.
    assert result.tools == len(report.tools) == len(FOLLOWED) + len(UNSEEN) + 1  # untag_note


def test_a_library_tool_is_reported_on_its_registration(tmp_path):
    target, _ = reach_app(tmp_path)
    [finding] = [f for f in check(target).findings if f.tool == "summarize"]
    lines = (target / "tools.py").read_text().splitlines()
    line = lines.index("mcp.add_tool(summarize)  # expect: MCP001 text") + 1
    assert (Path(finding.path).name, finding.line, finding.column) == ("tools.py", line, 1)
    # No marker can go into the library: the fix guards the server, which protects it anyway.
    assert finding.fix.markers == () and len(finding.fix.swaps) == 1


@pytest.mark.sdk
def test_fix_makes_every_tool_keep_its_arguments(tmp_path, monkeypatch):
    target, name = reach_app(tmp_path)
    outcome = CliRunner().invoke(main, ["fix", "--write", "--unsafe-fixes", str(target)])
    assert outcome.exit_code == 0, outcome.output
    assert "Annotated[Optional[str], NoPreParse]" in (target / "tools.py").read_text()

    assert probe_server(served(tmp_path, name, monkeypatch)).problems == ()
