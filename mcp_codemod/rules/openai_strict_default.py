"""MCP103: an optional tool parameter whose default OpenAI strict mode never uses."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shapes import Kind
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import Client, FixAvailability, Invalid, Report, Rule, Valid


def admits_null(parameter: ToolParameter) -> bool:
    """Whether the parameter's schema admits `null`, so that a strict client can ask for a
    `None` default; a type the analysis cannot see through counts as admitting it."""
    if parameter.parameter.annotation is None:
        # The mcp SDK describes an unannotated parameter as a string; fastmcp gives it {}.
        return parameter.server.framework is Framework.FASTMCP
    return any(
        member.kind in (Kind.NONE, Kind.ANY, Kind.UNKNOWN)
        or (member.kind is Kind.LITERAL and None in member.constants)
        for member in parameter.shape.members()
    )


def check(parameter: ToolParameter) -> Report | None:
    default = parameter.parameter.default
    if default is None:
        return None
    if default == "None" and admits_null(parameter):
        return None  # the model sends null, which is the default
    required = (
        f"Tool `{parameter.tool}`: {describe(parameter)} defaults to `{default}`, but OpenAI "
        "strict mode makes every argument required"
    )
    if default == "None":
        return Report(
            f"{required} and its schema does not admit null: the model can never ask for the "
            "default"
        )
    return Report(
        f"{required}: the model sends a value on every call, and the default is never taken"
    )


RULE = Rule(
    code="MCP103",
    name="openai-strict-default",
    summary="An optional parameter whose default OpenAI strict mode never applies",
    why=(
        "Strict mode requires every property of an object: the OpenAI Agents SDK's conversion\n"
        "(`convert_schemas_to_strict=True`) lists each parameter in `required`, so the model\n"
        "must send a value for `limit: int = 5` on every call, and the server's default is never\n"
        "taken by leaving the argument out. A `None` default survives only where the schema\n"
        "admits null (`str | None = None`): the model sends null. Azure OpenAI also refuses a\n"
        "non-null `default` in a strict schema (\"'default' is not permitted\"), which the SDK\n"
        "leaves in. Opt-in (`--select MCP1`): only servers meant for strict OpenAI clients care."
    ),
    fix_title=(
        "Make the parameter `X | None = None` and apply the default in the tool when it gets\n"
        '`None`; strict clients then send null for "the default".'
    ),
    fix_safety=(
        "No automatic fix: the schema would have to admit null where it refused it, and the\n"
        "tool would receive `None` for it: both change what the server accepts and the tool gets."
    ),
    subject=ToolParameter,
    check=check,
    availability=FixAvailability.NEVER,
    enabled_by_default=False,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("search")


@mcp.tool()
def search(query: str, limit: int = 10, page: int = None) -> list[str]:
    return [query] * limit
""",
            lines=(7, 7),
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("search")


@mcp.tool()
def search(query: str, limit: int | None = None) -> list[str]:
    return [query] * (10 if limit is None else limit)
"""
        ),
        Invalid(
            """\
from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("search")


@mcp.tool
def search(
    query: str = Field(description="What to look for"),
    tags: list[str] = Field(default_factory=list),
) -> list[str]:
    return [query, *tags]
""",
            lines=(10,),
        ),
    ),
    clients=(
        Client(
            "OpenAI Agents SDK 0.24.0 with `convert_schemas_to_strict=True` (every property"
            " required)",
            "openai/openai-agents-python src/agents/strict_schema.py"
            " `_ensure_strict_json_schema` (`required` = every property)",
        ),
        Client(
            "Azure OpenAI, strict function calling (refuses a non-null `default`)",
            "https://github.com/openai/openai-agents-python/issues/4390,"
            " https://github.com/dotnet/extensions/issues/6196",
        ),
    ),
)
