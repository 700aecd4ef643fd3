"""`mcp-codemod check`: findings as text, statistics or a machine format; `--fix`, `--add-noqa`,
`--show-files` and `--show-settings`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from mcp_codemod.cli.exits import exit_code, fail, internal_error
from mcp_codemod.cli.fix import fix_stdin, run_fix
from mcp_codemod.cli.options import analysis_options, api_options, stdin_of
from mcp_codemod.cli.output import Output
from mcp_codemod.engine.settings import OUTPUT_FORMATS


@click.command()
@analysis_options
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    help="How to print findings (default: text).",
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to this file instead of standard output.",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 whatever was found or left unchecked (2 still means a usage or internal error).",
)
@click.option("--statistics", is_flag=True, help="Print counts per rule instead of each finding.")
@click.option(
    "--fix",
    "apply_fixes",
    is_flag=True,
    help="Apply the fixes: `fix --write`; with `-`, print the fixed source.",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Add a `# noqa: CODE` comment on the line of each finding (a baseline); keeps the "
    "codes already there.",
)
@click.option(
    "--stdin-filename",
    type=click.Path(path_type=Path),
    help="With the path `-`: the file name of the source read from standard input.",
)
@click.option("--show-files", is_flag=True, help="List the files that would be checked, and exit.")
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the settings of the first file that would be checked (and where they come "
    "from), and exit.",
)
def check(
    paths,
    output_format,
    output_file,
    exit_zero,
    statistics,
    apply_fixes,
    add_noqa,
    stdin_filename,
    show_files,
    show_settings,
    unsafe_fixes,
    quiet,
    silent,
    color,
    **options,
) -> None:
    """Report tool parameters that the framework or the client mangles.

    PATHS default to the working directory; `-` reads one module from standard input.
    Exit 0 when nothing was found and every registration was checked, 1 otherwise, 2 on a
    usage, configuration or internal error.
    """
    from mcp_codemod import api
    from mcp_codemod.report import check_output as report

    out = Output(quiet, silent, color, output_file)
    if show_files or show_settings:
        _show(paths, options, show_files, out)
    if apply_fixes and add_noqa:
        fail("--fix and --add-noqa cannot be combined")
    if apply_fixes:
        if Path("-") in paths:
            stdin = stdin_of(paths, stdin_filename)
            fix_stdin(stdin, unsafe_fixes, options, out, exit_zero=exit_zero)
        run_fix(paths, True, False, unsafe_fixes, options, out, exit_zero=exit_zero)
    settings_options = api_options(output_format=output_format, **options)
    stdin = stdin_of(paths, stdin_filename)
    if add_noqa:
        _add_noqa(paths, settings_options, stdin, out)
    try:
        settings, result = api.check_paths(paths, settings_options, stdin=stdin)
    except api.UsageError as error:
        fail(str(error))
    except Exception as error:
        internal_error(error)
    fmt = settings.output_format
    if statistics and fmt == "json":
        out.echo(report.statistics_json(result, unsafe_fixes))
    elif statistics or fmt not in report.FORMATTERS:
        # Statistics are a table or JSON, as ruff's: the annotation formats have no place for them.
        style = click.style if out.color else report.plain
        out.echo(report.text(result, statistics, unsafe_fixes, style=style, quiet=out.quiet))
    else:
        out.echo(report.FORMATTERS[fmt](result))
        if result.unchecked:
            out.finding_note(report.unchecked_note(result))
    out.close()
    sys.exit(0 if exit_zero else exit_code(result))


def _show(paths, options, show_files: bool, out: Output) -> NoReturn:
    """`--show-files` / `--show-settings`, as ruff's: what the run would look at, and why."""
    from mcp_codemod import api
    from mcp_codemod.report.settings_output import describe_settings

    try:
        found = api.discovered_files(paths, api_options(**options))
    except api.UsageError as error:
        fail(str(error))
    if show_files:
        for file, _settings in found:
            out.echo(f"{os.path.abspath(file)}\n")
    elif not found:
        fail("no Python file to show the settings of")
    else:
        file, settings = found[0]
        out.echo(describe_settings(Path(os.path.abspath(file)), settings))
    out.close()
    sys.exit(0)


def _add_noqa(paths, options, stdin, out: Output) -> NoReturn:
    from mcp_codemod import api
    from mcp_codemod.report import check_output, fix_output

    if stdin is not None:
        fail("--add-noqa cannot rewrite standard input")
    try:
        _settings, result, outcome = api.add_noqa_paths(paths, options)
    except api.UsageError as error:
        fail(str(error))
    except Exception as error:
        internal_error(error)
    for where, message in outcome.failures:
        out.finding_note(fix_output.error_line(where, message))
    for error in result.errors:
        out.finding_note(fix_output.error_line(error.path, error.message))
    out.note(fix_output.noqa_summary(outcome.added, outcome.files))
    if result.unprotected:
        # A registration not checked has no code to add: it still needs its remedy.
        out.finding_note(check_output.unchecked_note(result))
    sys.exit(1 if outcome.failures or result.errors else 0)
