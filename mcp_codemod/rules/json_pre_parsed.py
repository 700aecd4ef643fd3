"""MCP001: a text parameter that the MCP SDK JSON-pre-parses."""

from __future__ import annotations

from mcp_codemod.analysis.facts import ServerSwap
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shape_questions import Text, markers, text_treatment
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import add_marker, annotate_with_marker, guard_server, guarding
from mcp_codemod.rules.findings import Fix, Safety
from mcp_codemod.rules.messages import capitalized, describe
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid

MARKER = "NoPreParse"
"""The run-time marker (`mcp_codemod.runtime.NoPreParse`) that keeps the text as sent."""


def check(parameter: ToolParameter) -> Report | None:
    server = parameter.server
    if server.framework is None:
        return None
    if server.framework in GUARDED:
        return _on_guarded_server(parameter)
    if not server.framework.pre_parses_json:
        return None
    text = text_treatment(parameter.shape)
    if text is Text.EXACT_STR and parameter.old_sdk is not None:
        return _exact_str_on_older_sdk(parameter, parameter.old_sdk)
    if text not in (Text.ADMITS_STR, Text.ANY):
        return None
    if MARKER in markers(parameter.shape):
        # The marker cannot stop the SDK; only a guarded server can. Where the server's
        # construction is in sight and unguarded, or out of sight among more servers than the
        # fix guards, the marker is a false promise.
        if server.origin is None and not server.guard_by_hand:
            return None
        message = (
            f"Tool `{parameter.tool}`: {describe(parameter)} is marked NoPreParse, but its "
            f"server ({server.description}) is not guarded: {server.title} still "
            "JSON-pre-parses it"
        )
        if server.facade is not None:
            message = f"{message}; {server.facade.how_to_guard}"
        if server.guard_by_hand:
            message = (
                f"{message}; its project builds more pre-parsing servers than one fix guards: "
                "guard them where they are built (`mcp_codemod.runtime.guard(server)`)"
            )
        swaps, _ = guard_server(server)
        fix = Fix(capitalized(guarding(server)), Safety.SAFE, swaps=swaps)
        return Report(message, fix if swaps else None)
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} is JSON-pre-parsed by "
        f'{server.title}: the string "null" arrives as None and "[1, 2]" as a list'
    )
    swaps, advice = guard_server(server)
    if text is Text.ANY:
        return _mark_anything(parameter, message, swaps, advice)
    if parameter.library is not None or parameter.generated_by is not None:
        # A library's function cannot be marked here, nor a file generated at each start; the
        # guarded server protects them all the same.
        title = capitalized(guarding(server))
        return Report(message, Fix(title, Safety.SAFE, swaps=swaps) if swaps else None)
    edits = add_marker(parameter, MARKER)
    if not edits:
        # No marker fits (beside the description fastmcp reads from `Annotated[T, "text"]`, on
        # a server that may run on fastmcp): the guarded server keeps declared text alone.
        title = capitalized(guarding(server))
        return Report(message, Fix(title, Safety.SAFE, swaps=swaps) if swaps else None)
    title = f"Mark it `{MARKER}` and {guarding(server)}"
    return Report(message, Fix(title, Safety.SAFE, edits, swaps, advice))


GUARDED = (Framework.GUARDED_MCP1, Framework.GUARDED_MCP2)


def _exact_str_on_older_sdk(parameter: ToolParameter, requirement: str) -> Report:
    # mcp before 1.12 decodes exact `str` too (docs/analysis.md, "Which SDK release"). The
    # guarded server keeps declared text, `str` included: no marker is needed.
    server = parameter.server
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} is JSON-pre-parsed by mcp 1.x FastMCP "
        f"before 1.12, the only releases the project's `{requirement}` allows: the string "
        '"null" arrives as None and "[1, 2]" as a list, which `str` refuses'
    )
    swaps, _ = guard_server(server)
    fix = Fix(capitalized(guarding(server)), Safety.SAFE, swaps=swaps) if swaps else None
    return Report(message, fix)


def _on_guarded_server(parameter: ToolParameter) -> Report | None:
    # A guarded server keeps the SDK's decoding for parameters that take anything (`Any`,
    # `object`, no annotation) until they are marked: their author decides (docs/runtime.md).
    if text_treatment(parameter.shape) is not Text.ANY or MARKER in markers(parameter.shape):
        return None
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} takes anything, and "
        f"{parameter.server.title} keeps the SDK's JSON pre-parse for it: the string "
        '"null" arrives as None and "[1, 2]" as a list'
    )
    return _mark_anything(parameter, message, (), None)


