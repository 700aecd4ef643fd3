"""MCP001: a text parameter that the MCP SDK JSON-pre-parses."""

from __future__ import annotations

from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.analysis.types import NO_PRE_PARSE, Text
from mcp_codemod.rules.findings import Fix, Safety
from mcp_codemod.rules.fixes import add_marker, describe, guard_server, guarded_class
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid


def check(parameter: ToolParameter) -> Report | None:
    server = parameter.server
    if server.framework is None or not server.framework.pre_parses_json:
        return None
    if parameter.facts.text not in (Text.ADMITS_STR, Text.ANY):
        return None
    if NO_PRE_PARSE in parameter.facts.markers:
        # The marker cannot stop the SDK; only a guarded server can. Where the server's
        # construction is in sight and unguarded, the marker is a false promise.
        if server.origin is None:
            return None
        message = (
            f"Tool `{parameter.tool}`: {describe(parameter)} is marked NoPreParse, but its "
            f"server ({server.description}) is not guarded: {server.framework.title} still "
            "JSON-pre-parses it"
        )
        if server.facade is not None:
            message = f"{message}; {server.facade.how_to_guard}"
        swaps, _ = guard_server(server)
        fix = Fix(f"Make the server a `{guarded_class(server)}`", Safety.SAFE, swaps=swaps)
        return Report(message, fix if swaps else None)
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} is JSON-pre-parsed by "
        f'{server.framework.title}: the string "null" arrives as None and "[1, 2]" as a list'
    )
    swaps, advice = guard_server(server)
    if parameter.facts.text is not Text.ADMITS_STR:
        # `Any` and unannotated parameters have no type to mark (the author has to choose one).
        # The guarded server stops the pre-parse for them too, but a tool that relies on
        # receiving decoded JSON there would then get the text: unsafe.
        title = f"Make the server a `{guarded_class(server)}`"
        return Report(message, Fix(title, Safety.UNSAFE, swaps=swaps) if swaps else None)
    if parameter.library is not None or parameter.generated_by is not None:
        # A library's function cannot be marked here, nor a file generated at each start; the
        # guarded server protects them all the same.
        title = f"Make the server a `{guarded_class(server)}`"
        return Report(message, Fix(title, Safety.SAFE, swaps=swaps) if swaps else None)
    markers = add_marker(parameter, NO_PRE_PARSE)
    if not markers:
        return Report(message)
    title = f"Mark it `NoPreParse` and make the server a `{guarded_class(server)}`"
    return Report(message, Fix(title, Safety.SAFE, markers, swaps, advice))


RULE = Rule(
    code="MCP001",
    name="json-pre-parsed-parameter",
    summary="A text parameter that the MCP SDK JSON-pre-parses",
    why=(
        "mcp 1.x `FastMCP` and mcp 2.x `MCPServer` run `json.loads` on every string argument whose\n"
        "annotation is not exactly `str`. For `str | None`, `Optional[str]`, `str | list[str]`,\n"
        '`Literal["null", ...]`, `Any` and unannotated parameters the string "null" arrives as None (as if\n'
        'it had not been sent), and "[1, 2]" or \'{"a": 1}\' arrive as a list or dict and fail\n'
        "validation. Free text (queries, file contents, names) cannot carry those values at all.\n"
        "The standalone `fastmcp` package does not pre-parse: its tools are not reported."
    ),
    fix_title=(
        "`mcp-codemod fix --write` wraps the annotation as `Annotated[..., NoPreParse]` and makes\n"
        "the server a `GuardedFastMCP` / `GuardedMCPServer`, which never pre-parses a string for a\n"
        "parameter that admits strings. For `Any` and unannotated parameters the guarded server\n"
        "is the only fix, and an unsafe one (`--unsafe-fixes`); better, give them a real type.\n"
        "A parameter already marked `NoPreParse` whose server is built in sight and unguarded is\n"
        "reported too: the marker alone cannot stop the SDK, so the fix guards the server. Where the\n"
        "server is built outside the project, the fix marks the parameter and says where to add\n"
        "`guard(server)`."
    ),
    fix_safety=(
        "Safe: the marker leaves validation and the JSON schema unchanged, and the guarded server\n"
        "differs from the SDK's only for parameters that admit a string, which then receive the\n"
        "string the client sent. Unsafe for `Any` and unannotated parameters, where the only fix\n"
        "is the guarded server: a tool that expects decoded JSON there would receive the text."
    ),
    subject=ToolParameter,
    check=check,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=True,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("search")


@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
""",
            lines=(7,),
            fixed="""\
from typing import Annotated

from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

mcp = GuardedFastMCP("search")


@mcp.tool()
def search(query: Annotated[str | None, NoPreParse] = None) -> str:
    return query or ""
""",
        ),
        Valid(
            """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("search")


@mcp.tool()
def search(query: str, limit: int | None = None) -> str:
    return query * (limit or 1)
"""
        ),
        Valid(
            """\
from fastmcp import FastMCP

mcp = FastMCP("search")


@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
"""
        ),
        Invalid(
            """\
from typing import Optional

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")


@server.tool()
def add(title: Optional[str], body: "str | list[str]") -> str:
    return str(title) + str(body)
""",
            lines=(9, 9),
            fixed="""\
from typing import Annotated, Optional

from mcp_codemod.runtime import GuardedMCPServer, NoPreParse

server = GuardedMCPServer("notes")


@server.tool()
def add(
    title: Annotated[Optional[str], NoPreParse],
    body: "Annotated[str | list[str], NoPreParse]",
) -> str:
    return str(title) + str(body)
""",
        ),
        Invalid(
            """\
from typing import Any

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("echo")


@mcp.tool()
def echo(payload: Any, raw=None) -> str:
    return repr(payload) + repr(raw)
""",
            lines=(9, 9),
            fixed="""\
from typing import Any

from mcp_codemod.runtime import GuardedFastMCP

mcp = GuardedFastMCP("echo")


@mcp.tool()
def echo(payload: Any, raw=None) -> str:
    return repr(payload) + repr(raw)
""",
        ),
    ),
)
