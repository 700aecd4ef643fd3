"""The library layer: what the command line does, as functions that return data.

`check_paths` and `fix_paths` read the configuration as `mcp-codemod check`/`fix` do, find the
files, run the analysis and return what the commands print; the CLI, the corpus and benchmark
scripts and a project's own tooling all call them. Bad options and configuration raise
`UsageError` (the CLI's exit code 2); per-file problems are data in the result, never exceptions.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_codemod.engine.checker import CheckResult, check_files
from mcp_codemod.engine.discovery import PathError, discover, force_excluded, writable_files
from mcp_codemod.engine.facts_cache import default_cache_dir
from mcp_codemod.engine.project import Discovery
from mcp_codemod.engine.settings import ConfigError, Settings, load_settings
from mcp_codemod.engine.source_files import SourceError
from mcp_codemod.rules import select_rules

if TYPE_CHECKING:
    from mcp_codemod.fix.apply import FileFix, FixResult

__all__ = [
    "CheckResult",
    "FixOutcome",
    "UsageError",
    "check_after_fix",
    "check_paths",
    "fix_paths",
]


class UsageError(Exception):
    """Options, configuration or paths that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Options:
    """What `check` and `fix` share: the command-line options (None: the configuration's)."""

    config: Path | None = None
    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    extend_exclude: Sequence[str] | None = None
    framework: str | None = None
    output_format: str | None = None
    force_exclude: bool | None = None
    jobs: int | None = None
    cache: bool = True
    cache_dir: Path | None = None


def settings_for(options: Options) -> Settings:
    try:
        return load_settings(
            options.config,
            {
                "select": _codes(options.select),
                "ignore": _codes(options.ignore),
                "extend_exclude": list(options.extend_exclude or ()) or None,
                "framework": options.framework,
                "output_format": options.output_format,
                "force_exclude": options.force_exclude,
            },
        )
    except ConfigError as error:
        raise UsageError(str(error)) from None


def check_paths(
    paths: Sequence[str | Path] = (),
    options: Options | None = None,
    *,
    stdin: tuple[Path, bytes] | None = None,
) -> tuple[Settings, CheckResult]:
    """The findings under `paths` (default: the working directory), as `mcp-codemod check`.
    `stdin`: instead of `paths`, one module's bytes and the path it stands for (which need
    not exist: editors pass unsaved buffers)."""
    settings, _files, result = _check(paths, options or Options(), stdin)
    return settings, result


def _check(
    paths: Sequence[str | Path],
    options: Options,
    stdin: tuple[Path, bytes] | None,
    overlay: dict[Path, bytes] | None = None,
) -> tuple[Settings, list[Path], CheckResult]:
    """The settings, the files discovered (discovery runs once per command) and the result.
    `overlay`: texts that discovered files would have (by resolved path), read instead of theirs."""
    settings = settings_for(options)
    real_paths: dict[str, str] = {}
    if stdin is None:
        files = _discover(paths, settings, real_paths)
    elif settings.force_exclude and force_excluded(
        stdin[0], settings.excludes, settings.respect_gitignore
    ):
        files = []  # as ruff: an editor passing an excluded file's buffer gets no findings
    else:
        files = [stdin[0]]
    unsaved = {stdin[0]: stdin[1]} if stdin is not None else {}
    if overlay:
        unsaved |= {file: overlay[file.resolve()] for file in files if file.resolve() in overlay}
    walked = () if stdin is not None else _walked(paths)
    rules = select_rules(
        list(settings.select) if settings.select is not None else None, list(settings.ignore)
    )
    cache = None
    if options.cache:
        cache = options.cache_dir or settings.cache_dir or default_cache_dir(settings.config_file)
    result = check_files(
        files,
        rules,
        settings.framework,
        jobs=options.jobs,
        cache_dir=cache,
        unsaved=unsaved,
        runtime_copy=settings.runtime_module,
        discovery=Discovery(walked, settings.excludes, settings.respect_gitignore, real_paths),
    )
    return settings, files, result


