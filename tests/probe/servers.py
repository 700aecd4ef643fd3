"""The probe's fixture servers, and the installed SDK generations."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from demo_servers import import_server

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "probe"


def installed_major(package: str) -> int | None:
    try:
        return int(version(package).split(".")[0])
    except PackageNotFoundError:
        return None


MCP_MAJOR = installed_major("mcp")
FASTMCP_MAJOR = installed_major("fastmcp")
MCP_FRAMEWORK = "mcp 1.x FastMCP" if MCP_MAJOR == 1 else "mcp 2.x MCPServer"
GUARDED_CLASS = "GuardedFastMCP" if MCP_MAJOR == 1 else "GuardedMCPServer"
# The fixture for the installed mcp major: the same servers, spelled for mcp 1.x and mcp 2.x.
NOTES = FIXTURES / f"notes_mcp{MCP_MAJOR}.py"
NOTES_FASTMCP = FIXTURES / "notes_fastmcp.py"


_fresh = itertools.count()


def load(path: Path) -> ModuleType:
    """A fresh import of a fixture file, so that guarding its servers leaves other tests alone."""
    name = f"probe_fixture_{next(_fresh)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def server_source(*, guarded: bool) -> str:
    """A one-tool server module for the installed mcp major, with a `str | None` parameter."""
    if guarded:
        imported = f"from mcp_codemod.runtime import {GUARDED_CLASS} as Server"
    elif MCP_MAJOR == 1:
        imported = "from mcp.server.fastmcp import FastMCP as Server"
    else:
        imported = "from mcp.server.mcpserver import MCPServer as Server"
    return (
        f"{imported}\n\nserver = Server('echo')\n\n\n@server.tool()\n"
        "def echo(text: str | None = None) -> str:\n"
        "    raise RuntimeError('a probe ran the body of echo')\n"
    )


def for_installed_sdk(source: str) -> str:
    """A server written for mcp 1.x (`FastMCP`), as the installed SDK spells it."""
    if MCP_MAJOR is None or MCP_MAJOR < 2:
        return source
    return source.replace(
        "from mcp.server.fastmcp import FastMCP", "from mcp.server.mcpserver import MCPServer"
    ).replace("FastMCP(", "MCPServer(")


def load_server(source: str, tmp_path: Path) -> tuple[Path, Any]:
    """A rule case's module, imported from `tmp_path`, and its `mcp` server; the test is skipped
    when the module imports a framework or SDK major not installed here."""
    try:
        path, module = import_server(source, tmp_path)
    except ImportError as error:  # a case for the other mcp major
        pytest.skip(f"the case's server imports {error.name}, not installed here")
    return path, module.mcp
