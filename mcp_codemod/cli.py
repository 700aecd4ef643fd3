"""The command line: parse options, run the pipeline, print, choose the exit code. Nothing else.

Exit codes, as ruff's: 0 clean, 1 findings (or files that could not be checked), 2 usage,
configuration or internal error.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from mcp_codemod import __version__, report
from mcp_codemod.cache import default_cache_dir
from mcp_codemod.checker import CheckResult, check_files
from mcp_codemod.discovery import PathError, discover, writable_files
from mcp_codemod.probe import probe_command
from mcp_codemod.rules import RULES, RULES_BY_CODE, select_rules
from mcp_codemod.settings import OUTPUT_FORMATS, ConfigError, Settings, load_settings
from mcp_codemod.sources import SourceError


def _codes(values: tuple[str, ...]) -> list[str] | None:
    codes = [code.strip().upper() for value in values for code in value.split(",") if code.strip()]
    return codes or None


def _fail(message: str) -> NoReturn:
    click.echo(f"mcp-codemod: error: {message}", err=True)
    sys.exit(2)


def _settings(config: Path | None, **overrides) -> Settings:
    try:
        return load_settings(config, overrides)
    except ConfigError as error:
        _fail(str(error))


def _files(paths: tuple[Path, ...], settings: Settings) -> list[Path]:
    try:
        return discover(
            list(paths) or [Path(".")],
            settings.excludes,
            settings.respect_gitignore,
            settings.force_exclude,
        )
    except PathError as error:
        _fail(str(error))


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
    ]
    for option in reversed(options):
        function = option(function)
    return function


def run_check(
    paths, select, ignore, extend_exclude, framework, config, jobs, no_cache, cache_dir, **extra
):
    """Settings, files and the analysis, shared by `check` and `fix`."""
    settings = _settings(
        config,
        select=_codes(select),
        ignore=_codes(ignore),
        extend_exclude=list(extend_exclude) or None,
        framework=framework,
        **extra,
    )
    files = _files(paths, settings)
    rules = select_rules(
        list(settings.select) if settings.select is not None else None, list(settings.ignore)
    )
    cache = None
    if not no_cache:
        cache = cache_dir or settings.cache_dir or default_cache_dir(settings.config_file)
    try:
        return settings, check_files(files, rules, settings.framework, jobs=jobs, cache_dir=cache)
    except Exception as error:  # a bug of ours: one line and exit 2, never a traceback
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
def check(output_format, exit_zero, statistics, **options) -> None:
    """Report tool parameters that the framework or the client mangles."""
    settings, result = run_check(output_format=output_format, **options)
    formatter = report.FORMATTERS.get(settings.output_format)
    if formatter is None:
        click.echo(report.text(result, statistics), nl=False)
    else:
        click.echo(formatter(result), nl=False)
        if result.unresolved:
            click.echo(report.unresolved_note(result), err=True)
    sys.exit(_exit_code(result, exit_zero))


def _exit_code(result: CheckResult, exit_zero: bool) -> int:
    if result.errors:
        return 1
    return 1 if result.findings and not exit_zero else 0


@main.command()
@analysis_options
@click.option("--write", is_flag=True, help="Apply the changes (default: print them as a diff).")
@click.option("--diff", "show_diff", is_flag=True, help="With --write: print the diff too.")
def fix(write: bool, show_diff: bool, **options) -> None:
    """Rewrite fixable findings: guarded annotations and the guarded server class.

    Without --write: print the diff and exit 1 if anything would change. With --write: apply
    it; exit 0 unless a file could not be checked or fixed.
    """
    from mcp_codemod import fixer  # imports libcst only when there is something to fix

    settings, result = run_check(**options)
    # Only files discovery finds under the given paths are written, never a module an import
    # leads to elsewhere.
    writable = writable_files(_files(options["paths"], settings), options["paths"] or [Path(".")])
    outcome = fixer.fix_findings(result, writable)
    failed = len(result.errors) + len(outcome.failures)
    for error in result.errors:
        click.echo(f"{error.path}: error: {error.message}", err=True)
    for failure in outcome.failures:
        click.echo(f"{failure.path}: error: {failure.message}", err=True)
    changed = []
    for change in outcome.files:
        if show_diff or not write:
            click.echo(change.diff(), nl=False)
        if write:
            try:
                fixer.write(change)
            except SourceError as error:
                click.echo(f"{change.path}: error: {error}", err=True)
                failed += 1
                continue
        changed.append(change)
    for note in outcome.outside:
        click.echo(note, err=True)
    for advice in outcome.advice:
        click.echo(f"note: {advice}", err=True)
    fixed = sum(change.fixes for change in changed)
    left = sum(not finding.fixable for finding in result.findings)
    verb = "Fixed" if write else "Would fix"
    message = f"{verb} {report.plural(fixed, 'issue')} in {report.plural(len(changed), 'file')}."
    if not changed:
        message = "Nothing to fix."
    if left:
        message += f" {left} not fixable: see `mcp-codemod check`."
    if outcome.incomplete:
        message += f" {outcome.incomplete} need an edit outside the given paths (see the notes)."
    click.echo(message, err=True)
    if failed:
        sys.exit(1)
    sys.exit(1 if changed and not write else 0)


@main.command(name="rules")
def list_rules() -> None:
    """List the rules."""
    for rule in RULES:
        default = "" if rule.enabled_by_default else "  (off by default)"
        fix = "[*]" if rule.fixable else "   "
        click.echo(f"{rule.code}  {fix} {rule.name:<36} {rule.summary}{default}")


@main.command(name="rule")
@click.argument("code")
def explain_rule(code: str) -> None:
    """Explain one rule: what it finds, why it matters, an example and the fix."""
    rule = RULES_BY_CODE.get(code.strip().upper())
    if rule is None:
        _fail(f"unknown rule {code!r}; `mcp-codemod rules` lists them")
    fixable = "fixable with `mcp-codemod fix --write`" if rule.fixable else "not fixable"
    default = "enabled by default" if rule.enabled_by_default else "off by default"
    click.echo(
        f"# {rule.code} ({rule.name})\n\n{rule.summary}. {default.capitalize()}; {fixable}.\n\n"
        f"## Why is this bad?\n{rule.why}\n\n## Example\n```python\n{rule.before}```\n\n"
        f"## Fixed\n```python\n{rule.after}```\n\n## Fix\n{rule.fix}\n"
    )


main.add_command(probe_command)
