"""The command line: parse options, run the pipeline, print, choose the exit code. Nothing else.

Each command imports what it runs: `--version` and `--help` start without the analysis.

Exit codes, as ruff's: 0 clean, 1 findings (or files that could not be checked), 2 usage,
configuration or internal error.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from mcp_codemod import __version__
from mcp_codemod.engine.settings import OUTPUT_FORMATS

if TYPE_CHECKING:
    from mcp_codemod import api
    from mcp_codemod.engine.checker import CheckResult

DEBUG_VARIABLE = "MCP_CODEMOD_DEBUG"


def _fail(message: str) -> NoReturn:
    click.echo(f"mcp-codemod: error: {message}", err=True)
    sys.exit(2)


def _debug() -> bool:
    return bool(os.environ.get(DEBUG_VARIABLE))


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


def _options(
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


def _internal_error(error: Exception) -> NoReturn:
    """A bug of ours: one line and exit 2, the traceback only when asked for."""
    if _debug():
        import traceback  # only for a bug of ours

        traceback.print_exception(error)
    else:
        click.echo(f"(run with --verbose or {DEBUG_VARIABLE}=1 for the traceback)", err=True)
    _fail(f"internal error ({type(error).__name__}: {error}); please report it")


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
            _fail(f"cannot write the output: {error.strerror or error}")


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


class Output:
    """Where and how a command prints: the report on standard output (or `--output-file`),
    messages on standard error; `--quiet` keeps only the findings (or the diff), `--silent`
    nothing but the errors that stop the run; colour per `--color`, NO_COLOR and FORCE_COLOR."""

    def __init__(self, quiet: bool, silent: bool, color: str, output_file: Path | None = None):
        self.quiet = quiet or silent
        self.silent = silent
        self.output_file = output_file
        self.color = output_file is None and _use_color(color, sys.stdout)
        self.report: list[str] = []

    def echo(self, text: str) -> None:
        """Part of the report."""
        if self.silent:
            return
        if self.output_file is not None:
            self.report.append(text)
        else:
            click.echo(text, nl=False, color=self.color)

    def note(self, text: str) -> None:
        """A message beside the report: summaries, notes, advice."""
        if not self.quiet:
            click.echo(text, err=True)

    def finding_note(self, text: str) -> None:
        """A message that tells why the run fails (a file not checked): kept under --quiet."""
        if not self.silent:
            click.echo(text, err=True)

    def close(self) -> None:
        """Write the report to `--output-file`: one line and exit 2 when it cannot be."""
        if self.output_file is None:
            return
        try:
            _write_report(self.output_file, "".join(self.report))
        except _LinkedPath as linked:
            _fail(f"--output-file {self.output_file}: {linked} is a symbolic link; not written")
        except OSError as error:
            _fail(f"--output-file {self.output_file}: cannot write: {error.strerror or error}")


class _LinkedPath(Exception):
    """A path the report would be written through is a symbolic link."""


def _write_report(path: Path, text: str) -> None:
    """The report, in a file of its own: missing parent folders are made first, as ruff makes
    them, but only those of the path given, and never in or through a symbolic link; the file
    itself is not written through one either."""
    missing = []
    parent = path.parent
    while not parent.exists() and not parent.is_symlink():  # a dangling link exists not
        missing.append(parent)
        parent = parent.parent
    if missing:
        linked = next((p for p in (parent, *parent.parents) if p.is_symlink()), None)
        if linked is not None:
            raise _LinkedPath(linked)
        for folder in reversed(missing):
            try:
                folder.mkdir()
            except FileExistsError:  # made meanwhile: only a real folder will do
                if folder.is_symlink() or not folder.is_dir():
                    raise
    if path.is_symlink():
        raise _LinkedPath(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with open(os.open(path, flags, 0o666), "w", encoding="utf-8") as report:
        report.write(text)


def _use_color(choice: str, stream) -> bool:
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


@main.command()
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
        _fail("--fix and --add-noqa cannot be combined")
    if apply_fixes:
        if Path("-") in paths:
            stdin = _stdin(paths, stdin_filename)
            _fix_stdin(stdin, unsafe_fixes, options, out, exit_zero=exit_zero)
        _run_fix(paths, True, False, unsafe_fixes, options, out, exit_zero=exit_zero)
    settings_options = _options(output_format=output_format, **options)
    stdin = _stdin(paths, stdin_filename)
    if add_noqa:
        _add_noqa(paths, settings_options, stdin, out)
    try:
        settings, result = api.check_paths(paths, settings_options, stdin=stdin)
    except api.UsageError as error:
        _fail(str(error))
    except Exception as error:
        _internal_error(error)
    fmt = settings.output_format
    if statistics and fmt == "json":
        out.echo(report.statistics_json(result, unsafe_fixes))
    elif statistics or fmt not in report.FORMATTERS:
        # Statistics are a table or JSON, as ruff's: the annotation formats have no place for them.
        out.echo(report.text(result, statistics, unsafe_fixes, color=out.color, quiet=out.quiet))
    else:
        out.echo(report.FORMATTERS[fmt](result))
        if result.unresolved:
            out.finding_note(report.unresolved_note(result))
    out.close()
    sys.exit(0 if exit_zero else _exit_code(result))


def _show(paths, options, show_files: bool, out: Output) -> NoReturn:
    """`--show-files` / `--show-settings`, as ruff's: what the run would look at, and why."""
    from mcp_codemod import api
    from mcp_codemod.report.settings_output import describe_settings

    try:
        found = api.discovered_files(paths, _options(**options))
    except api.UsageError as error:
        _fail(str(error))
    if show_files:
        for file, _settings in found:
            out.echo(f"{os.path.abspath(file)}\n")
    elif not found:
        _fail("no Python file to show the settings of")
    else:
        file, settings = found[0]
        out.echo(describe_settings(Path(os.path.abspath(file)), settings))
    out.close()
    sys.exit(0)


