"""MCP101: a tool parameter whose JSON schema the OpenAI Agents SDK cannot make strict."""

from __future__ import annotations

from mcp_codemod.analysis.shapes import Kind
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import Client, FixAvailability, Invalid, Report, Rule, Valid
from mcp_codemod.rules.model_refs import keywords_beside_ref, models_are_refs
from mcp_codemod.rules.untyped_schema_node import typed_by_marker


def check(parameter: ToolParameter) -> Report | None:
    reasons = []
    # The SDK inlines a `$ref` with keywords beside it and converts the definition as an
    # object of its fields: they are what is judged.
    judged = parameter.shape.args if keywords_beside_ref(parameter) else (parameter.shape,)
    for shape in (node for top in judged for node in top.walk()):
        if shape.kind is Kind.DICT:
            reasons.append("a dictionary is an object open to undeclared properties")
        elif shape.kind is Kind.MODEL and models_are_refs(parameter):
            reasons.append("a model is a `$ref` to a definition the SDK does not convert")
    if typed_by_marker(parameter.shape):
        # MCP007's fix, on purpose: the tool is sent non-strict rather than refused.
        reasons.append("the type list `TypedSchema` gives includes an open object")
    if not reasons:
        return None
    return Report(
        f"Tool `{parameter.tool}`: {describe(parameter)} cannot be made strict for OpenAI "
        f"({'; '.join(dict.fromkeys(reasons))}): the Agents SDK sends the tool non-strict"
    )


RULE = Rule(
    code="MCP101",
    name="openai-strict-schema",
    summary="A parameter whose JSON schema cannot be made strict for OpenAI",
    why=(
        "The OpenAI Agents SDK converts MCP tool schemas to strict mode on request\n"
        "(`convert_schemas_to_strict=True`), so that the model's arguments always match the\n"
        "schema. A dictionary (an object open to undeclared properties) or, on the mcp SDK, a\n"
        'model (a `$ref` to its definition) cannot be converted: the SDK logs "Error converting\n'
        'MCP schema to strict mode" and sends the tool non-strict. A model parameter with a\n'
        "description, a title or a default beside its `$ref` is inlined by the SDK and converted.\n"
        "Opt-in (`--select MCP1`): only servers meant for strict OpenAI clients care."
    ),
    fix_title=(
        "Describe the value with declared fields (a model, a TypedDict) instead of a\n"
        "dictionary; on the mcp SDK, give a model parameter a description\n"
        "(`Annotated[Point, Field(description=...)]`): the SDK then inlines it, and strict mode\n"
        "requires its defaulted fields too (docs/client-schemas.md)."
    ),
    fix_safety=(
        "No automatic fix: closing a dictionary changes what the model may send, and a model\n"
        "the SDK inlines has its defaulted fields required in strict mode."
    ),
    subject=ToolParameter,
    check=check,
    availability=FixAvailability.NEVER,
    enabled_by_default=False,
    cases=(
        Invalid(
            """\
from typing import Any

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("store")


@mcp.tool()
def put(key: str, labels: dict[str, str], meta: dict[str, Any] | None = None) -> str:
    return key
""",
            lines=(9, 9),
        ),
        Valid(
            """\
from fastmcp import FastMCP
from typing_extensions import TypedDict

mcp = FastMCP("store")


class Labels(TypedDict):
    team: str


@mcp.tool
def put(key: str, labels: Labels, tags: list[str] | None = None) -> str:
    return key
"""
        ),
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel

mcp = FastMCP("maps")


class Point(BaseModel):
    x: int
    y: int = 0


@mcp.tool()
def mark(point: Point) -> str:
    return str(point)
""",
            lines=(13,),
        ),
        Invalid(
            """\
from typing import Annotated, Any

from fastmcp import FastMCP
from mcp_codemod.runtime import TypedSchema

mcp = FastMCP("store")


@mcp.tool
def put(key: str, value: Annotated[Any, TypedSchema]) -> str:
    return key
""",
            lines=(10,),
        ),
        Valid(
            """\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel, Field

mcp = FastMCP("maps")


class Point(BaseModel):
    x: int
    y: int


@mcp.tool()
def mark(point: Annotated[Point, Field(description="Where to put the mark")]) -> str:
    return str(point)
"""
        ),
    ),
    clients=(
        Client(
            "OpenAI Agents SDK 0.24.0 with `convert_schemas_to_strict=True` (falls back to"
            " non-strict)",
            "openai/openai-agents-python src/agents/mcp/util.py `to_function_tool`,"
            " src/agents/strict_schema.py",
        ),
    ),
)
