"""MCP006: a structured parameter that rejects its value sent as JSON text."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shape_questions import Text, is_structured, markers, text_treatment
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.fixes import describe, marker_fix
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid

MARKER = "DecodeJsonText"
"""The run-time marker (`mcp_codemod.runtime.DecodeJsonText`) that decodes such text."""


def check(parameter: ToolParameter) -> Report | None:
    # The mcp SDK decodes such text itself (its pre-parse, kept by the guarded servers for
    # parameters that cannot take a string); only the standalone fastmcp does not.
    if not parameter.server.runs_on(Framework.FASTMCP):
        return None
    shape = parameter.shape
    if not is_structured(shape) or text_treatment(shape) is not Text.NO_STR:
        return None
    if MARKER in markers(shape):
        return None
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} rejects its value sent as JSON text "
        "('[1, 2]', '{\"a\": 1}'), which some clients send for arrays and objects; fastmcp "
        "does not decode it"
    )
    return Report(message, marker_fix(parameter, MARKER))


RULE = Rule(
    code="MCP006",
    name="structured-parameter-rejects-json-text",
    summary="A list, dict, set, tuple or model parameter of a fastmcp tool that rejects JSON text",
    why=(
        "Some clients send an array or object argument as its JSON text: `loc: list[int] | None`\n"
        "arrives as the string '[1271, 2106]'. The mcp SDK decodes it before validation; the\n"
        'standalone `fastmcp` does not, and rejects it ("Input should be a valid list").\n'
        "Advisory: off by default, since it depends on the client; enable it with\n"
        "`--select MCP006`."
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `DecodeJsonText` marker: text that is the JSON of\n"
        "an array or object is decoded, then validated as the parameter's value."
    ),
    fix_safety=(
        "Safe: only strings, which the parameter rejected before, change fate; every other value\n"
        "and the JSON schema are as they were. fastmcp 2.x with `strict_input_validation=True`\n"
        "checks the JSON schema first and still rejects the text."
    ),
    subject=ToolParameter,
    check=check,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=False,
    cases=(
        Invalid(
            """\
from fastmcp import FastMCP

mcp = FastMCP("images")


@mcp.tool
def crop(loc: list[int] | None = None, size: dict[str, int] | None = None) -> str:
    return str(loc)
""",
            lines=(7, 7),
            fixed="""\
from typing import Annotated

from fastmcp import FastMCP
from mcp_codemod.runtime import DecodeJsonText

mcp = FastMCP("images")


@mcp.tool
def crop(
    loc: Annotated[list[int] | None, DecodeJsonText] = None,
    size: Annotated[dict[str, int] | None, DecodeJsonText] = None,
) -> str:
    return str(loc)
""",
        ),
        Invalid(
            """\
from fastmcp import FastMCP
from pydantic import BaseModel

mcp = FastMCP("images")


class Box(BaseModel):
    left: int
    top: int


@mcp.tool
def crop(box: Box) -> str:
    return str(box)
""",
            lines=(13,),
            fixed="""\
from typing import Annotated

from fastmcp import FastMCP
from mcp_codemod.runtime import DecodeJsonText
from pydantic import BaseModel

mcp = FastMCP("images")


class Box(BaseModel):
    left: int
    top: int


@mcp.tool
def crop(box: Annotated[Box, DecodeJsonText]) -> str:
    return str(box)
""",
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("images")


@mcp.tool()
def crop(loc: list[int] | None = None) -> str:
    return str(loc)
"""
        ),
        Valid(
            """\
from fastmcp import FastMCP

mcp = FastMCP("images")


@mcp.tool
def crop(name: str | list[str], scale: float = 1.0) -> str:
    return str(name)
"""
        ),
    ),
)