def _add_noqa(paths, options, stdin, out: Output) -> NoReturn:
    from mcp_codemod import api
    from mcp_codemod.report import plural

    if stdin is not None:
        _fail("--add-noqa cannot rewrite standard input")
    try:
        _settings, result, outcome = api.add_noqa_paths(paths, options)
    except api.UsageError as error:
        _fail(str(error))
    except Exception as error:
        _internal_error(error)
    for where, message in outcome.failures:
        out.finding_note(f"{where}: error: {message}")
    for error in result.errors:
        out.finding_note(f"{error.path}: error: {error.message}")
    out.note(
        f"Added {plural(outcome.added, 'noqa directive')}"
        + (f" in {plural(outcome.files, 'file')}." if outcome.added else ".")
    )
    if result.unchecked:
        from mcp_codemod.report import check_output as report

        # A registration not checked has no code to add: it still needs its remedy.
        out.finding_note(report.unresolved_note(result))
    sys.exit(1 if outcome.failures or result.errors else 0)


def _stdin(paths: tuple[Path, ...], filename: Path | None) -> tuple[Path, bytes] | None:
    if Path("-") not in paths:
        if filename is not None:
            _fail("--stdin-filename needs the path `-`")
        return None
    if len(paths) > 1:
        _fail("`-` (standard input) cannot be combined with other paths")
    if sys.stdin is None:
        _fail("standard input is closed")
    return (filename or Path("stdin.py"), sys.stdin.buffer.read())


def _echo(text: str) -> None:
    click.echo(text, nl=False)


def _exit_code(result: CheckResult) -> int:
    if result.errors or result.findings:
        return 1
    if any(tool.server.framework is None for tool in result.unchecked):
        # Tools on a server that may pre-parse went unchecked, and no finding says so. (Where
        # MCP004 says so and the user suppressed it, `noqa` or `per-file-ignores`, that is their
        # decision: the summary still lists them, and never says "All checks passed!".)
        return 1
    return 0


@main.command()
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
    stdin = _stdin(paths, stdin_filename)
    if stdin is not None:
        _fix_stdin(stdin, unsafe_fixes, options, out, diff=show_diff)
    _run_fix(paths, write, show_diff, unsafe_fixes, options, out)


