"""Registration facades: application objects of other frameworks whose decorators declare tools
that the framework later registers, with the function's own parameters, on a server it makes
itself. mcp-agent's `MCPApp` is one: `@app.tool` / `@app.async_tool` functions become tools of
the mcp 1.x `FastMCP` that `create_mcp_server_for_app(app)` builds (docs/mcp-agent.md)."""

from __future__ import annotations

from dataclasses import dataclass

from mcp_codemod.analysis.facts import Parameter
from mcp_codemod.analysis.frameworks import Framework


@dataclass(frozen=True)
class Facade:
    framework: Framework  # of the server the facade's framework makes
    title: str  # for messages
    server_maker: str  # qualified: the function that makes the server from the facade
    # The constructor's argument (keyword, position) that gives the facade a server of the
    # user's own to register on, instead of making one.
    server_argument: tuple[str, int]
    # Parameters the framework fills itself and leaves out of the tool's signature.
    injected: frozenset[str]
    # Unannotated parameters with these names are taken for the request context and left out.
    context_names: frozenset[str]
    # The tools the framework registers by itself on every such server, for messages. They are
    # registered inside `server_maker`, so they are checked when its module is.
    own_tools: str

    @property
    def own_tools_module(self) -> str:
        return self.server_maker.rsplit(".", 1)[0]

    def tool_parameter(self, parameter: Parameter) -> bool:
        """Whether the parameter is one of the tool's arguments (not filled by the framework)."""
        if parameter.name in self.injected:
            return False
        return not (parameter.annotation is None and parameter.name in self.context_names)

    @property
    def how_to_guard(self) -> str:
        return (
            "guard it where the project makes it, `mcp_codemod.runtime.guard("
            f"{self.server_maker.rsplit('.', 1)[-1]}(app))`, or call "
            "`mcp_codemod.runtime.install()` before it serves requests"
        )

    def guard_advice(self, description: str) -> str:
        return (
            f"the server ({description}) is made inside {self.title}, out of this fix's reach: "
            f"{self.how_to_guard}"
        )


_MCP_AGENT = Facade(
    framework=Framework.MCP1,  # mcp-agent imports `mcp.server.fastmcp`: it runs on mcp 1.x only
    title="mcp-agent",
    server_maker="mcp_agent.server.app_server.create_mcp_server_for_app",
    server_argument=("mcp", 3),  # MCPApp(name, description, settings, mcp, ...)
    injected=frozenset({"app_ctx"}),
    context_names=frozenset({"ctx", "context"}),
    own_tools="its `workflows-*` tools",
)

# Every public spelling of each facade class.
FACADE_CLASSES: dict[str, Facade] = {"mcp_agent.app.MCPApp": _MCP_AGENT}
SERVER_MAKERS: frozenset[str] = frozenset(f.server_maker for f in FACADE_CLASSES.values())
