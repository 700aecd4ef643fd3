"""MCP002: a strictly validated integer parameter that rejects 5.0."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shape_questions import (
    Integer,
    Text,
    integer_validation,
    markers,
    text_treatment,
)
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import marker_fix
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid

MARKER = "AcceptWholeFloat"
"""The run-time marker (`mcp_codemod.runtime.AcceptWholeFloat`) that takes 5.0 as 5."""


def check(parameter: ToolParameter) -> Report | None:
    integer = integer_validation(parameter.shape)
    if integer is Integer.NONE or MARKER in markers(parameter.shape):
        return None
    server = parameter.server
    if integer is Integer.STRICT or parameter.parameter.default_is_strict:
        reason = "strict validation"
    elif server.strict_input_validation and server.runs_on(Framework.FASTMCP):
        reason = "the server's strict_input_validation"
    else:
        return None
    # A parameter that takes text keeps "5" as text (the marker leaves it alone).
    as_text = " and integers sent as text such as '5'" if _takes_no_text(parameter) else ""
    message = (
        f"Tool `{parameter.tool}`: integer {describe(parameter)} rejects whole-number floats "
        f"such as 5.0{as_text} ({reason}), which current clients send"
    )
    return Report(message, marker_fix(parameter, MARKER))


def _takes_no_text(parameter: ToolParameter) -> bool:
    return text_treatment(parameter.shape) is Text.NO_STR


RULE = Rule(
    code="MCP002",
    name="strict-integer-rejects-whole-float",
    summary="A strictly validated integer parameter that rejects 5.0",
    why=(
        "Current clients send integers in forms strict validation rejects. Warp sends every\n"
        "number as a float: 8650 arrives as 8650.0 (warpdotdev/warp#12333, Warp\n"
        "v0.2026.06.03, 2026-06, open; #10596 for nested integers). Claude Code sends numbers\n"
        'as their text: 330 arrives as "330" (anthropics/claude-code#32524, 2.1.71, 2026-03;\n'
        "again in the desktop app 1.20186.0, #76228, 2026-07). Lax pydantic takes both as the\n"
        "integer, but strict validation (`StrictInt`, `Annotated[int, Strict()]`,\n"
        "`Field(strict=True)`, `conint(strict=True)`, a fastmcp 3+ server with\n"
        "`strict_input_validation=True`) rejects them, so the tool fails for those clients."
    ),
    fix_title=(
        '`mcp-codemod fix --write` adds the `AcceptWholeFloat` marker: 5.0, and "5" where the\n'
        "parameter takes no text, become 5 before validation; 5.5, nan, inf and booleans are\n"
        "still rejected, the JSON schema is unchanged."
    ),
    fix_safety=(
        "Safe: only whole-number floats and integers sent as text, which strict validation\n"
        "rejected, change fate; a parameter that takes text keeps the text."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=True,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

mcp = FastMCP("pages")


@mcp.tool()
def page(number: StrictInt) -> str:
    return str(number)
""",
            lines=(8,),
            fixed="""\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import AcceptWholeFloat
from pydantic import StrictInt

mcp = FastMCP("pages")


@mcp.tool()
def page(number: Annotated[StrictInt, AcceptWholeFloat]) -> str:
    return str(number)
""",
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("pages")


@mcp.tool()
def page(number: int) -> str:
    return str(number)
"""
        ),
        Invalid(
            """\
from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("pages", strict_input_validation=True)


@mcp.tool()
def page(number: int, size: int = Field(10, strict=True)) -> str:
    return str(number * size)
""",
            lines=(8, 8),
            fixed="""\
from typing import Annotated

from fastmcp import FastMCP
from mcp_codemod.runtime import AcceptWholeFloat
from pydantic import Field

mcp = FastMCP("pages", strict_input_validation=True)


@mcp.tool()
def page(
    number: Annotated[int, AcceptWholeFloat],
    size: Annotated[int, AcceptWholeFloat] = Field(10, strict=True),
) -> str:
    return str(number * size)
""",
        ),
        # A type alias may type other things too (a pydantic model that must go on refusing
        # 5.0): the parameter is marked, never the alias.
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

Count = StrictInt
mcp = FastMCP("pages")


@mcp.tool()
def page(number: Count) -> str:
    return str(number)
""",
            lines=(9,),
            fixed="""\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import AcceptWholeFloat
from pydantic import StrictInt

Count = StrictInt
mcp = FastMCP("pages")


@mcp.tool()
def page(number: Annotated[Count, AcceptWholeFloat]) -> str:
    return str(number)
""",
        ),
    ),
)
