"""MCP004: a pre-parsing server, not guarded, with tools the analysis cannot see."""

from __future__ import annotations

from collections import Counter

from mcp_codemod.analysis.subjects import ServerTools
from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.rules.edits import guard_server, guarding
from mcp_codemod.rules.findings import Fix, Safety
from mcp_codemod.rules.messages import capitalized
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule, Valid

# What each kind of unchecked registration is, counted: "2 helper parameters".
KIND_NAMES = {
    Unchecked.HELPER_PARAMETER: ("tool passed to a helper", "tools passed to helpers"),
    Unchecked.LOOP_VARIABLE: ("tool chosen in a loop", "tools chosen in loops"),
    Unchecked.THIRD_PARTY: ("third-party function", "third-party functions"),
    Unchecked.GENERATED_SIGNATURE: ("generated signature", "generated signatures"),
    Unchecked.EXEC_TEXT: ("exec'd text", "exec'd texts"),
    Unchecked.NOT_FOUND: ("expression it cannot follow", "expressions it cannot follow"),
    Unchecked.FRAMEWORK_TOOLS: (
        "set of tools its framework registers by itself",
        "sets of tools its framework registers by itself",
    ),
    Unchecked.UNRESOLVED_ANNOTATION: (
        "parameter whose annotation it cannot resolve",
        "parameters whose annotations it cannot resolve",
    ),
    Unchecked.UNKNOWN_USE: (
        "use of the server's registration it cannot follow",
        "uses of the server's registration it cannot follow",
    ),
    Unchecked.UNTIED: (
        "registration on a server of unknown framework, which may be this one",
        "registrations on a server of unknown framework, which may be this one",
    ),
    Unchecked.OVER_BUDGET: (
        "registration it could not follow within its budget",
        "registrations it could not follow within its budget",
    ),
}


def check(subject: ServerTools) -> Report | None:
    server = subject.server
    if server.framework is None or not server.framework.pre_parses_json or not subject.unchecked:
        return None
    counts = Counter(tool.kind for tool in subject.unchecked if tool.kind in KIND_NAMES)
    if not counts:
        return None
    kinds = ", ".join(
        f"{count} {KIND_NAMES[kind][count != 1]}" for kind, count in sorted(counts.items())
    )
    total = sum(counts.values())
    registrations = "registration" if total == 1 else "registrations"
    description = server.description
    if Unchecked.UNTIED in counts and server.origin is not None:
        # Which of the servers the tree builds this finding is about.
        description = f"{description} (built at {server.origin[0]}:{server.origin[1]})"
    message = (
        f"Server {description} is not guarded and has {total} tool {registrations} the "
        f"analysis cannot see ({kinds}): {server.title} JSON-pre-parses their text "
        "arguments unchecked"
    )
    swaps, _ = guard_server(server)
    if not swaps:
        if server.facade is not None:
            return Report(f"{message}; {server.facade.how_to_guard}")
        return Report(
            message + "; pass the server through `mcp_codemod.runtime.guard(server)` where it "
            "is built"
        )
    title = capitalized(guarding(server))
    # The guarded server changes what a tool receives only where the SDK's pre-parse would
    # mangle text a declared type admits (docs/runtime.md): safe on tools nobody has seen.
    return Report(message, Fix(title, Safety.SAFE, swaps=swaps))


