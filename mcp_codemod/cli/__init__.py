"""The command line: parse options, call the library (`api`, `fix_workflow`), print through
`report`, choose the exit code. Nothing else; click is used here and nowhere below.

One module per command (`check`, `fix`, `probe`, `rules`, `language_server`), beside what they
share: the options (`options`), the streams (`output`) and how a run ends (`exits`). Each
command imports what it runs: `--version` and `--help` start without the analysis.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import sys
from typing import NoReturn

import click

from mcp_codemod import __version__
from mcp_codemod.cli.check import check
from mcp_codemod.cli.exits import fail
from mcp_codemod.cli.fix import fix
from mcp_codemod.cli.language_server import language_server
from mcp_codemod.cli.probe import probe_command
from mcp_codemod.cli.rules import explain_rule, list_rules


class _Main(click.Group):
    """Output that cannot be written (`> /dev/full`) is one line on stderr and exit 2; a reader
    that went away (`| head`) ends the run quietly with exit 1, as click does."""

    def invoke(self, ctx: click.Context):
        try:
            try:
                return super().invoke(ctx)
            finally:
                sys.stdout.flush()
        except OSError as error:
            # The commands turn every error of the files they read and write into a message:
            # what escapes them is the output's.
            _quiet_stdout()
            if error.errno == errno.EPIPE:
                sys.exit(1)
            fail(f"cannot write the output: {error.strerror or error}")


def run() -> NoReturn:
    """The console script: `main`, then the process ends without the interpreter's teardown.
    Freeing a run's millions of objects one by one and unloading every module took longer
    than reporting; the output is flushed first, and nothing is left to close (the cache is
    written, the worker processes are joined, before the report). Nor does the process need
    the cycle collector: the analysis and the fixes run without it (`cycle_collection`), and
    turned on after them it would only go over their objects once more before the exit."""
    _refuse_closed_streams()
    gc.disable()
    try:
        main()
        code = 0
    except SystemExit as exit:
        if exit.code is None or isinstance(exit.code, int):
            code = exit.code or 0
        else:
            click.echo(exit.code, err=True)
            code = 1
    except OSError as error:
        # Output written while the options are read (`--version`, `--help`) into a broken
        # stream: as `_Main.invoke` does for a command's.
        _quiet_stdout()
        code = 1
        if error.errno != errno.EPIPE:
            _last_words(f"cannot write the output: {error.strerror or error}")
            code = 2
    try:
        sys.stdout.flush()
    except OSError as error:
        # Output written outside a command (`--version`, `--help`) into a broken stream.
        _quiet_stdout()
        _last_words(f"cannot write the output: {error.strerror or error}")
        code = 2
    try:
        sys.stderr.flush()
    except OSError:
        code = code or 2  # nowhere left to say it
    os._exit(code)


def _refuse_closed_streams() -> None:
    """A closed standard output or error (`>&-`) ends the run before it does anything (`fix
    --write` writes no file it could not report): one line on the stream still open, or quietly
    when both are closed, and exit 2. The closed descriptors are first pointed at /dev/null, so
    that no file the run opens takes their numbers."""
    closed = []
    for number, name in ((1, "standard output"), (2, "standard error")):
        try:
            os.fstat(number)
        except OSError:
            closed.append((number, name))
    if not closed:
        return
    for number, _name in closed:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != number:
            os.dup2(null, number)
            os.close(null)
    names = " and ".join(name for _number, name in closed)
    message = f"mcp-codemod: error: {names} closed; nothing was done\n".encode()
    if len(closed) == 1:
        open_stream = 2 if closed[0][0] == 1 else 1
        with contextlib.suppress(OSError):  # else nowhere left to say it
            os.write(open_stream, message)
    os._exit(2)


def _quiet_stdout() -> None:
    """Standard output to /dev/null: the interpreter's last flush would fail again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _last_words(message: str) -> None:
    with contextlib.suppress(OSError):  # else nowhere left to say it
        click.echo(f"mcp-codemod: error: {message}", err=True)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcp-codemod")
def main() -> None:
    """Find and fix MCP tool parameters that the server framework or the client mangles."""


for command in (check, fix, list_rules, explain_rule, probe_command, language_server):
    main.add_command(command)
