"""MCP102: a tool without arguments, whose JSON schema the OpenAI Agents SDK cannot make strict."""

from __future__ import annotations

from mcp_codemod.analysis.subjects import RegisteredTool
from mcp_codemod.rules.model import Client, FixAvailability, Invalid, Report, Rule, Valid


def check(tool: RegisteredTool) -> Report | None:
    if tool.parameters:
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
        'The SDKs describe a tool without arguments as `{"type": "object", "properties":\n'
        "{}}`, an object open to undeclared properties. The OpenAI Agents SDK converts MCP tool\n"
        "schemas to strict mode on request (`convert_schemas_to_strict=True`) and refuses to\n"
        'close an open object, since that would change what it accepts: it logs "Error\n'
        'converting MCP schema to strict mode" and sends the tool non-strict. Opt-in\n'
        "(`--select MCP1`): only servers meant for strict OpenAI clients care."
    ),
    fix_title=(
        'The tool needs `"additionalProperties": false` in its input schema, which neither SDK\n'
        "lets a tool declare (docs/client-schemas.md)."
    ),
    fix_safety=(
        "No automatic fix: the mcp SDK and fastmcp build the input schema from the signature and\n"
        "take no schema at registration, so no edit of the source closes it; and on the mcp SDK,\n"
        "which ignores undeclared arguments, a closed schema would let clients that check the\n"
        "arguments (Gemini CLI) refuse calls the server takes today."
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
from fastmcp import Context, FastMCP

mcp = FastMCP("clock")


@mcp.tool
async def now(ctx: Context) -> str:
    return "12:00"
""",
            lines=(7,),
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
