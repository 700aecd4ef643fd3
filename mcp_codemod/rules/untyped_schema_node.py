"""MCP007: a tool parameter whose JSON schema has a node without `type`."""

from __future__ import annotations

from typing import NamedTuple

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shapes import Kind, Shape
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.findings import Fix, Safety
from mcp_codemod.rules.fixes import add_marker, annotate_with_marker, describe
from mcp_codemod.rules.model import Client, FixAvailability, Invalid, Report, Rule, Valid
from mcp_codemod.rules.model_refs import keywords_beside_ref, models_are_refs

MARKER = "TypedSchema"
"""The run-time marker (`mcp_codemod.runtime.TypedSchema`) that types the nodes."""


class Untyped(NamedTuple):
    where: str  # "the value", "its items"...
    ref: bool  # a model's `$ref`, not an untyped `{}`


def untyped_nodes(shape: Shape, where: str = "the value", refs: bool = False) -> list[Untyped]:
    """Where the annotation gives a schema node without `type` that clients judge: the value
    itself, a union member, array items (through nested arrays); with `refs` (the mcp SDK), a
    model there too, a `$ref` to its definition. A model's fields (in `$defs`) and a
    dictionary's values (`additionalProperties`) are not judged by any client measured."""
    if MARKER in shape.markers:
        return []
    if shape.kind is Kind.ANY:
        return [Untyped(where, ref=False)]
    if shape.kind is Kind.MODEL and refs:
        return [Untyped(where, ref=True)]
    if shape.kind is Kind.UNION:
        return [node for member in shape.args for node in untyped_nodes(member, where, refs)]
    if shape.kind in (Kind.LIST, Kind.TUPLE):
        items = "its items" if where == "the value" else f"{where}' items"
        if not shape.args:
            return [Untyped(items, ref=False)]
        if shape.kind is Kind.TUPLE and not shape.variadic:
            return [node for arg in shape.args for node in untyped_nodes(arg, items, refs)]
        return untyped_nodes(shape.args[0], items, refs)
    return []


def typed_by_marker(shape: Shape, marked: bool = False) -> bool:
    """Whether the marker gives a node of the schema the list of every JSON type (an untyped
    node where clients look, under the marker)."""
    marked = marked or MARKER in shape.markers
    if shape.kind is Kind.ANY:
        return marked
    if shape.kind is Kind.UNION:
        return any(typed_by_marker(member, marked) for member in shape.args)
    if shape.kind in (Kind.LIST, Kind.TUPLE):
        if not shape.args:
            return marked
        if shape.kind is Kind.TUPLE and not shape.variadic:
            return any(typed_by_marker(arg, marked) for arg in shape.args)
        return typed_by_marker(shape.args[0], marked)
    return False


def check(parameter: ToolParameter) -> Report | None:
    unannotated = parameter.parameter.annotation is None
    # The mcp SDK describes an unannotated parameter as a string; standalone fastmcp gives it {}.
    if unannotated and parameter.server.framework is not Framework.FASTMCP:
        return None
    # A model's own `$ref` with a description beside it is left: typing it would make the
    # OpenAI Agents SDK refuse to convert a tool it converts (docs/client-schemas.md).
    refs = models_are_refs(parameter) and not keywords_beside_ref(parameter)
    nodes = untyped_nodes(parameter.shape, refs=refs)
    if not nodes:
        return None
    where = ", ".join(
        dict.fromkeys(f"a model's `$ref` as {n.where}" if n.ref else n.where for n in nodes)
    )
    # A `$ref` is no node the OpenAI API refuses: the Agents SDK sends such a tool non-strict.
    openai = not all(node.ref for node in nodes)
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} gives a JSON schema node without `type` "
        f"({where}): Gemini CLI up to 0.7 drops the tool"
        + (", and the OpenAI API refuses it in strict mode" if openai else "")
    )
    if unannotated:
        edits = annotate_with_marker(parameter, MARKER)
        return Report(
            message,
            Fix(f"Annotate it `Annotated[Any, {MARKER}]`", Safety.SAFE, (), annotations=edits)
            if edits
            else None,
        )
    markers = add_marker(parameter, MARKER)
    fix = Fix(f"Mark it `{MARKER}`", Safety.SAFE, markers) if markers else None
    return Report(message, fix)


