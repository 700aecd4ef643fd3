"""MCP005: a tool parameter whose JSON schema has an array without `items`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp_codemod.analysis.shape_questions import has_fixed_tuple
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
from mcp_codemod.rules.schema_nodes import parameter_nodes, types

MARKER = "ArrayItemsSchema"
"""The run-time marker (`mcp_codemod.runtime.ArrayItemsSchema`) that gives arrays `items`."""


def check(parameter: ToolParameter) -> Report | None:
    # Every framework: the schema is pydantic's in all of them, and the client judges it.
    if not has_fixed_tuple(parameter.shape, covered_by=MARKER):
        return None
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} holds a fixed-length tuple, whose JSON "
        "schema is an array without `items`: VS Code's MCP client refuses the tool"
    )
    return Report(message, marker_fix(parameter, MARKER))


def arrays_without_items(input_schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The probe's check: each array without `items` anywhere in a listed input schema."""
    for parameter, path, node in parameter_nodes(input_schema):
        if "array" in types(node) and "items" not in node:
            yield parameter, path


RULE = Rule(
    code="MCP005",
    name="array-without-items",
    summary="A parameter whose JSON schema has an array without `items`",
    why=(
        "pydantic describes a fixed-length tuple (`tuple[int, int]`, `Tuple[float, str]`, also\n"
        "inside `list[...]`, a union, or a field of a model, dataclass or TypedDict of the\n"
        "project) as an array with `prefixItems` and no `items`. VS Code's\n"
        'MCP client (Copilot agent mode) refuses such a tool, often the whole server: "tool\n'
        'parameters array type must have items" (VS Code 1.115 and later, where Copilot Chat is\n'
        "part of microsoft/vscode: `extensions/copilot/.../toolSchemaNormalizer.ts`, read at\n"
        "commit 33be5f5c). `tuple[int, ...]` has `items` and is fine."
    ),
    fix_title=(
        "`mcp-codemod fix --write` adds the `ArrayItemsSchema` marker: every array in the\n"
        "parameter's schema without `items` gets the union of its prefix item schemas."
    ),
    fix_safety=(
        "Safe: validation is untouched, and the schema admits the same arrays (the length bounds\n"
        "already allow no items beyond the prefix)."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
    schema_check=SchemaCheck(
        arrays_without_items,
        kind="array-without-items",
        column="ARRAY WITHOUT ITEMS (VS Code's MCP client refuses the tool)",
        error="the array at {path} has no `items`",
        counted=("array", " without items"),
        failure="Input schemas with an array without `items`, which VS Code's MCP client refuses",
        remedy="Arrays without items",
    ),
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=True,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("maps")


@mcp.tool()
def zoom(center: tuple[float, float], level: int = 3) -> str:
    return str(center)
""",
            lines=(7,),
            fixed="""\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import ArrayItemsSchema

mcp = FastMCP("maps")


@mcp.tool()
def zoom(
    center: Annotated[tuple[float, float], ArrayItemsSchema], level: int = 3
) -> str:
    return str(center)
""",
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("maps")


@mcp.tool()
def zoom(center: list[float], path: tuple[int, ...] = ()) -> str:
    return str(center)
"""
        ),
        Invalid(
            """\
from typing import Optional, Tuple

from fastmcp import FastMCP

mcp = FastMCP("maps")


@mcp.tool
def route(stops: list[Tuple[int, int]], box: Optional[tuple[int, int, int, int]] = None) -> str:
    return str(stops)
""",
            lines=(9, 9),
            fixed="""\
from typing import Annotated, Optional, Tuple

from fastmcp import FastMCP
from mcp_codemod.runtime import ArrayItemsSchema

mcp = FastMCP("maps")


@mcp.tool
def route(stops: Annotated[list[Tuple[int, int]], ArrayItemsSchema], box: Annotated[Optional[tuple[int, int, int, int]], ArrayItemsSchema] = None) -> str:
    return str(stops)
""",
        ),
        Invalid(
            """\
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

mcp = MCPServer("maps")


class Area(BaseModel):
    corner: tuple[int, int]


@dataclass
class Label:
    text: str


@mcp.tool()
def mark(area: Area, label: Label) -> str:
    return str(area)
""",
            lines=(19,),
            fixed="""\
from dataclasses import dataclass
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_codemod.runtime import ArrayItemsSchema
from pydantic import BaseModel

mcp = MCPServer("maps")


class Area(BaseModel):
    corner: tuple[int, int]


@dataclass
class Label:
    text: str


@mcp.tool()
def mark(area: Annotated[Area, ArrayItemsSchema], label: Label) -> str:
    return str(area)
""",
        ),
        Valid(
            """\
from typing import Annotated

from fastmcp import FastMCP
from mcp_codemod.runtime import ArrayItemsSchema

mcp = FastMCP("maps")


@mcp.tool
def zoom(center: Annotated[tuple[float, float], ArrayItemsSchema]) -> str:
    return str(center)
"""
        ),
    ),
    clients=(
        Client(
            "VS Code Copilot Chat (refuses the tool)",
            "microsoft/vscode extensions/copilot/src/extension/tools/common/"
            "toolSchemaNormalizer.ts `normalizeToolSchema` (formerly microsoft/vscode-copilot-chat)",
        ),
    ),
)
