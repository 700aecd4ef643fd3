"""MCP007: a tool parameter whose JSON schema has a node without `type`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shapes import Kind, Shape
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import annotate_with_marker, marker_fix
from mcp_codemod.rules.findings import Fix, Safety
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
from mcp_codemod.rules.schema_nodes import nodes_typed_by_clients

MARKER = "TypedSchema"
"""The run-time marker (`mcp_codemod.runtime.TypedSchema`) that types the nodes."""


def untyped_nodes(shape: Shape, where: str = "the value") -> list[str]:
    """Where the annotation gives a schema node without `type` that clients judge: the value
    itself, a union member, array items (through nested arrays). A model's fields (in `$defs`)
    and a dictionary's values (`additionalProperties`) are not judged by any client measured."""
    if MARKER in shape.markers:
        return []
    if shape.kind is Kind.ANY:
        return [where]
    if shape.kind is Kind.UNION:
        return [node for member in shape.args for node in untyped_nodes(member, where)]
    if shape.kind in (Kind.LIST, Kind.TUPLE):
        items = "its items" if where == "the value" else f"{where}' items"
        if not shape.args:
            return [items]
        if shape.kind is Kind.TUPLE and not shape.variadic:
            return [node for arg in shape.args for node in untyped_nodes(arg, items)]
        return untyped_nodes(shape.args[0], items)
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
    if unannotated and not parameter.server.runs_on(Framework.FASTMCP):
        return None
    nodes = untyped_nodes(parameter.shape)
    if not nodes:
        return None
    where = ", ".join(dict.fromkeys(nodes))
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} gives a JSON schema node without `type` "
        f"({where}): Codex shows the model a string, Claude Code sends the value as text, and "
        "the OpenAI API refuses it in strict mode"
    )
    if unannotated:
        edits = annotate_with_marker(parameter, MARKER)
        return Report(
            message,
            Fix(f"Annotate it `Annotated[Any, {MARKER}]`", Safety.SAFE, (), annotations=edits)
            if edits
            else None,
        )
    return Report(message, marker_fix(parameter, MARKER))


# A node with one of these says what it admits without `type`.
_TYPING_KEYWORDS = ("type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "not")


def listed_untyped_nodes(input_schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The probe's check: the nodes of a listed input schema without `type` where clients look
    for one, which the annotations `untyped_nodes` finds make."""
    for parameter, path, node in nodes_typed_by_clients(input_schema):
        if not any(keyword in node for keyword in _TYPING_KEYWORDS):
            yield parameter, path


RULE = Rule(
    code="MCP007",
    name="untyped-schema-node",
    summary="A parameter whose JSON schema has a node without `type`",
    why=(
        "`Any`, `object`, a bare `list` or `list[Any]` (and, with standalone fastmcp, no\n"
        "annotation) give JSON schema nodes without `type` (`{}`), which current clients\n"
        'mishandle. Codex turns such a node into `{"type": "string"}` before the model sees\n'
        "it (openai/codex `codex-rs/tools/src/json_schema.rs` `sanitize_json_schema`), so the\n"
        "model sends text; Claude Code 2.1.233 sends any value for such a parameter as its text,\n"
        '8 as "8" (anthropics/claude-code#82652, reproduced by its maintainers, open); the\n'
        "OpenAI Agents SDK 0.24.0 marks the tool strict and the OpenAI API then refuses it\n"
        "(\"schema must have a 'type' key\"). Gemini CLI up to 0.7.0 (2025, no longer current)\n"
        'skipped such a tool ("it has missing types in its parameter schema").'
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `TypedSchema` marker: each untyped node of the\n"
        'parameter\'s schema gets `"type": ["string", "number", "boolean", "object", "array",\n'
        '"null"]`, every JSON type (docs/client-schemas.md says why `null` is in it).'
    ),
    fix_safety=(
        "Safe: the type list admits exactly the JSON values `{}` admits, and validation (the\n"
        "parameter's pydantic validator) is untouched; an unannotated parameter becomes\n"
        "`Annotated[Any, TypedSchema]`, which is what fastmcp validates it as."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
    schema_check=SchemaCheck(
        listed_untyped_nodes,
        kind="untyped-node",
        column="NODE WITHOUT TYPE (Codex shows a string, strict OpenAI refuses the tool)",
        error="the node at {path} has no `type`",
        counted=("node", " without type"),
        failure=(
            "Input schemas with a node without `type`, which Codex shows the model as a string "
            "and the OpenAI API refuses in strict mode"
        ),
        remedy="Nodes without type",
    ),
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
    ),
    clients=(
        Client(
            "Codex CLI (tells the model the parameter is a string)",
            "openai/codex codex-rs/tools/src/json_schema.rs `sanitize_json_schema` (main at "
            "commit 1048c68e, read 2026-12; the current release is 0.171.0)",
        ),
        Client(
            "Claude Code 2.1.233 (sends the argument as text)",
            "https://github.com/anthropics/claude-code/issues/82652",
        ),
        Client(
            "OpenAI API, strict function calling through the OpenAI Agents SDK 0.24.0 (refuses "
            "the tool)",
            "\"schema must have a 'type' key\": https://github.com/FlowiseAI/Flowise/issues/5109",
        ),
        Client(
            "Gemini CLI up to 0.7.0, no longer current (dropped the tool)",
            "google-gemini/gemini-cli v0.7.0 packages/core/src/tools/mcp-client.ts `hasValidTypes`",
        ),
    ),
)
