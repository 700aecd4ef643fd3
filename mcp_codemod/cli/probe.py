"""`mcp-codemod probe TARGET`: a live server's argument handling on values it is known to mangle."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mcp_codemod.cli.exits import fail


@click.command(name="probe")
@click.argument("target")
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How to print the arguments that do not arrive as sent.",
)
@click.option(
    "--import",
    "imports",
    multiple=True,
    metavar="MODULE",
    help="Import this module (package.module or path/to/module.py) after TARGET, so the tools "
    "it registers on the server are probed too; repeatable.",
)
@click.option(
    "--openai-strict",
    is_flag=True,
    help="Also report why OpenAI strict mode does not take a tool's input schema as it is "
    "(what the opt-in MCP1 rules report): these count toward exit 1 too.",
)
@click.option(
    "--legacy-clients",
    is_flag=True,
    help="Also report what clients no longer current drop: a `$ref` alone where Gemini CLI up "
    "to 0.7.0 looks for a type (what the opt-in MCP2 rules report): these count toward exit 1 "
    "too.",
)
@click.option(
    "--clients",
    is_flag=True,
    help="Also replay what current clients are documented to send in place of a value (arrays "
    'and objects as JSON text, "null" as text, integers as floats or text, digits as a '
    "number), each against every parameter it applies to: these count toward exit 1 too.",
)
def probe_command(
    target: str,
    output_format: str,
    imports: tuple[str, ...],
    openai_strict: bool,
    legacy_clients: bool,
    clients: bool,
) -> None:
    """Run every tool's argument validation on values the framework is known to mangle.

    TARGET names a server object: path/to/server.py:attr or package.module:attr (an mcp
    FastMCP or MCPServer, or a fastmcp.FastMCP); without :attr, the module's one server. For
    every registered tool, "null", "[1]" and '{"a": 1}' go to each parameter that takes text,
    5.0 to each integer parameter, and the JSON text of an array or object to each structured
    parameter; input schemas are checked for arrays without `items` and nodes without `type`
    (and, with --openai-strict, for what OpenAI strict mode does not take; with
    --legacy-clients, for what clients no longer current drop; with --clients, what
    current clients send in place of a value is replayed). Tool bodies are
    never run. Exit 1 when an argument arrives changed or is rejected or a schema has such a
    node, 2 when TARGET cannot be loaded or has no tools to probe.
    """
    from mcp_codemod.probe import argument_handling, targets
    from mcp_codemod.probe.server_probe import probe_server
    from mcp_codemod.report import probe_output

    try:
        server = targets.load_target(target)
        for module in imports:
            targets.load_module(module)
        result = probe_server(server)
    except (targets.TargetError, argument_handling.NotAServerError) as error:
        fail(str(error))
    for tool, reason in result.not_probed:
        click.echo(probe_output.not_probed(tool, reason), err=True)
    if not result.tools and not result.not_probed:
        fail(nothing_probed(target, imports, result.server))
    click.echo(
        probe_output.probe_json(result, openai_strict, legacy_clients, clients)
        if output_format == "json"
        else probe_output.probe_text(result, openai_strict, legacy_clients, clients)
    )
    opted_in = (
        (openai_strict and result.strict_mode)
        or (legacy_clients and result.legacy_client_nodes())
        or (clients and result.client_forms)
    )
    sys.exit(1 if result.failed or opted_in else 0)


def nothing_probed(target: str, imports: tuple[str, ...], server: str) -> str:
    """Why a server has no tools, and the command that loads them: the modules of its package
    that register tools on it, as the static analysis finds them."""
    from mcp_codemod import api
    from mcp_codemod.engine.module_paths import module_name
    from mcp_codemod.probe import targets
    from mcp_codemod.report import probe_output

    module = targets.target_module(target)
    loaded = sys.modules.get(module)
    where = Path(getattr(loaded, "__file__", None) or ".")
    root = module_name(where)[1] if where.is_file() else Path(".")
    try:
        missing = [name for name in api.tool_modules(module, root) if name not in imports]
    except api.UsageError:
        missing = []
    return probe_output.nothing_probed(server, module, target, imports, missing)
