"""How a command ends, as ruff's: 0 clean, 1 findings (or files that could not be checked), 2
usage, configuration or internal error, in one line on standard error."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from mcp_codemod.engine.checker import CheckResult

DEBUG_VARIABLE = "MCP_CODEMOD_DEBUG"


def fail(message: str) -> NoReturn:
    click.echo(f"mcp-codemod: error: {message}", err=True)
    sys.exit(2)


def internal_error(error: Exception) -> NoReturn:
    """A bug of ours: one line and exit 2, the traceback only when asked for."""
    if os.environ.get(DEBUG_VARIABLE):
        import traceback  # only for a bug of ours

        traceback.print_exception(error)
    else:
        click.echo(f"(run with --verbose or {DEBUG_VARIABLE}=1 for the traceback)", err=True)
    fail(f"internal error ({type(error).__name__}: {error}); please report it")


def exit_code(result: CheckResult) -> int:
    if result.errors or result.findings:
        return 1
    if any(tool.server.framework is None for tool in result.unprotected):
        # Tools on a server that may pre-parse went unchecked, and no finding says so. (Where
        # the unguarded-server rule says so and the user suppressed it, `noqa` or
        # `per-file-ignores`, that is their decision: the summary still lists them, and never
        # says "All checks passed!".)
        return 1
    return 0
