"""The options `check` and `fix` share, as click declares them and as `api.Options` takes them,
and standard input as a path (`-`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcp_codemod.cli.exits import DEBUG_VARIABLE, fail

if TYPE_CHECKING:
    from mcp_codemod import api


def _paths(_context, _parameter, values: tuple[str, ...]) -> tuple[Path, ...]:
    # Path("") is Path("."): an empty argument (an unset shell variable) would check everything.
    if "" in values:
        raise click.BadParameter("an empty path names no file")
    return tuple(Path(value) for value in values)


def analysis_options(function):
    """Options shared by `check` and `fix`: what to look at and which rules."""
    options = [
        click.argument("paths", nargs=-1, type=click.Path(), callback=_paths),
        click.option(
            "--select", multiple=True, help="Rule codes or prefixes to enable (comma-separated)."
        ),
        click.option(
            "--extend-select",
            multiple=True,
            help="Rule codes or prefixes to enable besides those selected (comma-separated).",
        ),
        click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable."),
        click.option(
            "--extend-exclude",
            multiple=True,
            help="Glob patterns to exclude, besides the defaults.",
        ),
        click.option(
            "--force-exclude/--no-force-exclude",
            default=None,
            help="Apply excludes and .gitignore to paths given explicitly too (for pre-commit).",
        ),
        click.option(
            "--framework",
            type=click.Choice(["mcp1", "mcp2", "fastmcp"]),
            help="Framework of servers whose construction cannot be resolved.",
        ),
        click.option(
            "--config",
            type=click.Path(path_type=Path),
            help="pyproject.toml to read [tool.mcp-codemod] from, for every file (default: "
            "the closest one above each file).",
        ),
        click.option(
            "--jobs",
            "-j",
            type=click.IntRange(min=1),
            help="Processes that parse files (default: one per core).",
        ),
        click.option(
            "--no-cache",
            is_flag=True,
            envvar="MCP_CODEMOD_NO_CACHE",
            help="Neither read nor write the cache.",
        ),
        click.option(
            "--cache-dir",
            type=click.Path(path_type=Path),
            envvar="MCP_CODEMOD_CACHE_DIR",
            help="Where to cache facts (default: .mcp-codemod-cache beside the configuration "
            "file, or in the working directory).",
        ),
        click.option(
            "--max-file-size",
            type=click.IntRange(min=1),
            metavar="BYTES",
            help="Report larger files as not checked instead of parsing them "
            "(default: 10485760, 10 MiB).",
        ),
        click.option(
            "--unsafe-fixes",
            is_flag=True,
            help="Apply (and mark with [*]) the fixes that can change what a correct tool receives.",
        ),
        click.option(
            "--quiet",
            "-q",
            is_flag=True,
            help="Print findings (or the diff), nothing else: no summary, notes or advice.",
        ),
        click.option(
            "--silent",
            "-s",
            is_flag=True,
            help="Print nothing but errors that stop the run; the exit code still tells.",
        ),
        click.option(
            "--color",
            type=click.Choice(["auto", "always", "never"]),
            default="auto",
            show_default=True,
            help="Colour the text output: auto is on a terminal, unless NO_COLOR is set "
            "(FORCE_COLOR turns it on).",
        ),
        click.option(
            "--verbose",
            "-v",
            is_flag=True,
            help=f"Print the traceback of an internal error (also {DEBUG_VARIABLE}=1); "
            "implies --no-cache.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def api_options(
    select,
    extend_select,
    ignore,
    extend_exclude,
    force_exclude,
    framework,
    config,
    jobs,
    no_cache,
    cache_dir,
    verbose,
    **extra,
) -> api.Options:
    from mcp_codemod import api

    if verbose:
        # Read by the parsing processes too, which inherit the environment.
        os.environ[DEBUG_VARIABLE] = "1"
    return api.Options(
        config=config,
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        extend_exclude=extend_exclude,
        force_exclude=force_exclude,
        framework=framework,
        jobs=jobs,
        cache=not (no_cache or verbose),
        cache_dir=cache_dir,
        **extra,
    )


def stdin_of(paths: tuple[Path, ...], filename: Path | None) -> tuple[Path, bytes] | None:
    if Path("-") not in paths:
        if filename is not None:
            fail("--stdin-filename needs the path `-`")
        return None
    if len(paths) > 1:
        fail("`-` (standard input) cannot be combined with other paths")
    if sys.stdin is None:
        fail("standard input is closed")
    return (filename or Path("stdin.py"), sys.stdin.buffer.read())
