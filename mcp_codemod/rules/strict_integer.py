"""MCP002: a strictly validated integer parameter that rejects 5.0."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shape_questions import Integer, integer_validation, markers
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.fixes import describe, marker_fix
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
    message = (
        f"Tool `{parameter.tool}`: integer {describe(parameter)} rejects whole-number floats "
        f"such as 5.0 ({reason}), which float64-serializing clients send"
    )
    return Report(message, marker_fix(parameter, MARKER))


RULE = Rule(
    code="MCP002",
    name="strict-integer-rejects-whole-float",
    summary="A strictly validated integer parameter that rejects 5.0",
    why=(
        "Some clients pass tool arguments through a protobuf `Struct`, whose numbers are all\n"
        "float64: the integer 5 arrives as 5.0. Lax pydantic turns 5.0 into 5, but strict\n"
        "validation (`StrictInt`, `Annotated[int, Strict()]`, `Field(strict=True)`,\n"
        "`conint(strict=True)`, a fastmcp 3+ server with `strict_input_validation=True`) rejects\n"
        "it, so the tool fails for those clients."
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `AcceptWholeFloat` marker: 5.0 becomes 5 before\n"
        "validation, 5.5, nan, inf and booleans are still rejected, the JSON schema is unchanged."
    ),
    fix_safety="Safe: only whole-number floats, which strict validation rejected, change fate.",
    subject=ToolParameter,
    check=check,
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
