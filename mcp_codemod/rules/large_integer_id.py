"""MCP003: an integer parameter whose name says it carries 64-bit IDs."""

from __future__ import annotations

import re

from mcp_codemod.analysis.shape_questions import Integer, Text, integer_validation, text_treatment
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import marker_fix
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import Client, FixAvailability, Invalid, Report, Rule, Valid

MARKER = "AcceptDigitText"
"""The run-time marker (`mcp_codemod.runtime.AcceptDigitText`) that takes the ID as text too."""

_LARGE_ID = re.compile(r"(^|_)(id|ids|snowflake)$|snowflake|_(ns|nanos|nanoseconds)$", re.I)


def check(parameter: ToolParameter) -> Report | None:
    shape = parameter.shape
    if integer_validation(shape) is Integer.NONE:
        return None
    if text_treatment(shape) in (Text.ADMITS_STR, Text.ANY):
        return None
    if not _LARGE_ID.search(parameter.parameter.name) or MARKER in parameter.shape.markers:
        return None
    return Report(
        f"Tool `{parameter.tool}`: integer {describe(parameter)} may carry values above 2**53, "
        "which float64-serializing clients round before they reach the server",
        marker_fix(parameter, MARKER),
    )


RULE = Rule(
    code="MCP003",
    name="large-integer-id",
    summary="An integer parameter whose name says it carries 64-bit IDs",
    why=(
        "Integers above 2**53 (64-bit document IDs, snowflakes, nanosecond timestamps) are\n"
        "rounded by clients that serialize numbers as float64, before the server sees them: no\n"
        "server-side validation can restore the lost digits. Advisory: off by default, since the\n"
        "name is only a hint; enable it with `--select MCP003`."
    ),
    fix_title=(
        "`mcp-codemod fix --write --select MCP003` adds the `AcceptDigitText` marker: the schema\n"
        'offers the ID as text too (`anyOf: [{"type": "integer"}, {"type": "string", "pattern":\n'
        '"^-?[0-9]+$"}]`), and the server turns such text into the integer, so a client can send\n'
        "every digit. Clients still choose what to send: tell them in the tool's description."
    ),
    fix_safety=(
        "Safe: only arguments that were refused before are taken now (a string of digits, which\n"
        "strict validation refused; lax validation already took it as the same integer); every\n"
        "other argument is validated as before. The schema changes: that is the fix."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=False,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("chat")


@mcp.tool()
def delete_message(message_id: int) -> str:
    return str(message_id)
""",
            lines=(7,),
            fixed="""\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import AcceptDigitText

mcp = FastMCP("chat")


@mcp.tool()
def delete_message(message_id: Annotated[int, AcceptDigitText]) -> str:
    return str(message_id)
""",
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("chat")


@mcp.tool()
def delete_message(message_id: str) -> str:
    return str(int(message_id))
"""
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("chat")


@mcp.tool()
def history(limit: int, valid: bool) -> str:
    return str(limit)
"""
        ),
    ),
    clients=(
        Client(
            "JavaScript clients (the TypeScript MCP SDK, Gemini CLI, VS Code): JSON numbers are"
            " float64",
            "https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/"
            "Number/MAX_SAFE_INTEGER",
        ),
    ),
)