def _fix_stdin(
    stdin: tuple[Path, bytes],
    unsafe_fixes: bool,
    options,
    out: Output,
    diff: bool = False,
    exit_zero: bool = False,
) -> NoReturn:
    """As ruff's `check --fix -`: the fixed source on standard output (the buffer as it came
    when nothing applies), what is left on standard error; exit 1 when findings remain."""
    from mcp_codemod import api
    from mcp_codemod.report import check_output as report

    try:
        outcome = api.fix_paths((), _options(**options), unsafe_fixes=unsafe_fixes, stdin=stdin)
    except api.UsageError as error:
        _fail(str(error))
    except Exception as error:
        _internal_error(error)
    result, fixes = outcome.check, outcome.fixes
    failures = [*result.errors, *fixes.failures]
    change = next((f for f in fixes.files if not f.generated), None)
    # The project's guard module (`runtime-module`) the fixed buffer imports: written as
    # `fix --write` writes it, or the buffer goes back as it came (an import of a module that
    # does not exist would break the saved server).
    guards = next((f for f in fixes.files if f.generated), None)
    if guards is not None and not diff:
        from mcp_codemod.engine.source_files import SourceError
        from mcp_codemod.fix.apply import FixFailure, write

        try:
            write(guards)
            out.note(f"Wrote the guard module {os.path.relpath(guards.path)}.")
        except SourceError as error:
            failures.append(FixFailure(guards.path, str(error)))
            change = None
    for failure in failures:
        out.finding_note(f"{failure.path}: error: {failure.message}")
    if diff:
        for shown in (change, guards):
            if shown is not None:
                out.echo(shown.diff())
    elif change is not None:
        sys.stdout.buffer.write(change.fixed.encode(change.encoding))
    else:
        sys.stdout.buffer.write(stdin[1])
    fixed = change.fixes if change is not None else 0
    left = [f for f in result.findings if not f.applies(unsafe_fixes)]
    if change is None and fixes.failures:
        left = list(result.findings)
    for finding in left:
        out.finding_note(
            f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {finding.message}"
        )
    from mcp_codemod.report import plural

    broken = _unimportable([change] if change is not None else [], outcome)
    for line in broken:
        out.finding_note(line)
    if broken:
        out.note("The fixed module would not import with the installed mcp (see the errors above).")
    else:
        out.note(f"Fixed {plural(fixed, 'issue')}; {len(left)} left.")
    if result.unchecked:
        out.finding_note(report.unresolved_note(result))
    # As `fix --diff`, a diff that is not empty fails the run.
    failed = bool(
        broken
        or left
        or failures
        or (diff and (change is not None or guards is not None))
        or _exit_code(replace(result, findings=()))
    )
    sys.exit(0 if exit_zero else int(failed))


# How many times `fix --write` fixes again what its own fixes made fixable.
_FIX_ROUNDS = 10


def _fix_again(paths, settings_options, unsafe_fixes: bool, fixer) -> list:
    """The changes of the rounds after the first, written: each round fixes what the files hold
    now, until a round changes nothing."""
    from mcp_codemod import api

    made = []
    for _ in range(_FIX_ROUNDS - 1):
        outcome = api.fix_paths(paths, settings_options, unsafe_fixes=unsafe_fixes)
        changes = [change for change in outcome.fixes.files if not change.generated]
        if not changes or outcome.fixes.failures:
            break
        with _stopped_by_termination(True):
            for change in changes:
                fixer.write(change)
        made += changes
    return made


