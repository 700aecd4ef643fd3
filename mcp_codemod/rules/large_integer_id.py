"""MCP003: an integer parameter whose name says it carries 64-bit IDs."""

from __future__ import annotations

import re

from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.analysis.types import Integer, Text
from mcp_codemod.rules.fixes import describe
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid

_LARGE_ID = re.compile(r"(^|_)(id|ids|snowflake)$|snowflake|_(ns|nanos|nanoseconds)$", re.I)


def check(parameter: ToolParameter) -> Report | None:
    facts = parameter.facts
    if facts.integer is Integer.NONE or facts.text in (Text.ADMITS_STR, Text.ANY):
        return None
    if not _LARGE_ID.search(parameter.parameter.name):
        return None
    return Report(
        f"Tool `{parameter.tool}`: integer {describe(parameter)} may carry values above 2**53, "
        "which float64-serializing clients round before they reach the server"
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
    fix_title="Accept such IDs as strings (`int | str`, or `str` and convert), and document it.",
    fix_safety="No automatic fix: the parameter's type, and so its schema, has to change.",
    subject=ToolParameter,
    check=check,
    availability=FixAvailability.NEVER,
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
)
