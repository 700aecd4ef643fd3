"""MCP201: a model parameter whose JSON schema is a `$ref` alone, which Gemini CLI up to 0.7.0
drops the tool for. Family MCP2, clients no longer current: opt-in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp_codemod.analysis.shapes import Kind, Shape
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import marker_fix
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import (
    Client,
    FixAvailability,
    Invalid,
    Report,
    Rule,
    SchemaCheck,
    Valid,
)
from mcp_codemod.rules.model_refs import keywords_beside_ref, models_are_refs
from mcp_codemod.rules.schema_nodes import nodes_typed_by_clients
from mcp_codemod.rules.untyped_schema_node import MARKER


def lone_refs(shape: Shape, where: str = "the value") -> list[str]:
    """Where the annotation gives a model, a `$ref` on the mcp SDK, at a node Gemini CLI up to
    0.7.0 looks for a type: the value itself, a union member, array items (the nodes MCP007
    judges). A model's own fields are in `$defs`, where that client does not look."""
    if MARKER in shape.markers:
        return []
    if shape.kind is Kind.MODEL:
        return [where]
    if shape.kind is Kind.UNION:
        return [node for member in shape.args for node in lone_refs(member, where)]
    if shape.kind in (Kind.LIST, Kind.TUPLE):
        items = "its items" if where == "the value" else f"{where}' items"
        if shape.kind is Kind.TUPLE and not shape.variadic:
            return [node for arg in shape.args for node in lone_refs(arg, items)]
        return lone_refs(shape.args[0], items) if shape.args else []
    return []


def check(parameter: ToolParameter) -> Report | None:
    # fastmcp inlines a model. A `$ref` with a description beside it is left: Gemini CLI up to
    # 0.7.0 drops that tool too, but typing it would make the OpenAI Agents SDK refuse to
    # convert a tool it converts (docs/client-schemas.md).
    if not models_are_refs(parameter) or keywords_beside_ref(parameter):
        return None
    nodes = lone_refs(parameter.shape)
    if not nodes:
        return None
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} gives a model's `$ref` alone, without "
        f"`type`, in the JSON schema ({', '.join(dict.fromkeys(nodes))}): Gemini CLI up to "
        "0.7.0 drops the tool"
    )
    return Report(message, marker_fix(parameter, MARKER))


def listed_lone_refs(input_schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The probe's check: the `$ref`s alone (beside nothing but a `None` default) of a listed
    input schema where Gemini CLI up to 0.7.0 looks for a type. One with a description or a
    title beside it is left out, as `check` leaves it: the OpenAI Agents SDK converts it, and
    would not with a `type` beside it."""
    for parameter, path, node in nodes_typed_by_clients(input_schema):
        if (
            isinstance(node.get("$ref"), str)
            and set(node) <= {"$ref", "default"}
            and node.get("default") is None
        ):
            yield parameter, path


RULE = Rule(
    code="MCP201",
    name="legacy-gemini-ref",
    summary="A model parameter whose JSON schema is a `$ref` alone (Gemini CLI up to 0.7.0)",
    why=(
        "On the mcp SDK a model (a pydantic model, dataclass, TypedDict) is a `$ref` to its\n"
        "definition, without a `type` of its own. Gemini CLI's MCP client up to 0.7.0 skips\n"
        'such a tool ("it has missing types in its parameter schema"), as it skips `{}`\n'
        "(MCP007). Current Gemini CLI (0.8.2 and later, measured with 0.61.0) and every other\n"
        "client measured accept it (Codex resolves the `$ref` to its definition:\n"
        "openai/codex `codex-rs/tools/src/json_schema.rs`), which is why the rule is opt-in\n"
        "(`--select MCP2`): it would report every model parameter of every mcp SDK server, for\n"
        "a client version over a year old. Select it where users still run Gemini CLI 0.7 or older. A model\n"
        "parameter with a description, a title or a default beside its `$ref` is not\n"
        "reported: see docs/client-schemas.md."
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `TypedSchema` marker: the `$ref` gets its\n"
        'definition\'s type beside it (`"type": ["object"]`).'
    ),
    fix_safety=(
        "Safe: the type is the one the definition requires anyway, and validation (the\n"
        "parameter's pydantic validator) is untouched."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
    schema_check=SchemaCheck(
        listed_lone_refs,
        kind="lone-ref",
        column="$REF ALONE (Gemini CLI up to 0.7.0 drops the tool)",
        error="the `$ref` at {path} has no `type` beside it",
        counted=("lone `$ref`", ""),
        failure="Input schemas with a `$ref` alone, which Gemini CLI up to 0.7.0 drops the tool for",
        remedy="Lone `$ref`s",
        legacy_clients=True,
    ),
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=False,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel

mcp = FastMCP("maps")


class Point(BaseModel):
    x: int
    y: int


@mcp.tool()
def route(start: Point, stops: list[Point] | None = None) -> str:
    return str(start)
""",
            lines=(13, 13),
            fixed="""\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import TypedSchema
from pydantic import BaseModel

mcp = FastMCP("maps")


class Point(BaseModel):
    x: int
    y: int


@mcp.tool()
def route(
    start: Annotated[Point, TypedSchema],
    stops: Annotated[list[Point] | None, TypedSchema] = None,
) -> str:
    return str(start)
""",
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
def route(start: Annotated[Point, Field(description="Where to start")]) -> str:
    return str(start)
"""
        ),
        Valid(
            """\
from fastmcp import FastMCP
from pydantic import BaseModel

mcp = FastMCP("maps")


class Point(BaseModel):
    x: int
    y: int


@mcp.tool
def route(start: Point, stops: list[Point] | None = None) -> str:
    return str(start)
"""
        ),
    ),
    clients=(
        Client(
            "Gemini CLI up to 0.7.0 (drops the tool)",
            "google-gemini/gemini-cli v0.7.0 packages/core/src/tools/mcp-client.ts `hasValidTypes`",
        ),
    ),
)