def _run_fix(
    paths,
    write: bool,
    show_diff: bool,
    unsafe_fixes: bool,
    options,
    out: Output,
    exit_zero: bool = False,
) -> NoReturn:
    from mcp_codemod import api
    from mcp_codemod.engine.scanned_files import display_path
    from mcp_codemod.engine.source_files import SourceError
    from mcp_codemod.fix import apply as fixer  # fixer: only when fixing, `check` does without it
    from mcp_codemod.report import check_output as report
    from mcp_codemod.report import plural

    settings_options = _options(**options)
    try:
        outcome = api.fix_paths(paths, settings_options, unsafe_fixes=unsafe_fixes)
    except api.UsageError as error:
        _fail(str(error))
    except Exception as error:
        _internal_error(error)
    result, fixes = outcome.check, outcome.fixes
    failed = len(result.errors) + len(fixes.failures)
    for error in result.errors:
        out.finding_note(f"{error.path}: error: {error.message}")
    for failure in fixes.failures:
        out.finding_note(f"{failure.path}: error: {failure.message}")
    if show_diff or not write:
        for change in fixes.files:
            out.echo(change.diff())
        # Before any file is written: output that cannot be written stops the run here.
        sys.stdout.flush()
    changed = []
    generated = []
    with _stopped_by_termination(write):
        for change in fixes.files:
            if write:
                try:
                    fixer.write(change)
                except SourceError as error:
                    out.finding_note(f"{change.path}: error: {error}")
                    failed += 1
                    continue
            (generated if change.generated else changed).append(change)
    for note in fixes.outside:
        out.note(note)
    for advice in fixes.advice:
        out.note(f"note: {advice}")
    try:
        written = [*changed, *generated] if write else None
        if write and changed and not failed:
            # A fix can make a finding another rule fixes (an unannotated parameter marked
            # `Annotated[Any, NoPreParse]` is then an untyped schema node): as ruff does, fix
            # again what the fixed files hold, a bounded number of rounds.
            changed += _fix_again(paths, settings_options, unsafe_fixes, fixer)
        after = api.check_after_fix(paths, settings_options, outcome, written)
    except Exception as error:
        _internal_error(error)
    _echo_remaining(after, outcome, paths, unsafe_fixes, out)
    broken = _unimportable(changed, outcome)
    for line in broken:
        out.finding_note(line)
    fixed = sum(change.fixes for change in changed)
    partly = sum(change.partly_fixed for change in changed)
    changed_files = {change.path for change in changed}
    left = sum(not finding.applies(unsafe_fixes) for finding in result.findings)
    hidden = sum(f.fixable and not f.applies(unsafe_fixes) for f in result.findings)
    verb = "Fixed" if write else "Would fix"
    message = f"{verb} {plural(fixed, 'issue')}"
    if partly:
        message += f" and {partly} in part"
    message += f" in {plural(len(changed_files), 'file')}"
    if not changed:
        message = "Nothing to fix"
    elif broken:
        # Never "Fixed" over a server that no longer imports.
        message = (
            f"{'Changed' if write else 'Would change'} {plural(len(changed_files), 'file')}, "
            "but the fixed code would not import with the installed mcp (see the errors above)"
        )
    for module in generated:
        wrote = "wrote" if write else "would write"
        message += f"; {wrote} the guard module {display_path(Path(module.path))}"
    message += "."
    if fixes.incomplete:
        message += f" {fixes.incomplete} need an edit outside the given paths (see the notes)."
    if left:
        message += f" {left} not fixed: see `mcp-codemod check`."
    if hidden:
        message += (
            f" {plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with `--unsafe-fixes`."
        )
    out.note(message)
    if after.unchecked:  # as the fixes leave them: a server they guarded is protected now
        out.finding_note(report.unresolved_note(after))
    if exit_zero:
        sys.exit(0)
    if failed or broken or _exit_code(after):
        sys.exit(1)
    sys.exit(1 if fixes.files and not write else 0)


def _unimportable(changed: list, outcome: api.FixOutcome) -> list[str]:
    """A line per runtime name the fixed files import that the installed mcp lacks."""
    from mcp_codemod.fix import runtime_names

    first: dict[str, str] = {}
    final: dict[str, str] = {}
    for change in changed:  # a later round's text wins; the first round's original is the user's
        first.setdefault(change.path, change.original)
        final[change.path] = change.fixed
    return runtime_names.missing_names(
        [(path, first[path], text) for path, text in final.items()],
        outcome.runtime_modules,
        runtime_names.runtime_exports(),
        runtime_names.installed_mcp(),
    )


def _echo_remaining(
    after: CheckResult, outcome: api.FixOutcome, paths, unsafe_fixes: bool, out: Output
) -> None:
    """Every finding the fixes leave, with the step that fixes it: `fix` never passes over one.
    Kept under --quiet: it is why the run fails."""
    from mcp_codemod.fix.remaining import what_fixes
    from mcp_codemod.report import plural

    if not after.findings:
        return
    resolved: dict[str, Path] = {}

    def writable(path: str) -> bool:
        return resolved.setdefault(path, Path(path).resolve()) in outcome.writable

    given = [str(path) for path in paths]
    lines = [f"{plural(len(after.findings), 'issue')} left after the fixes:"]
    for finding in after.findings:
        where = f"{finding.path}:{finding.line}:{finding.column}"
        lines.append(f"{where}: {finding.code} {finding.message}")
        lines.append(f"  help: {what_fixes(finding, unsafe_fixes, writable, given)}")
    out.finding_note("\n".join(lines))


