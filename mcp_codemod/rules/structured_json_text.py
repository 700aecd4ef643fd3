"""MCP006: a structured or nullable parameter of a fastmcp tool that rejects its value sent as
JSON text."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shape_questions import Text, is_structured, markers, text_treatment
from mcp_codemod.analysis.shapes import Kind, Shape
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import marker_fix
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid

MARKER = "DecodeJsonText"
"""The run-time marker (`mcp_codemod.runtime.DecodeJsonText`) that decodes such text."""


# The members beside None of a nullable parameter whose "null" text the marker decodes: none of
# them takes the text as it is, in lax or strict validation (a library's class might: a `Path`).
_DECODED_BESIDE_NONE = (Kind.INT, Kind.FLOAT, Kind.BOOL, Kind.LITERAL)


def _nullable(shape: Shape) -> bool:
    """A union with None whose other members are numbers, booleans, non-text literals or
    structured values."""
    if shape.kind is not Kind.UNION or not any(m.kind is Kind.NONE for m in shape.args):
        return False
    others = [member for member in shape.args if member.kind is not Kind.NONE]
    return all(m.kind in _DECODED_BESIDE_NONE or is_structured(m) for m in others)


def check(parameter: ToolParameter) -> Report | None:
    # The mcp SDK decodes such text itself (its pre-parse, kept by the guarded servers for
    # parameters that cannot take a string); only the standalone fastmcp does not.
    if not parameter.server.runs_on(Framework.FASTMCP):
        return None
    shape = parameter.shape
    if text_treatment(shape) is not Text.NO_STR or MARKER in markers(shape):
        return None
    structured, nullable = is_structured(shape), _nullable(shape)
    if not structured and not nullable:
        return None
    texts = [
        *(("'[1, 2]'", "'{\"a\": 1}'") if structured else ()),
        *(("'null'",) if nullable else ()),
    ]
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} rejects its value sent as JSON text "
        f"({', '.join(texts)}), which current clients send (Claude Code, Codex); fastmcp does "
        "not decode it"
    )
    return Report(message, marker_fix(parameter, MARKER))


RULE = Rule(
    code="MCP006",
    name="structured-parameter-rejects-json-text",
    summary=(
        "A list, dict, set, tuple, model or nullable parameter of a fastmcp tool that rejects "
        "JSON text"
    ),
    why=(
        "Current clients send an array or object argument as its JSON text, and JSON null as\n"
        "the text \"null\": `loc: list[int] | None` arrives as the string '[1271, 2106]', `limit:\n"
        "int | None` as 'null'. Claude Code 2.1 does it for arrays and objects mid-session\n"
        "(anthropics/claude-code#93179, 2026-09, open; #50138) and for null (#81911; #95239,\n"
        "2026-09, open); Codex CLI for arrays and objects (openai/codex#16841); GitHub Copilot\n"
        "CLI (github/copilot-cli#4301) and mcp-remote 0.1.37 (geelen/mcp-remote#319) for\n"
        "arrays. The mcp SDK decodes such text before validation; the standalone `fastmcp` does\n"
        'not, and rejects it ("Input should be a valid list"). On by default: the clients are\n'
        "current and common, and the parameters are reported nowhere else."
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `DecodeJsonText` marker: text that the parameter\n"
        "rejects as it is and that is the JSON of an array, an object or null is decoded, then\n"
        "validated as the parameter's value."
    ),
    fix_safety=(
        "Safe: only strings the parameter rejected as they were change fate; every value it\n"
        "takes, and the JSON schema, are as they were. fastmcp 2.x with\n"
        "`strict_input_validation=True` checks the JSON schema first and still rejects the text."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=True,
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
        Invalid(
            """\
from fastmcp import FastMCP

mcp = FastMCP("pages")


@mcp.tool
def page(limit: int | None = None, after: str = "") -> str:
    return str(limit)
""",
            lines=(7,),
            fixed="""\
from typing import Annotated

from fastmcp import FastMCP
from mcp_codemod.runtime import DecodeJsonText

mcp = FastMCP("pages")


@mcp.tool
def page(limit: Annotated[int | None, DecodeJsonText] = None, after: str = "") -> str:
    return str(limit)
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
        Valid(
            """\
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("files")


@mcp.tool
def read(path: Path | None = None, count: int = 1) -> str:
    return str(path)
"""
        ),
    ),
)