def _walked(paths: Sequence[str | Path]) -> tuple[Path, ...]:
    """The directories discovery walked, resolved."""
    given = [Path(p) for p in paths] or [Path(".")]
    return tuple(path.resolve() for path in given if path.is_dir())


def _discover(
    paths: Sequence[str | Path], settings: Settings, real_paths: dict[str, str] | None = None
) -> list[Path]:
    try:
        return discover(
            [Path(p) for p in paths] or [Path(".")],
            settings.excludes,
            settings.respect_gitignore,
            settings.force_exclude,
            real_paths,
        )
    except PathError as error:
        raise UsageError(str(error)) from None


@dataclass(frozen=True)
class FixOutcome:
    check: CheckResult
    fixes: FixResult  # the changed files (not written yet), per-file failures, advice
    writable: frozenset[Path] = frozenset()  # the files (resolved) the fixes may edit


def fix_paths(
    paths: Sequence[str | Path] = (),
    options: Options | None = None,
    *,
    unsafe_fixes: bool = False,
) -> FixOutcome:
    """The changes `mcp-codemod fix` would make (nothing is written: `fixer.write` does that).
    Only files discovery finds under `paths` are changed, never a module an import leads to
    elsewhere: an edit there is a note in the result."""
    # The fixer is imported only when fixing: `check`'s start-up (a warm run is mostly start-up)
    # does not pay for it.
    from mcp_codemod.fix.apply import fix_findings
    from mcp_codemod.fix.guard_module import guard_module_change
    from mcp_codemod.fix.imports import RUNTIME

    settings, files, result = _check(paths, options or Options(), None)
    given = [Path(p) for p in paths] or [Path(".")]
    writable = writable_files(files, given)
    applicable = tuple(f for f in result.findings if f.applies(unsafe_fixes))
    runtime = settings.runtime_module or RUNTIME
    fixes = fix_findings(applicable, result.digests, writable, runtime=runtime)
    if settings.runtime_module is None:
        return FixOutcome(result, fixes, writable)
    try:
        guards = guard_module_change(
            settings.runtime_module, settings.config_file, needed=bool(fixes.files)
        )
    except ConfigError as error:
        raise UsageError(str(error)) from None
    except SourceError as error:
        raise UsageError(f"`runtime-module` {settings.runtime_module}: {error}") from None
    if guards is not None:
        fixes = replace(fixes, files=(*fixes.files, guards))
    return FixOutcome(result, fixes, writable)


def check_after_fix(
    paths: Sequence[str | Path],
    options: Options,
    outcome: FixOutcome,
    written: Collection[FileFix] | None,
) -> CheckResult:
    """What `check` reports on `paths` once the fixes are made: after `written` (the changes
    written to disk), or, when nothing was written (a dry run), with every change's text in
    place of its file's. `fix` succeeds only if this is clean: a fix that could not be applied
    (an edit outside the paths, an unsafe fix not enabled, a file that could not be written)
    leaves its finding here."""
    if written is not None:
        if not written:
            return outcome.check
        return _check(paths, options, None)[2]
    if not outcome.fixes.files:
        return outcome.check
    overlay = {
        Path(change.path).resolve(): change.fixed.encode(change.encoding)
        for change in outcome.fixes.files
    }
    return _check(paths, options, None, overlay)[2]


def tool_modules(server_module: str, root: Path) -> tuple[str, ...]:
    """The modules under `root` that define tools on a server made in `server_module` (by the
    static analysis, as `check` finds them), other than that module: what the probe has to
    import to see every tool."""
    from mcp_codemod.engine.module_paths import module_name

    _settings, result = check_paths([root], Options(cache=False))
    return tuple(
        sorted(
            {
                name
                for server, path in result.tool_files
                if server == server_module and (name := module_name(Path(path))[0]) != server_module
            }
        )
    )


def _codes(values: Sequence[str] | None) -> list[str] | None:
    codes = [c.strip().upper() for value in values or () for c in value.split(",") if c.strip()]
    return codes or None
