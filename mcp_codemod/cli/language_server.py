"""`mcp-codemod server`: the language server, for editors."""

from __future__ import annotations

import gc
import os
import sys

import click

from mcp_codemod.cli.exits import fail


@click.command(name="server")
def language_server() -> None:
    """Run the language server on standard input and output, for editors (docs/editors.md):
    diagnostics of the unsaved text, quick fixes, fix-all and hovers."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        fail("the language server needs pygls: install mcp-codemod with its `lsp` extra")
    from mcp_codemod.lsp.server import serve

    # The console script turns the cycle collector off for a run that ends with the process;
    # a server runs for hours and makes cycles (asyncio's tasks and exceptions).
    gc.enable()
    try:
        serve()
    finally:
        if sys.stdout.closed:  # pygls closes it at `exit`; the exit's flushes then see nothing
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the rest of the process
