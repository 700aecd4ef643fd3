"""MCP104: a tool parameter whose JSON schema has a `format` the OpenAI API refuses in strict mode."""

from __future__ import annotations

from mcp_codemod.analysis.shapes import Kind, Shape
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.rules.edits import marker_fix
from mcp_codemod.rules.messages import describe
from mcp_codemod.rules.model import Client, FixAvailability, Invalid, Report, Rule, Valid

MARKER = "OpenAIStrictFormats"
"""The run-time marker (`mcp_codemod.runtime.OpenAIStrictFormats`) that removes the formats."""


def _names(modules: tuple[str, ...], names: tuple[str, ...], format_: str) -> dict[str, str]:
    return {f"{module}.{name}": format_ for module in modules for name in names}


_PYDANTIC = ("pydantic", "pydantic.types")
_NETWORKS = ("pydantic", "pydantic.networks")
# The `format` pydantic gives each type, for the types whose format OpenAI strict mode does not
# support (measured with pydantic 2.14; the supported ones: `OPENAI_STRICT_FORMATS` in
# runtime/guards.py).
UNSUPPORTED_FORMATS = {
    **_names(
        _NETWORKS,
        ("AnyUrl", "AnyHttpUrl", "HttpUrl", "FileUrl", "FtpUrl", "WebsocketUrl", "AnyWebsocketUrl"),
        "uri",
    ),
    **_names(_NETWORKS, ("RedisDsn", "KafkaDsn", "AmqpDsn", "NatsDsn"), "uri"),
    **_names(_NETWORKS, ("PostgresDsn", "MongoDsn", "CockroachDsn", "MySQLDsn"), "multi-host-uri"),
    **_names(_NETWORKS, ("NameEmail",), "name-email"),
    **_names(_NETWORKS, ("IPvAnyAddress",), "ipvanyaddress"),
    **_names(_NETWORKS, ("IPvAnyNetwork",), "ipvanynetwork"),
    **_names(_NETWORKS, ("IPvAnyInterface",), "ipvanyinterface"),
    **_names(("pathlib",), ("Path", "PurePath", "PosixPath", "PurePosixPath"), "path"),
    **_names(_PYDANTIC, ("NewPath", "SocketPath"), "path"),
    **_names(_PYDANTIC, ("FilePath",), "file-path"),
    **_names(_PYDANTIC, ("DirectoryPath",), "directory-path"),
    **_names(_PYDANTIC, ("SecretStr", "SecretBytes"), "password"),
    **{
        f"{module}.UUID{version}": f"uuid{version}"
        for module in _PYDANTIC
        for version in (1, 3, 4, 5)
    },
    **_names(_PYDANTIC, ("Base64Str", "Base64Bytes"), "base64"),
    **_names(_PYDANTIC, ("Base64UrlStr", "Base64UrlBytes"), "base64url"),
    **_names(("builtins",), ("bytes",), "binary"),
    **_names(_PYDANTIC, ("StrictBytes",), "binary"),
    **{
        f"ipaddress.IPv{version}{kind}": f"ipv{version}{kind.lower()}"
        for version in (4, 6)
        for kind in ("Network", "Interface")
    },
}


def unsupported_formats(shape: Shape) -> list[str]:
    """The formats OpenAI strict mode refuses anywhere in the parameter's schema (a model's
    fields too: fastmcp inlines them, and the API reads `$defs`), less what the marker covers."""
    found: list[str] = []
    seen: set[str] = set()
    pending = [shape]
    while pending:
        node = pending.pop()
        if MARKER in node.markers:
            continue
        if node.kind is Kind.MODEL and node.source is not None:
            if node.source in seen:
                continue
            seen.add(node.source)
        if node.source in UNSUPPORTED_FORMATS:
            found.append(UNSUPPORTED_FORMATS[node.source])
        pending.extend(reversed(node.args))
    return list(dict.fromkeys(found))


def check(parameter: ToolParameter) -> Report | None:
    formats = unsupported_formats(parameter.shape)
    if not formats:
        return None
    listed = ", ".join(f"`{format_}`" for format_ in formats)
    message = (
        f"Tool `{parameter.tool}`: {describe(parameter)} gives its JSON schema the format "
        f"{listed}, which OpenAI strict mode does not support: the OpenAI API refuses the "
        "request that offers the tool"
    )
    return Report(message, marker_fix(parameter, MARKER))


RULE = Rule(
    code="MCP104",
    name="openai-strict-format",
    summary="A parameter whose JSON schema has a `format` OpenAI strict mode refuses",
    why=(
        "pydantic describes a URL (`AnyUrl`, `HttpUrl`) with `format: uri`, a path with `path`, a\n"
        "secret with `password`, bytes with `binary`. OpenAI strict mode supports nine formats\n"
        "(date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid); the OpenAI Agents\n"
        "SDK converts the tool to strict mode all the same, and the API then answers 400 \"'uri'\n"
        'is not a valid format" for the whole request, every other tool with it. Opt-in\n'
        "(`--select MCP1`): only servers meant for strict OpenAI clients care."
    ),
    fix_title=(
        "`mcp-codemod fix --write --select MCP104` adds the `OpenAIStrictFormats` marker: the\n"
        "formats strict mode refuses are removed from the parameter's schema (and from the\n"
        "definitions of the models it uses); the supported ones stay."
    ),
    fix_safety=(
        "Safe: a format only describes the value. The parameter's pydantic validator does not read\n"
        "the schema and is untouched, and fastmcp 2.x's strict mode checks arguments against the\n"
        "schema without asserting formats; clients lose the hint, not a check the server relied on."
    ),
    subject=ToolParameter,
    check=check,
    marker=MARKER,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=False,
    cases=(
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP
from pydantic import AnyUrl

mcp = FastMCP("fetch")


@mcp.tool()
def fetch(url: AnyUrl, max_length: int) -> str:
    return str(url)[:max_length]
""",
            lines=(8,),
            fixed="""\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import OpenAIStrictFormats
from pydantic import AnyUrl

mcp = FastMCP("fetch")


@mcp.tool()
def fetch(url: Annotated[AnyUrl, OpenAIStrictFormats], max_length: int) -> str:
    return str(url)[:max_length]
""",
        ),
        Valid(
            """\
from datetime import date
from uuid import UUID

from fastmcp import FastMCP
from pydantic import EmailStr

mcp = FastMCP("mail")


@mcp.tool
def send(to: EmailStr, thread: UUID, on: date) -> str:
    return to
"""
        ),
        Invalid(
            """\
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("files")


@mcp.tool
def read(paths: list[Path], secret: bytes | None = None) -> str:
    return ""
""",
            lines=(9, 9),
            fixed="""\
from pathlib import Path
from typing import Annotated

from fastmcp import FastMCP
from mcp_codemod.runtime import OpenAIStrictFormats

mcp = FastMCP("files")


@mcp.tool
def read(
    paths: Annotated[list[Path], OpenAIStrictFormats],
    secret: Annotated[bytes | None, OpenAIStrictFormats] = None,
) -> str:
    return ""
""",
        ),
    ),
    clients=(
        Client(
            "OpenAI API, strict function calling (refuses the request: \"'uri' is not a valid"
            ' format"); the Agents SDK 0.24.0 converts such a tool to strict',
            "OpenAI Structured Outputs guide, Supported properties;"
            " https://github.com/cyanheads/git-mcp-server/issues/47,"
            " https://github.com/posit-dev/chatlas/pull/255 (mcp-server-fetch's `AnyUrl`)",
        ),
    ),
)
