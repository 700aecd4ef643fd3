"""The command line: parse options, run the pipeline, print, choose the exit code. Nothing else.

Each command imports what it runs: `--version` and `--help` start without the analysis.

Exit codes, as ruff's: 0 clean, 1 findings (or files that could not be checked), 2 usage,
configuration or internal error.
"""

from __future__ import annotations

import errno
import gc
import os
import sys
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
            help="pyproject.toml to read [tool.mcp-codemod] from (default: the closest one).",
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
            "--unsafe-fixes",
            is_flag=True,
            help="Apply (and mark with [*]) the fixes that can change what a correct tool receives.",
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
            # what escapes them is the output's. The interpreter's last flush would fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            if error.errno == errno.EPIPE:
                sys.exit(1)
            _fail(f"cannot write the output: {error.strerror or error}")


# Whether this process ends with `os._exit` (the console script, `run`), not in the hands of a
# caller that goes on (`main` called from Python, the tests).
_ends_with_exit = False


def run() -> NoReturn:
    """The console script: `main`, then the process ends without the interpreter's teardown.
    Freeing a run's millions of objects one by one and unloading every module took longer
    than reporting; the output is flushed first, and nothing is left to close (the cache is
    written, the worker processes are joined, before the report). Nor does the process need
    the cycle collector: the analysis and the fixes run without it (`cycle_collection`), and
    turned on after them it would only go over their objects once more before the exit."""
    global _ends_with_exit
    _ends_with_exit = True
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
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            code = code or 2  # the output that could not be written was reported already
    os._exit(code)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcp-codemod")
def main() -> None:
    """Find and fix MCP tool parameters that the server framework or the client mangles."""


@main.command()
@analysis_options
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    help="How to print findings (default: text).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are reported.")
@click.option("--statistics", is_flag=True, help="Print counts per rule instead of each finding.")
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply the fixes: `fix --write`.")
@click.option(
    "--stdin-filename",
    type=click.Path(path_type=Path),
    help="With the path `-`: the file name of the source read from standard input.",
)
def check(
    paths,
    output_format,
    exit_zero,
    statistics,
    apply_fixes,
    stdin_filename,
    unsafe_fixes,
    **options,
) -> None:
    """Report tool parameters that the framework or the client mangles.

    PATHS default to the working directory; `-` reads one module from standard input.
    """
    from mcp_codemod import api
    from mcp_codemod.engine import process_exit
    from mcp_codemod.report import check_output as report

    if _ends_with_exit and not apply_fixes:
        # The report is all that is left to do: the run's objects can wait for the exit. (Not
        # when fixing first: the fixes' syntax trees would be made beside them.)
        process_exit.leave_to_exit()
    if apply_fixes:
        if Path("-") in paths:
            _fail("--fix cannot rewrite standard input; run `mcp-codemod fix` on the file")
        _run_fix(paths, write=True, show_diff=False, unsafe_fixes=unsafe_fixes, options=options)
    settings_options = _options(output_format=output_format, **options)
    try:
        stdin = _stdin(paths, stdin_filename)
        settings, result = api.check_paths(paths, settings_options, stdin=stdin)
    except api.UsageError as error:
        _fail(str(error))
    except Exception as error:
        _internal_error(error)
    fmt = settings.output_format
    if statistics and fmt == "json":
        _echo(report.statistics_json(result, unsafe_fixes))
    elif statistics or fmt not in report.FORMATTERS:
        # Statistics are a table or JSON, as ruff's: the annotation formats have no place for them.
        _echo(report.text(result, statistics, unsafe_fixes))
    else:
        _echo(report.FORMATTERS[fmt](result))
        if result.unresolved:
            click.echo(report.unresolved_note(result), err=True)
    sys.exit(_exit_code(result, exit_zero))


def _stdin(paths: tuple[Path, ...], filename: Path | None) -> tuple[Path, bytes] | None:
    if Path("-") not in paths:
        if filename is not None:
            _fail("--stdin-filename needs the path `-`")
        return None
    if len(paths) > 1:
        _fail("`-` (standard input) cannot be combined with other paths")
    return (filename or Path("stdin.py"), sys.stdin.buffer.read())


def _echo(text: str) -> None:
    click.echo(text, nl=False)


def _exit_code(result: CheckResult, exit_zero: bool) -> int:
    if result.errors:
        return 1
    if any(tool.server.framework is None for tool in result.unchecked):
        # Tools on a server that may pre-parse went unchecked, and no finding says so.
        return 1
    return 1 if result.findings and not exit_zero else 0


