"""What the analyzer knows about the MCP server frameworks: their server classes by qualified name."""

from __future__ import annotations

from enum import Enum


class Framework(str, Enum):
    MCP1 = "mcp1"
    MCP2 = "mcp2"
    FASTMCP = "fastmcp"
    GUARDED_MCP1 = "mcp1-guarded"
    GUARDED_MCP2 = "mcp2-guarded"

    @property
    def title(self) -> str:
        return _TITLES[self]

    @property
    def pre_parses_json(self) -> bool:
        """Whether string arguments of non-`str` parameters go through `FuncMetadata.pre_parse_json`."""
        return self in (Framework.MCP1, Framework.MCP2)

    @property
    def guarded(self) -> Framework:
        return {Framework.MCP1: Framework.GUARDED_MCP1, Framework.MCP2: Framework.GUARDED_MCP2}.get(
            self, self
        )


_TITLES = {
    Framework.MCP1: "mcp 1.x FastMCP",
    Framework.MCP2: "mcp 2.x MCPServer",
    Framework.FASTMCP: "standalone fastmcp",
    Framework.GUARDED_MCP1: "GuardedFastMCP",
    Framework.GUARDED_MCP2: "GuardedMCPServer",
}

# Every public spelling of each server class; re-exports count, since users import from any of them.
SERVER_CLASSES: dict[str, Framework] = {
    "mcp.server.FastMCP": Framework.MCP1,
    "mcp.server.fastmcp.FastMCP": Framework.MCP1,
    "mcp.server.fastmcp.server.FastMCP": Framework.MCP1,
    "mcp.server.MCPServer": Framework.MCP2,
    "mcp.server.mcpserver.MCPServer": Framework.MCP2,
    "mcp.server.mcpserver.server.MCPServer": Framework.MCP2,
    "fastmcp.FastMCP": Framework.FASTMCP,
    "fastmcp.server.FastMCP": Framework.FASTMCP,
    "fastmcp.server.server.FastMCP": Framework.FASTMCP,
    "mcp_codemod.runtime.GuardedFastMCP": Framework.GUARDED_MCP1,
    "mcp_codemod.runtime.GuardedMCPServer": Framework.GUARDED_MCP2,
}

# The names server classes go by, whatever module they are imported from (`FastMCP(...)`).
SERVER_CLASS_NAMES = frozenset(name.rpartition(".")[2] for name in SERVER_CLASSES)

GUARDED_CLASS_NAME = {Framework.MCP1: "GuardedFastMCP", Framework.MCP2: "GuardedMCPServer"}

RUNTIME_MODULES = (
    "mcp_codemod.runtime",
    "mcp_codemod.runtime.guards",
    "mcp_codemod.runtime.servers",
)
# The attributes whose call registers the function they decorate or are given: `@server.tool`,
# and mcp-agent's `@app.async_tool` on an `MCPApp` (analysis/facades.py).
# Annotations whose values are never a server: a parameter so typed is not followed to its
# callers to learn what they pass (the builtins' values, the frameworks' request contexts).
NOT_SERVERS = frozenset(
    {
        *(f"builtins.{name}" for name in ("str", "int", "float", "bool", "bytes", "dict", "list")),
        "fastmcp.Context",
        "fastmcp.server.context.Context",
        "mcp.server.fastmcp.Context",
        "mcp.server.fastmcp.server.Context",
        "mcp.server.mcpserver.Context",
        "mcp.server.mcpserver.context.Context",
    }
)

REGISTRATION_ATTRIBUTES = frozenset({"tool", "async_tool"})
# The attributes through which a server registers tools.
TOOL_ATTRIBUTES = REGISTRATION_ATTRIBUTES | {"add_tool"}
GUARD_FUNCTIONS = {f"{m}.guard" for m in RUNTIME_MODULES}
INSTALL_FUNCTIONS = {f"{m}.install" for m in RUNTIME_MODULES}


def runtime_name(qualified: str, runtime_copy: str | None) -> str:
    """`mcp_codemod.runtime.X` for `X` of the project's own copy of the runtime (the
    `runtime-module` setting, which `fix` generates), else `qualified` as it is."""
    if runtime_copy and qualified.rpartition(".")[0] == runtime_copy:
        return f"mcp_codemod.runtime.{qualified.rpartition('.')[2]}"
    return qualified


def is_guard(qualified: str, runtime_copy: str | None) -> bool:
    """Whether a called function is the runtime's `guard` (or its project copy's)."""
    return runtime_name(qualified, runtime_copy) in GUARD_FUNCTIONS


def is_install(qualified: str, runtime_copy: str | None) -> bool:
    return runtime_name(qualified, runtime_copy) in INSTALL_FUNCTIONS


def framework_named(name: str) -> Framework | None:
    """The framework a user names in settings (`mcp1`, `mcp2`, `fastmcp`)."""
    try:
        return Framework(name)
    except ValueError:
        return None