@contextlib.contextmanager
def _stopped_by_termination(writing: bool) -> Iterator[None]:
    """While writing, SIGTERM and SIGHUP end the run as Ctrl-C does, by an exception: the file
    being written then removes its temporary copy (the default action ends the process on the
    spot, leaving `.NAME.py.XXXX.tmp` in the tree). Only around the writes: the processes the
    analysis forks keep the default action."""
    import signal

    def stop(signum: int, _frame) -> NoReturn:
        raise SystemExit(128 + signum)

    # Windows has no SIGHUP.
    signals = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {number: signal.signal(number, stop) for number in signals} if writing else {}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@main.command(name="rules")
def list_rules() -> None:
    """List the rules."""
    from mcp_codemod.rules import RULES
    from mcp_codemod.rules.model import FixAvailability

    width = max(len(rule.name) for rule in RULES)
    for rule in RULES:
        default = "" if rule.enabled_by_default else "  (off by default)"
        fix = "[*]" if rule.availability is not FixAvailability.NEVER else "   "
        click.echo(f"{rule.code}  {fix} {rule.name:<{width}} {rule.summary}{default}")


@main.command(name="rule")
@click.argument("code")
def explain_rule(code: str) -> None:
    """Explain one rule: what it finds, why it matters, an example and the fix."""
    from mcp_codemod.report.rule_docs import rule_documentation
    from mcp_codemod.rules import RULES_BY_CODE

    rule = RULES_BY_CODE.get(code.strip().upper())
    if rule is None:
        _fail(f"unknown rule {code!r}; `mcp-codemod rules` lists them")
    _echo(rule_documentation(rule))


@main.command(name="probe")
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
        _fail(str(error))
    for tool, reason in result.not_probed:
        click.echo(f"mcp-codemod: tool {tool!r} not probed: {reason}", err=True)
    if not result.tools and not result.not_probed:
        _fail(_nothing_probed(target, imports, result.server))
    click.echo(
        probe_output.probe_json(result, openai_strict, legacy_clients, clients)
        if output_format == "json"
        else probe_output.probe_text(result, openai_strict, legacy_clients, clients)
    )
    opted_in = (
        (openai_strict and result.strict_mode)
        or (legacy_clients and result.lone_refs)
        or (clients and result.client_forms)
    )
    sys.exit(1 if result.failed or opted_in else 0)


@main.command(name="server")
def language_server() -> None:
    """Run the language server on standard input and output, for editors (docs/editors.md):
    diagnostics of the unsaved text, quick fixes, fix-all and hovers."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        _fail("the language server needs pygls: install mcp-codemod with its `lsp` extra")
    from mcp_codemod.lsp.server import serve

    # The console script turns the cycle collector off for a run that ends with the process;
    # a server runs for hours and makes cycles (asyncio's tasks and exceptions).
    gc.enable()
    try:
        serve()
    finally:
        if sys.stdout.closed:  # pygls closes it at `exit`; the exit's flushes then see nothing
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the rest of the process


def _nothing_probed(target: str, imports: tuple[str, ...], server: str) -> str:
    """Why a server has no tools, and the command that loads them: the modules of its package
    that register tools on it, as the static analysis finds them."""
    import shlex

    from mcp_codemod import api
    from mcp_codemod.engine.module_paths import module_name
    from mcp_codemod.probe import targets

    module = targets.target_module(target)
    loaded = sys.modules.get(module)
    where = Path(getattr(loaded, "__file__", None) or ".")
    root = module_name(where)[1] if where.is_file() else Path(".")
    try:
        missing = [name for name in api.tool_modules(module, root) if name not in imports]
    except api.UsageError:
        missing = []
    message = f"probed nothing: server {server!r} has no tools once {module} is loaded"
    if not missing:
        return f"{message}; import the modules that register them with `--import MODULE`"
    command = ["mcp-codemod", "probe", *(f"--import={name}" for name in (*imports, *missing))]
    return (
        f"{message}; {', '.join(missing)} register tools on it: `{shlex.join([*command, target])}`"
    )
