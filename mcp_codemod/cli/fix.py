"""`mcp-codemod fix` (and `check --fix`): the diff or the writes, then what the fix workflow
(`mcp_codemod.fix_workflow`) says was done and left."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from mcp_codemod.cli.exits import exit_code, fail, internal_error
from mcp_codemod.cli.options import analysis_options, api_options, stdin_of
from mcp_codemod.cli.output import Output


@click.command()
@analysis_options
@click.option("--write", is_flag=True, help="Apply the changes (default: print them as a diff).")
@click.option("--diff", "show_diff", is_flag=True, help="With --write: print the diff too.")
@click.option(
    "--stdin-filename",
    type=click.Path(path_type=Path),
    help="With the path `-`: the file name of the source read from standard input; the fixed "
    "source is printed.",
)
def fix(
    paths,
    write: bool,
    show_diff: bool,
    stdin_filename,
    unsafe_fixes: bool,
    quiet,
    silent,
    color,
    **options,
) -> None:
    """Rewrite fixable findings: guarded annotations and the guarded server class.

    Without --write: print the diff and exit 1 if anything would change. With --write: apply
    it; exit 0 unless a file could not be checked or fixed. With the path `-`: read one module
    from standard input and print it fixed (with --diff: the diff).
    """
    out = Output(quiet, silent, color)
    stdin = stdin_of(paths, stdin_filename)
    if stdin is not None:
        fix_stdin(stdin, unsafe_fixes, options, out, diff=show_diff)
    run_fix(paths, write, show_diff, unsafe_fixes, options, out)


def fix_stdin(
    stdin: tuple[Path, bytes],
    unsafe_fixes: bool,
    options,
    out: Output,
    diff: bool = False,
    exit_zero: bool = False,
) -> NoReturn:
    """As ruff's `check --fix -`: the fixed source on standard output (the buffer as it came
    when nothing applies), what is left on standard error; exit 1 when findings remain."""
    from dataclasses import replace

    from mcp_codemod import api, fix_workflow
    from mcp_codemod.report import check_output, fix_output

    try:
        fixed = fix_workflow.fix_buffer(
            stdin, api_options(**options), unsafe_fixes=unsafe_fixes, diff=diff
        )
    except api.UsageError as error:
        fail(str(error))
    except Exception as error:
        internal_error(error)
    change, guards, result = fixed.change, fixed.guards, fixed.outcome.check
    if fixed.guards_written:
        assert guards is not None
        out.note(fix_output.guard_module_written(guards.path))
    for failure in fixed.failures:
        out.finding_note(fix_output.error_line(failure.path, failure.message))
    if diff:
        for shown in (change, guards):
            if shown is not None:
                out.echo(shown.diff())
    elif change is not None:
        sys.stdout.buffer.write(change.fixed.encode(change.encoding))
    else:
        sys.stdout.buffer.write(stdin[1])
    for finding in fixed.left:
        out.finding_note(fix_output.finding_line(finding))
    for line in fixed.unimportable:
        out.finding_note(line)
    out.note(fix_output.buffer_summary(fixed.fixed, len(fixed.left), bool(fixed.unimportable)))
    if result.unprotected:
        out.finding_note(check_output.unchecked_note(result))
    # As `fix --diff`, a diff that is not empty fails the run.
    failed = bool(
        fixed.unimportable
        or fixed.left
        or fixed.failures
        or (diff and (change is not None or guards is not None))
        or exit_code(replace(result, findings=()))
    )
    sys.exit(0 if exit_zero else int(failed))


def run_fix(
    paths,
    write: bool,
    show_diff: bool,
    unsafe_fixes: bool,
    options,
    out: Output,
    exit_zero: bool = False,
) -> NoReturn:
    from mcp_codemod import api, fix_workflow
    from mcp_codemod.report import check_output, fix_output

    settings_options = api_options(**options)
    try:
        outcome = api.fix_paths(paths, settings_options, unsafe_fixes=unsafe_fixes, rechecked=True)
    except api.UsageError as error:
        fail(str(error))
    except Exception as error:
        internal_error(error)
    result, fixes = outcome.check, outcome.fixes
    for failure in (*result.errors, *fixes.failures):
        out.finding_note(fix_output.error_line(failure.path, failure.message))
    if show_diff or not write:
        for change in fixes.files:
            out.echo(change.diff())
        # Before any file is written: output that cannot be written stops the run here.
        sys.stdout.flush()
    run = fix_workflow.apply_fixes(
        outcome,
        paths,
        settings_options,
        write=write,
        unsafe_fixes=unsafe_fixes,
        while_writing=fix_workflow.stopped_by_termination,
    )
    for failure in run.write_failures:
        out.finding_note(fix_output.error_line(failure.path, failure.message))
    for note in fixes.outside:
        out.note(note)
    for advice in fixes.advice:
        out.note(fix_output.advice_note(advice))
    if run.error is not None:
        internal_error(run.error)
    assert run.after is not None and run.summary is not None
    if run.remaining:
        # Kept under --quiet: it is why the run fails.
        out.finding_note(fix_output.remaining_text(run.remaining))
    for line in run.unimportable:
        out.finding_note(line)
    out.note(fix_output.fix_summary(run.summary))
    if run.after.unprotected:  # as the fixes leave them: a server they guarded is protected now
        out.finding_note(check_output.unchecked_note(run.after))
    if exit_zero:
        sys.exit(0)
    failed = result.errors or fixes.failures or run.write_failures or run.unimportable
    if failed or exit_code(run.after):
        sys.exit(1)
    sys.exit(1 if fixes.files and not write else 0)