def _mark_anything(
    parameter: ToolParameter, message: str, swaps: tuple[ServerSwap, ...], advice: str | None
) -> Report:
    """`Any`, `object` and unannotated parameters: the marker, with the guarded server, keeps
    their text; unsafe, since a tool may rely on receiving the decoded JSON there."""
    edits = add_marker(parameter, MARKER)
    annotations = ()
    if parameter.parameter.annotation is None:
        annotations = annotate_with_marker(parameter, MARKER)
    if not edits and not annotations:
        return Report(f"{message}; give it a type, or mark it `NoPreParse` where it is defined")
    title = f"Mark it `{MARKER}`"
    if swaps:
        title += f" and {guarding(parameter.server)}"
    fix = Fix(title, Safety.UNSAFE, edits, swaps, advice, annotations)
    return Report(message, fix)


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
        "The standalone `fastmcp` package does not pre-parse: its tools are not reported. On a\n"
        "guarded server, `Any`, `object` and unannotated parameters are still reported until\n"
        "they are marked: the guard keeps the SDK's decoding for them."
    ),
    fix_title=(
        "`mcp-codemod fix --write` wraps the annotation as `Annotated[..., NoPreParse]` and makes\n"
        "the server a `GuardedFastMCP` / `GuardedMCPServer`, which never pre-parses a string for a\n"
        "parameter whose declared type admits text, or that is marked. `Any`, `object` and\n"
        "unannotated parameters declare no type: the guarded server keeps the SDK's decoding for\n"
        "them, on an unguarded or a guarded server alike, and their fix is the marker (an\n"
        "unannotated parameter gets `Annotated[Any, NoPreParse]`), unsafe (`--unsafe-fixes`);\n"
        "better, give them a real type. A parameter already marked `NoPreParse` whose server is\n"
        "built in sight and unguarded is reported too: the marker alone cannot stop the SDK, so\n"
        "the fix guards the server. Where the server is built outside the project, the fix marks\n"
        "the parameter and says where to add `guard(server)`."
    ),
    fix_safety=(
        "Safe for a parameter whose type admits text: the marker leaves validation and the JSON\n"
        "schema unchanged, and the guarded server differs from the SDK only where the SDK would\n"
        "replace a string for such a parameter (or a marked one) by the JSON it decodes to.\n"
        "Unsafe for `Any`, `object` and unannotated parameters: the marker makes them receive\n"
        "the text, and a tool that expects the decoded JSON there would change behaviour."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
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
from typing import Annotated, Any

from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

mcp = GuardedFastMCP("echo")


@mcp.tool()
def echo(
    payload: Annotated[Any, NoPreParse], raw: Annotated[Any, NoPreParse] = None
) -> str:
    return repr(payload) + repr(raw)
""",
        ),
        Invalid(
            """\
from typing import Any

from mcp_codemod.runtime import GuardedMCPServer

server = GuardedMCPServer("meta")


@server.tool()
def set_meta(value: Any) -> str:
    return repr(value)
""",
            lines=(9,),
            fixed="""\
from typing import Annotated, Any

from mcp_codemod.runtime import GuardedMCPServer, NoPreParse

server = GuardedMCPServer("meta")


@server.tool()
def set_meta(value: Annotated[Any, NoPreParse]) -> str:
    return repr(value)
""",
        ),
        # Each branch of a decorator expression registers the tool; a path and bytes are text
        # (a file named `null`, `b"[1]"`).
        Invalid(
            """\
from pathlib import Path

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("files")
READ_WRITE = True


@(mcp.tool() if READ_WRITE else mcp.tool(name="read_only"))
def read(name: Path | None = None, data: bytes | None = None) -> str:
    return repr((name, data))
""",
            lines=(10, 10, 10, 10),
            fixed="""\
from pathlib import Path
from typing import Annotated

from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

mcp = GuardedFastMCP("files")
READ_WRITE = True


@(mcp.tool() if READ_WRITE else mcp.tool(name="read_only"))
def read(
    name: Annotated[Path | None, NoPreParse] = None,
    data: Annotated[bytes | None, NoPreParse] = None,
) -> str:
    return repr((name, data))
""",
        ),
        Valid(
            """\
from typing import Annotated, Any

from mcp_codemod.runtime import GuardedMCPServer, NoPreParse

server = GuardedMCPServer("meta")


@server.tool()
def set_meta(value: Annotated[Any, NoPreParse], body: str | None = None) -> str:
    return repr(value) + repr(body)
"""
        ),
        # One source for both majors: the server is either class, and `guard()` takes both.
        Invalid(
            """\
try:
    from mcp.server.mcpserver import MCPServer
except ImportError:
    from mcp.server.fastmcp import FastMCP as MCPServer

mcp = MCPServer("search")


@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
""",
            lines=(10,),
            fixed="""\
from typing import Annotated

from mcp_codemod.runtime import NoPreParse, guard

try:
    from mcp.server.mcpserver import MCPServer
except ImportError:
    from mcp.server.fastmcp import FastMCP as MCPServer

mcp = guard(MCPServer("search"))


@mcp.tool()
def search(query: Annotated[str | None, NoPreParse] = None) -> str:
    return query or ""
""",
        ),
        # fastmcp where it is installed, the SDK where it is not: pre-parsed there.
        Invalid(
            """\
try:
    from fastmcp import FastMCP
except ImportError:
    from mcp.server.fastmcp import FastMCP

mcp = FastMCP("search")


@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
""",
            lines=(10,),
            fixed="""\
from typing import Annotated

from mcp_codemod.runtime import NoPreParse, guard

try:
    from fastmcp import FastMCP
except ImportError:
    from mcp.server.fastmcp import FastMCP

mcp = guard(FastMCP("search"))


@mcp.tool()
def search(query: Annotated[str | None, NoPreParse] = None) -> str:
    return query or ""
""",
        ),
    ),
)
