"""Run-time guards for MCP tool arguments. Needs only pydantic and the server's mcp/fastmcp.

The server-side names (`GuardedFastMCP`, `GuardedMCPServer`, `guard`, `install`, `uninstall`)
load the mcp SDK on first use, so a client that only needs `coerce_integer_arguments` does not.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from .coerce import IntegerCoercingSession, coerce_integer_arguments
from .guards import AcceptWholeFloat, ArrayItemsSchema, DecodeJsonText, NoPreParse

# Each guarded class exists only under its own mcp major version.
_SERVER_CLASS_REQUIREMENT = {
    "GuardedFastMCP": "mcp<2 (mcp.server.fastmcp.FastMCP)",
    "GuardedMCPServer": "mcp>=2 (mcp.server.mcpserver.MCPServer)",
}
_SERVER_FUNCTIONS = ("guard", "install", "uninstall")

# The guarded classes are left out: only one of them can be imported in a given environment.
__all__ = [
    "AcceptWholeFloat",
    "ArrayItemsSchema",
    "DecodeJsonText",
    "IntegerCoercingSession",
    "NoPreParse",
    "coerce_integer_arguments",
    "guard",
    "install",
    "uninstall",
]


def __getattr__(name: str) -> Any:
    if name not in _SERVER_FUNCTIONS and name not in _SERVER_CLASS_REQUIREMENT:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import servers

    if not hasattr(servers, name):
        raise ImportError(
            f"{name} needs {_SERVER_CLASS_REQUIREMENT[name]}; the installed mcp is {version('mcp')}"
        )
    return getattr(servers, name)
