"""MCP102: a tool without arguments, whose JSON schema the OpenAI Agents SDK cannot make strict."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.subjects import RegisteredTool
from mcp_codemod.rules.model import Client, FixAvailability, Invalid, Report, Rule, Valid


def check(tool: RegisteredTool) -> Report | None:
    # Standalone fastmcp 2.x lists the same open object, but later majors close it (4.2.3
    # does), and which one runs is not in the source: the probe reads the live schema.
    if tool.parameters or tool.server.framework is Framework.FASTMCP:
        return None
    return Report(
        f"Tool `{tool.tool}` takes no arguments: its JSON schema is an object without properties "
        "that permits undeclared ones, which cannot be made strict for OpenAI: the Agents SDK "
        "sends the tool non-strict"
    )


RULE = Rule(
    code="MCP102",
    name="openai-strict-no-parameters",
    summary="A tool without arguments, whose JSON schema cannot be made strict for OpenAI",
    why=(
        'The mcp SDK describes a tool without arguments as `{"type": "object",\n'
        '"properties": {}}`, an object open to undeclared properties. The OpenAI Agents SDK\n'
        "converts MCP tool schemas to strict mode on request (`convert_schemas_to_strict=True`)\n"
        "and refuses to close an open object, since that would change what it accepts: it logs\n"
        '"Error converting MCP schema to strict mode" and sends the tool non-strict. Opt-in\n'
        "(`--select MCP1`): only servers meant for strict OpenAI clients care. Standalone\n"
        "fastmcp is not reported: 2.x lists the same open object, later majors close it, and\n"
        "the source does not say which one runs (`mcp-codemod probe` reads the live schema)."
    ),
    fix_title=(
        'The tool needs `"additionalProperties": false` in its input schema, which the mcp SDK\n'
        "does not let a tool declare (docs/client-schemas.md)."
    ),
    fix_safety=(
        "No automatic fix: the mcp SDK builds the input schema from the signature and takes no\n"
        "schema at registration, so no edit of the source closes it; and the SDK ignores\n"
        "undeclared arguments, so a closed schema would let clients that check the arguments\n"
        "(Gemini CLI) refuse calls the server takes today."
    ),
    subject=RegisteredTool,
    check=check,
    availability=FixAvailability.NEVER,
    enabled_by_default=False,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("clock")


@mcp.tool()
def now() -> str:
    return "12:00"
""",
            lines=(7,),
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("clock")


@mcp.tool()
def now(timezone: str) -> str:
    return timezone
"""
        ),
        Invalid(
            """\
from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("clock")


@mcp.tool()
async def now(ctx: Context) -> str:
    return "12:00"
""",
            lines=(7,),
        ),
        Valid(
            """\
from fastmcp import FastMCP

mcp = FastMCP("clock")


@mcp.tool
def now() -> str:
    return "12:00"
"""
        ),
    ),
    clients=(
        Client(
            "OpenAI Agents SDK 0.24.0 with `convert_schemas_to_strict=True` (falls back to"
            " non-strict)",
            "openai/openai-agents-python src/agents/mcp/util.py `to_function_tool`,"
            " src/agents/strict_schema.py `_OPEN_OBJECT_ERROR`",
        ),
    ),
)
