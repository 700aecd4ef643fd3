"""`fix` never says "Fixed" over a server that would not import (docs/fix.md): every name the
fixed code imports from the runtime must exist with the mcp installed where `fix` runs, read
from the distribution's metadata and files."""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_servers import tool

from mcp_codemod.cli import main
from mcp_codemod.fix.runtime_names import (
    InstalledMcp,
    installed_mcp,
    missing_names,
    runtime_exports,
)

MCP1 = InstalledMcp("1.28.1", frozenset({"mcp/server/fastmcp/__init__.py"}))
MCP2 = InstalledMcp("2.3.0", frozenset({"mcp/server/mcpserver/__init__.py"}))
NO_MCP = InstalledMcp(None)
RUNTIME = "mcp_codemod.runtime"


def missing(text: str, mcp: InstalledMcp, runtime_modules=(), original: str = "") -> list[str]:
    fixed = [("server.py", original, text)]
    return missing_names(fixed, runtime_modules, runtime_exports(), mcp)


def test_each_guarded_class_needs_its_own_major():
    fastmcp = "from mcp_codemod.runtime import GuardedFastMCP\n"
    mcpserver = "from mcp_codemod.runtime import GuardedMCPServer\n"
    assert missing(fastmcp, MCP1) == [] and missing(mcpserver, MCP2) == []
    assert missing(fastmcp, MCP2) == [
        "server.py:1: error: the fixed code imports `GuardedFastMCP`, which needs mcp<2; the "
        "installed mcp is 2.3.0: the server will not import"
    ]
    assert missing(mcpserver, MCP1) == [
        "server.py:1: error: the fixed code imports `GuardedMCPServer`, which needs mcp>=2; the "
        "installed mcp is 1.28.1: the server will not import"
    ]


def test_a_module_written_for_one_major_takes_that_majors_class_wherever_fix_runs():
    # Before the fix it imported the mcp 2.x package outside any branch: it runs on mcp 2.x only.
    original = "from mcp.server.mcpserver import MCPServer\n"
    text = "from mcp_codemod.runtime import GuardedMCPServer\n"
    assert missing(text, MCP1, original=original) == []
    # ... and the other major's class is wrong for it where it runs.
    wrong = "from mcp_codemod.runtime import GuardedFastMCP\n"
    assert len(missing(wrong, MCP2, original=original)) == 1


def test_a_module_a_fix_made_guarded_is_written_for_that_classes_major():
    # A second round (`fix --unsafe-fixes` after `fix`) starts from the guarded class, outside
    # any branch: the module is for mcp 1.x as much as its `mcp.server.fastmcp` import said.
    original = "from mcp_codemod.runtime import GuardedFastMCP\n"
    text = "from mcp_codemod.runtime import GuardedFastMCP, NoPreParse\n"
    assert missing(text, MCP2, original=original) == []


def test_guard_and_the_markers_import_under_either_major():
    text = "from mcp_codemod.runtime import AcceptWholeFloat, NoPreParse, guard, install\n"
    assert missing(text, MCP1) == [] and missing(text, MCP2) == []


def test_without_mcp_only_the_markers_can_be_confirmed():
    assert missing("from mcp_codemod.runtime import NoPreParse\n", NO_MCP) == []
    (line,) = missing("from mcp_codemod.runtime import guard\n", NO_MCP)
    assert "mcp is not installed where mcp-codemod runs" in line


def test_a_name_the_runtime_does_not_define_is_reported():
    (line,) = missing("from mcp_codemod.runtime import NoSuchMarker\n", MCP1)
    assert "`NoSuchMarker`, which this mcp-codemod's runtime does not define" in line


def test_the_projects_copy_of_the_runtime_counts_as_the_runtime():
    text = "from myserver._guards import GuardedMCPServer\n"
    assert missing(text, MCP1) == []  # not the runtime: not asked about
    assert len(missing(text, MCP1, runtime_modules=["myserver._guards"])) == 1


def test_the_installed_mcp_is_read_from_its_distribution():
    try:
        version = metadata.version("mcp")
    except metadata.PackageNotFoundError:
        assert installed_mcp() == NO_MCP
        return
    found = installed_mcp()
    assert found.version == version
    major = int(version.split(".")[0])
    module = "mcp/server/mcpserver/__init__.py" if major >= 2 else "mcp/server/fastmcp/__init__.py"
    assert module in found.files


OTHER_MAJOR = {
    # A server of each major whose class another module of the project re-exports (so nothing
    # in the server's own module says which major it is for), which `fix` makes a server of
    # that major's guarded class.
    1: ("from mcp.server.fastmcp import FastMCP as Server\n", "GuardedFastMCP"),
    2: ("from mcp.server.mcpserver import MCPServer as Server\n", "GuardedMCPServer"),
}
TOOL = tool()


def fix(root: Path):
    previous = os.getcwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(main, ["fix", "--write", "--no-cache", "."])
    finally:
        os.chdir(previous)


@pytest.mark.parametrize("major", [1, 2])
def test_fix_exits_1_instead_of_fixed_when_its_output_cannot_import_here(tmp_path, major):
    compat, guarded = OTHER_MAJOR[major]
    (tmp_path / "compat.py").write_text(compat, encoding="utf-8")
    server = "from compat import Server\n\nmcp = Server('t')\n"
    (tmp_path / "server.py").write_text(server + TOOL, encoding="utf-8")
    result = fix(tmp_path)
    mcp = installed_mcp()
    if mcp.major is not None and (mcp.major >= 2) == (major >= 2):
        assert result.exit_code == 0, result.output
        assert "Fixed 1 issue in 1 file." in result.output
        return
    assert result.exit_code == 1, result.output
    assert f"server.py:3: error: the fixed code imports `{guarded}`, which needs" in result.output
    assert "Fixed" not in result.output
    assert (
        "Changed 1 file, but the fixed code would not import with the installed mcp "
        "(see the errors above)."
    ) in result.output