RULE = Rule(
    code="MCP004",
    name="unchecked-tools-on-unguarded-server",
    summary="A JSON-pre-parsing server, not guarded, with tools the analysis cannot see",
    why=(
        "A tool function handed to a helper, chosen in a loop over a collection built at run\n"
        "time, imported from a library whose source is not installed, or given a signature at run\n"
        "time (`fn.__signature__ = ...`), registered by a framework itself (mcp-agent's\n"
        "`workflows-*` tools on the server of every `MCPApp`) or through the server's `tool` /\n"
        "`add_tool` handed to code the analysis does not follow (`tool = mcp.tool`,\n"
        '`getattr(mcp, "tool")`, a helper returning `mcp.tool(...)`), a parameter whose annotation\n'
        "cannot be resolved, or a registration on a server of unknown framework in a tree that\n"
        "builds this one, cannot be checked parameter by\n"
        'parameter; the SDK still JSON-pre-parses its text arguments ("null" → None, "[1, 2]" →\n'
        "a list). Only the server can protect what the analysis cannot see: `GuardedFastMCP` /\n"
        "`GuardedMCPServer`, or `guard(server)`, never pre-parse a string for a parameter whose\n"
        "declared type admits text. One finding per server, at its first unchecked registration;\n"
        "`check` lists every such registration."
    ),
    fix_title=(
        "`mcp-codemod fix --write` makes the server's construction (or its project subclass's\n"
        "base) the guarded class, in every branch that builds it. Where the server is built\n"
        "outside the project, wrap it in `mcp_codemod.runtime.guard(server)` by hand."
    ),
    fix_safety=(
        "Safe: the guarded server changes what a tool receives only where the SDK would have\n"
        "replaced a string argument for a parameter whose declared type admits text (`str | None`,\n"
        "`Literal[...]`, `str | list[str]`...) by the JSON it decodes to: that argument then\n"
        "arrives as sent. Every other argument, and every parameter annotated `Any` or `object`,\n"
        "unannotated or `**kwargs` without a type, keeps the SDK's handling (docs/runtime.md)."
    ),
    subject=ServerTools,
    check=check,
    availability=FixAvailability.SOMETIMES,
    enabled_by_default=True,
    cases=(
        Invalid(
            """\
import importlib

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("plugins")

for name in ("search", "fetch"):
    mcp.add_tool(importlib.import_module(f"plugins.{name}").run)
""",
            lines=(8,),
            fixed="""\
import importlib

from mcp_codemod.runtime import GuardedFastMCP

mcp = GuardedFastMCP("plugins")

for name in ("search", "fetch"):
    mcp.add_tool(importlib.import_module(f"plugins.{name}").run)
""",
        ),
        Valid(
            """\
import importlib

from mcp_codemod.runtime import GuardedFastMCP

mcp = GuardedFastMCP("plugins")

for name in ("search", "fetch"):
    mcp.add_tool(importlib.import_module(f"plugins.{name}").run)
"""
        ),
        Valid(
            """\
import importlib

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import guard

mcp = guard(FastMCP("plugins"))

for name in ("search", "fetch"):
    mcp.add_tool(importlib.import_module(f"plugins.{name}").run)
"""
        ),
        Valid(
            """\
import importlib

from fastmcp import FastMCP

mcp = FastMCP("plugins")

for name in ("search", "fetch"):
    mcp.add_tool(importlib.import_module(f"plugins.{name}").run)
"""
        ),
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.tools import Tool

mcp = FastMCP("private")


def search(query: str | None = None) -> str:
    return query or ""


mcp._tool_manager._tools["search"] = Tool.from_function(search)
""",
            lines=(11,),
            fixed="""\
from mcp.server.fastmcp.tools import Tool
from mcp_codemod.runtime import GuardedFastMCP

mcp = GuardedFastMCP("private")


def search(query: str | None = None) -> str:
    return query or ""


mcp._tool_manager._tools["search"] = Tool.from_function(search)
""",
        ),
        Invalid(
            """\
from mcp.server.mcpserver import MCPServer
from not_installed_anywhere.tools import search

server = MCPServer("library")
server.add_tool(search)
""",
            lines=(5,),
            fixed="""\
from mcp_codemod.runtime import GuardedMCPServer
from not_installed_anywhere.tools import search

server = GuardedMCPServer("library")
server.add_tool(search)
""",
        ),
        Invalid(
            """\
from mcp.server.fastmcp import FastMCP
from mcp_agent.app import MCPApp

mcp = FastMCP("flows")
app = MCPApp(name="flows", mcp=mcp)
""",
            lines=(5,),
            fixed="""\
from mcp_agent.app import MCPApp
from mcp_codemod.runtime import GuardedFastMCP

mcp = GuardedFastMCP("flows")
app = MCPApp(name="flows", mcp=mcp)
""",
        ),
    ),
)
