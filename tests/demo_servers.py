"""The demo servers the tests share: write them into a project rather than retyping them."""

# An mcp 1.x server with one exposed parameter: `check` reports MCP001 at 7:12, `fix` guards it.
EXPOSED = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
"""

# A server whose construction the analysis cannot follow: its registration is unchecked.
UNKNOWN_FRAMEWORK = """\
from company_toolkit import build_server

mcp = build_server("demo")


@mcp.tool()
def lookup(name: str | None = None) -> str:
    return name or ""
"""
