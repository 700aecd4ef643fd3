"""MCP008: a text parameter of a fastmcp tool, in a union, that rejects digit-only text sent as a
number."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shape_questions import is_structured, markers
from mcp_codemod.analysis.shapes import Kind, Shape
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import marker_fix
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid

MARKER = "AcceptNumberAsText"
"""The run-time marker (`mcp_codemod.runtime.AcceptNumberAsText`) that takes 12345 as "12345"."""

# Members beside the text that take no integer as it is: the marker converts only what the
# parameter rejects, and the rule reports only where an integer is rejected.
_BESIDE_TEXT = (Kind.STR, Kind.LITERAL, Kind.NONE, Kind.BOOL)


def _text_union(shape: Shape) -> bool:
    """A union with `str` in it whose other members take no integer (`str | None`)."""
    if shape.kind is not Kind.UNION or not any(m.kind is Kind.STR for m in shape.args):
        return False
    return all(m.kind in _BESIDE_TEXT or is_structured(m) for m in shape.args)


def check(parameter: ToolParameter) -> Report | None:
    # On the mcp SDK the guarded servers take the number as its text (docs/runtime.md), and an
    # unguarded server's text union is MCP001's.
    if not parameter.server.runs_on(Framework.FASTMCP):
        return None
    if not _text_union(parameter.shape) or MARKER in markers(parameter.shape):
        return None
    message = (
        f"Tool `{parameter.tool}`: text {describe(parameter)} rejects digit-only text sent as a "
        "number (12345 for '12345'), which Claude Code sends when it shows the model this "
        "union's schema as {}; fastmcp does not convert it"
    )
    return Report(message, marker_fix(parameter, MARKER))


RULE = Rule(
    code="MCP008",
    name="text-parameter-rejects-number",
    summary="A text union parameter of a fastmcp tool that rejects digits sent as a number",
    why=(
        "Claude Code 2.1 shows the model an `anyOf` schema such as `Optional[str]`'s\n"
        "(`anyOf: [{type: string}, {type: null}]`) as `{}` for local (stdio) servers, so a\n"
        'digit-only value the user means as text ("4608023173", an account ID) goes out as the\n'
        "JSON number 4608023173 (anthropics/claude-code#90123, 2026-08, open). pydantic's text\n"
        "validation rejects a number, on every framework; the guarded servers of the mcp SDK\n"
        "take it as its text (and MCP001 reports the text union on an unguarded one), the\n"
        "standalone `fastmcp` has no guard. On by default: Claude Code is a current, common\n"
        "client and the tool cannot be called with such a value at all."
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `AcceptNumberAsText` marker: an integer the\n"
        "parameter rejects is validated as its decimal text."
    ),
    fix_safety=(
        "Safe: only integers, which the parameter rejected, change fate; every value it takes,\n"
        "and the JSON schema, are as they were. Leading zeros a client dropped are not restored.\n"
        "fastmcp 2.x with `strict_input_validation=True` checks the JSON schema first and still\n"
        "rejects the number."
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

mcp = FastMCP("accounts")


@mcp.tool
def lookup(account: str | None = None) -> str:
    return str(account)
""",
            lines=(7,),
            fixed="""\
from typing import Annotated

from fastmcp import FastMCP
from mcp_codemod.runtime import AcceptNumberAsText

mcp = FastMCP("accounts")


@mcp.tool
def lookup(account: Annotated[str | None, AcceptNumberAsText] = None) -> str:
    return str(account)
""",
        ),
        Valid(
            """\
from fastmcp import FastMCP

mcp = FastMCP("accounts")


@mcp.tool
def lookup(account: str, page: int | str | None = None) -> str:
    return account
"""
        ),
        Valid(
            """\
from mcp_codemod.runtime import GuardedFastMCP

mcp = GuardedFastMCP("accounts")


@mcp.tool()
def lookup(account: str | None = None) -> str:
    return str(account)
"""
        ),
    ),
)