RULE = Rule(
    code="MCP007",
    name="untyped-schema-node",
    summary="A parameter whose JSON schema has a node without `type`",
    why=(
        "`Any`, `object`, a bare `list` or `list[Any]` (and, with standalone fastmcp, no\n"
        "annotation) give JSON schema nodes without `type` (`{}`). Gemini CLI's MCP client up to\n"
        '0.7.0 skips such a tool ("it has missing types in its parameter schema"); the Gemini\n'
        "API refuses function declarations with untyped properties; the OpenAI Agents SDK marks\n"
        "the tool strict and the OpenAI API then refuses it (\"schema must have a 'type' key\").\n"
        "On the mcp SDK a model (a pydantic model, dataclass, TypedDict) is a `$ref` to its\n"
        "definition, which has no `type` of its own either: Gemini CLI up to 0.7.0 drops that\n"
        "tool too (a model parameter with a description beside its `$ref` is not reported: see\n"
        "docs/client-schemas.md)."
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `TypedSchema` marker: each untyped node of the\n"
        'parameter\'s schema gets `"type": ["string", "number", "boolean", "object", "array",\n'
        '"null"]`, every JSON type (docs/client-schemas.md says why `null` is in it); a model\n'
        '`$ref` gets its definition\'s type beside it (`["object"]`).'
    ),
    fix_safety=(
        "Safe: the type list admits exactly the JSON values `{}` admits, a `$ref`'s type is the\n"
        "one its definition requires, and validation (the parameter's pydantic validator) is\n"
        "untouched; an unannotated parameter becomes `Annotated[Any, TypedSchema]`, which is\n"
        "what fastmcp validates it as."
    ),
    subject=ToolParameter,
    check=check,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=True,
    cases=(
        Invalid(
            """\
from typing import Any

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("store")


@mcp.tool()
def put(key: str, value: Any) -> str:
    return key
""",
            lines=(9,),
            fixed="""\
from typing import Annotated, Any

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import TypedSchema

mcp = FastMCP("store")


@mcp.tool()
def put(key: str, value: Annotated[Any, TypedSchema]) -> str:
    return key
""",
        ),
        Valid(
            """\
from typing import Any

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("store")


@mcp.tool()
def put(key: str, value: dict[str, Any], tags: list[str], note=None) -> str:
    return key
"""
        ),
        Invalid(
            """\
from typing import Any, Optional

from fastmcp import FastMCP

mcp = FastMCP("store")


@mcp.tool
def put(items: list, extra: Optional[list[Any]] = None, raw: object = None) -> str:
    return str(items)
""",
            lines=(9, 9, 9),
            fixed="""\
from typing import Annotated, Any, Optional

from fastmcp import FastMCP
from mcp_codemod.runtime import TypedSchema

mcp = FastMCP("store")


@mcp.tool
def put(
    items: Annotated[list, TypedSchema],
    extra: Annotated[Optional[list[Any]], TypedSchema] = None,
    raw: Annotated[object, TypedSchema] = None,
) -> str:
    return str(items)
""",
        ),
        Invalid(
            """\
from fastmcp import FastMCP

mcp = FastMCP("store")


@mcp.tool
def put(key: str, value) -> str:
    return key
""",
            lines=(7,),
            fixed="""\
from typing import Annotated, Any

from fastmcp import FastMCP
from mcp_codemod.runtime import TypedSchema

mcp = FastMCP("store")


@mcp.tool
def put(key: str, value: Annotated[Any, TypedSchema]) -> str:
    return key
""",
        ),
        Valid(
            """\
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_codemod.runtime import TypedSchema

mcp = MCPServer("store")


@mcp.tool()
def put(value: Annotated[Any, TypedSchema], rows: Annotated[list[Any], TypedSchema]) -> str:
    return str(value)
"""
        ),
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
    ),
    clients=(
        Client(
            "Gemini CLI up to 0.7.0 (drops the tool)",
            "google-gemini/gemini-cli v0.7.0 packages/core/src/tools/mcp-client.ts `hasValidTypes`",
        ),
        Client(
            "OpenAI API, strict function calling (refuses the tool)",
            "\"schema must have a 'type' key\": https://github.com/FlowiseAI/Flowise/issues/5109",
        ),
    ),
)