@main.command()
@analysis_options
@click.option("--write", is_flag=True, help="Apply the changes (default: print them as a diff).")
@click.option("--diff", "show_diff", is_flag=True, help="With --write: print the diff too.")
def fix(paths, write: bool, show_diff: bool, unsafe_fixes: bool, **options) -> None:
    """Rewrite fixable findings: guarded annotations and the guarded server class.

    Without --write: print the diff and exit 1 if anything would change. With --write: apply
    it; exit 0 unless a file could not be checked or fixed.
    """
    _run_fix(paths, write, show_diff, unsafe_fixes, options)


def _run_fix(paths, write: bool, show_diff: bool, unsafe_fixes: bool, options) -> NoReturn:
    from mcp_codemod import api
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
        click.echo(f"{error.path}: error: {error.message}", err=True)
    for failure in fixes.failures:
        click.echo(f"{failure.path}: error: {failure.message}", err=True)
    changed = []
    for change in fixes.files:
        if show_diff or not write:
            _echo(change.diff())
        if write:
            try:
                fixer.write(change)
            except SourceError as error:
                click.echo(f"{change.path}: error: {error}", err=True)
                failed += 1
                continue
        changed.append(change)
    for note in fixes.outside:
        click.echo(note, err=True)
    for advice in fixes.advice:
        click.echo(f"note: {advice}", err=True)
    try:
        after = api.check_after_fix(paths, settings_options, outcome, changed if write else None)
    except Exception as error:
        _internal_error(error)
    _echo_remaining(after, outcome, paths, unsafe_fixes)
    fixed = sum(change.fixes for change in changed)
    left = sum(not finding.applies(unsafe_fixes) for finding in result.findings)
    hidden = sum(f.fixable and not f.applies(unsafe_fixes) for f in result.findings)
    verb = "Fixed" if write else "Would fix"
    message = f"{verb} {plural(fixed, 'issue')} in {plural(len(changed), 'file')}."
    if not changed:
        message = "Nothing to fix."
    if fixes.incomplete:
        message += f" {fixes.incomplete} need an edit outside the given paths (see the notes)."
    if left:
        message += f" {left} not fixed: see `mcp-codemod check`."
    if hidden:
        message += (
            f" {plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with `--unsafe-fixes`."
        )
    click.echo(message, err=True)
    if after.unchecked:  # as the fixes leave them: a server they guarded is protected now
        click.echo(report.unresolved_note(after), err=True)
    if failed or _exit_code(after, exit_zero=False):
        sys.exit(1)
    sys.exit(1 if changed and not write else 0)


def _echo_remaining(after: CheckResult, outcome: api.FixOutcome, paths, unsafe_fixes) -> None:
    """Every finding the fixes leave, with the step that fixes it: `fix` never passes over one."""
    from mcp_codemod.fix.remaining import what_fixes
    from mcp_codemod.report import plural

    if not after.findings:
        return
    resolved: dict[str, Path] = {}

    def writable(path: str) -> bool:
        return resolved.setdefault(path, Path(path).resolve()) in outcome.writable

    given = [str(path) for path in paths]
    click.echo(f"{plural(len(after.findings), 'issue')} left after the fixes:", err=True)
    for finding in after.findings:
        click.echo(
            f"{finding.path}:{finding.line}:{finding.column}: {finding.code} ", err=True, nl=False
        )
        click.echo(finding.message, err=True)
        click.echo(f"  help: {what_fixes(finding, unsafe_fixes, writable, given)}", err=True)


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
def probe_command(target: str, output_format: str, imports: tuple[str, ...]) -> None:
    """Run every tool's argument validation on values the framework is known to mangle.

    TARGET names a server object: path/to/server.py:attr or package.module:attr (an mcp
    FastMCP or MCPServer, or a fastmcp.FastMCP); without :attr, the module's one server. For
    every registered tool, "null", "[1]" and '{"a": 1}' go to each parameter that takes text,
    5.0 to each integer parameter, and the JSON text of an array or object to each structured
    parameter; input schemas are checked for arrays without `items`. Tool bodies are never run.
    Exit 1 when an argument arrives changed or is rejected or a schema has such an array, 2
    when TARGET cannot be loaded or has no tools to probe.
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
        probe_output.probe_json(result)
        if output_format == "json"
        else probe_output.probe_text(result)
    )
    sys.exit(1 if result.failed else 0)


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
