"""The installed mcp SDK major behind one interface, so the same tests run on mcp 1.x and 2.x."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

MCP_MAJOR = int(version("mcp").split(".")[0])
# The texts the SDK's pre-parse decodes: a parameter that receives one changed is mangled.
TEXT_PROBES = frozenset({"null", "[1]", '{"a": 1}'})


def for_installed_sdk(source: str) -> str:
    """A server written for mcp 1.x (`FastMCP`), as the installed SDK spells it."""
    if MCP_MAJOR < 2:
        return source
    return (
        source.replace(
            "from mcp.server.fastmcp import FastMCP", "from mcp.server.mcpserver import MCPServer"
        )
        .replace("mcp.server.fastmcp.tools", "mcp.server.mcpserver.tools")
        .replace("FastMCP(", "MCPServer(")
    )


def copy_for_installed_sdk(source: Path, target: Path) -> Path:
    """A copy of a folder of mcp 1.x servers, each as the installed SDK spells it."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in target.glob("*.py"):
        path.write_text(for_installed_sdk(path.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def probe_module(module: str) -> Any:
    """The probe's report on `module`'s `mcp` server, the module imported afresh."""
    from mcp_codemod.probe.server_probe import probe_server

    sys.modules.pop(module, None)
    report = probe_server(importlib.import_module(module).mcp)
    assert report.tools, module
    return report


def mangled_text(module: str) -> set[tuple[str, str]]:
    """The (tool, parameter) pairs whose text arguments the SDK changes on `module`'s server."""
    return {(p.tool, p.parameter) for p in probe_module(module).problems if p.sent in TEXT_PROBES}


if MCP_MAJOR >= 2:
    from mcp import Client
    from mcp.server.mcpserver import MCPServer as PlainServer
    from mcp.server.mcpserver.tools import Tool

    from mcp_codemod.runtime import GuardedMCPServer as GuardedServer

    OTHER_GUARDED_CLASS = "GuardedFastMCP"

    def connect(server: Any) -> Any:
        return Client(server)

    def is_error(result: Any) -> bool:
        return result.is_error

else:
    from mcp.server.fastmcp import FastMCP as PlainServer
    from mcp.server.fastmcp.tools import Tool
    from mcp.shared.memory import create_connected_server_and_client_session

    from mcp_codemod.runtime import GuardedFastMCP as GuardedServer

    OTHER_GUARDED_CLASS = "GuardedMCPServer"

    def connect(server: Any) -> Any:
        return create_connected_server_and_client_session(server._mcp_server)

    def is_error(result: Any) -> bool:
        return result.isError


__all__ = ["OTHER_GUARDED_CLASS", "GuardedServer", "PlainServer", "Tool", "call", "connect"]


async def call(client: Any, tool: str, arguments: dict[str, Any]) -> str:
    """The tool's text result, or `error: <message>` when the call failed."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text
    return f"error: {text}" if is_error(result) else text


async def input_schemas(client: Any) -> dict[str, str]:
    """Each listed tool's input schema as JSON text, so key order counts too."""
    tools = (await client.list_tools()).tools
    return {tool.name: json.dumps(schema_of(tool)) for tool in tools}


def schema_of(tool: Any) -> dict[str, Any]:
    """A listed tool's input schema under either spelling (mcp 2.x renamed inputSchema)."""
    return getattr(tool, "input_schema", None) or tool.inputSchema


async def listed_input_schema(server: Any) -> dict[str, Any]:
    """The input schema of a server's one tool, as a client lists it (fastmcp through its
    client, which is where it compresses the schema)."""
    import fastmcp

    if isinstance(server, fastmcp.FastMCP):
        async with fastmcp.Client(server) as client:
            (tool,) = await client.list_tools()
    else:
        (tool,) = await server.list_tools()
    return schema_of(tool)
