"""The library layer: what the command line does, as functions that return data.

`check_paths` and `fix_paths` read the configuration as `mcp-codemod check`/`fix` do, find the
files, run the analysis and return what the commands print; the CLI, the corpus and benchmark
scripts and a project's own tooling all call them. Bad options and configuration raise
`UsageError` (the CLI's exit code 2); per-file problems are data in the result, never exceptions.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_codemod.engine.checker import CheckResult, check_files
from mcp_codemod.engine.discovery import (
    DiscoveryScope,
    Exclusion,
    PathError,
    discover,
    force_excluded,
    writable_files,
)
from mcp_codemod.engine.facts_cache import default_cache_dir
from mcp_codemod.engine.settings import ConfigError, Settings, SettingsResolver
from mcp_codemod.rules import ChosenRules

if TYPE_CHECKING:
    from mcp_codemod.engine.file_facts import KnownScans
    from mcp_codemod.fix.apply import FileFix, FixResult
    from mcp_codemod.fix.noqa import NoqaResult

__all__ = [
    "CheckResult",
    "FixOutcome",
    "UsageError",
    "add_noqa_paths",
    "check_after_fix",
    "check_paths",
    "fix_again",
    "fix_paths",
]


class UsageError(Exception):
    """Options, configuration or paths that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Options:
    """What `check` and `fix` share: the command-line options (None: the configuration's)."""

    config: Path | None = None
    select: Sequence[str] | None = None
    extend_select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    extend_exclude: Sequence[str] | None = None
    framework: str | None = None
    output_format: str | None = None
    force_exclude: bool | None = None
    jobs: int | None = None
    cache: bool = True
    cache_dir: Path | None = None
    max_file_size: int | None = None
    # Without a configuration file, where the cache is kept (None: the working directory). The
    # language server keeps it in the document's workspace folder.
    project: Path | None = None


def resolver_for(options: Options) -> SettingsResolver:
    """The settings of each file: its closest configuration, then the options."""
    try:
        return SettingsResolver(
            options.config,
            {
                "select": _codes(options.select),
                "extend_select": _codes(options.extend_select),
                "ignore": _codes(options.ignore),
                "extend_exclude": list(options.extend_exclude or ()) or None,
                "framework": options.framework,
                "output_format": options.output_format,
                "force_exclude": options.force_exclude,
                "max_file_size": options.max_file_size,
            },
        )
    except ConfigError as error:
        raise UsageError(str(error)) from None


def settings_for(options: Options) -> Settings:
    """The settings of the run itself (its output format): the working directory's."""
    try:
        return resolver_for(options).run_settings()
    except ConfigError as error:
        raise UsageError(str(error)) from None


@dataclass(frozen=True)
class Group:
    """The files of one project (one configuration) and what checking them found."""

    settings: Settings
    files: list[Path]
    result: CheckResult


def check_paths(
    paths: Sequence[str | Path] = (),
    options: Options | None = None,
    *,
    stdin: tuple[Path, bytes] | None = None,
) -> tuple[Settings, CheckResult]:
    """The findings under `paths` (default: the working directory), as `mcp-codemod check`.
    `stdin`: instead of `paths`, one module's bytes and the path it stands for (which need
    not exist: editors pass unsaved buffers)."""
    settings, groups = _check(paths, options or Options(), stdin)
    return settings, merged([_with_missing_guard_module(group) for group in groups])


def _with_missing_guard_module(group: Group) -> Group:
    """The group's result with an error for each file that imports the project's guard module
    (`runtime-module`) while it does not exist: such a file cannot run, and no check of it
    passes until `fix` writes the module."""
    settings, result = group.settings, group.result
    if settings.runtime_module is None or not result.guard_imports:
        return group
    from mcp_codemod.fix.guard_module import guard_module_path  # only then: the fixer's

    module = settings.runtime_module
    try:
        path: Path | None = guard_module_path(module, settings.config_file)
    except ConfigError:
        path = None
    if path is not None and path.is_file():
        return group
    where = f" at {path}" if path is not None else ""
    message = (
        f"imports the guard module `{module}` (`runtime-module`), which does not exist{where}: "
        "`mcp-codemod fix --write` writes it"
    )
    from mcp_codemod.rules.findings import FileError

    errors = [FileError(file, message) for file in result.guard_imports]
    result = replace(result, errors=tuple(sorted((*result.errors, *errors))))
    return Group(settings, group.files, result)


def discovered_files(
    paths: Sequence[str | Path], options: Options | None = None
) -> list[tuple[Path, Settings]]:
    """Each file `check` would look at under `paths`, with its settings (`--show-files`)."""
    resolver = resolver_for(options or Options())
    try:
        files = _discover(paths, resolver, None)
        return [(file, resolver.settings_of_file(file)) for file in files]
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _check(
    paths: Sequence[str | Path],
    options: Options,
    stdin: tuple[Path, bytes] | None,
    overlay: dict[Path, bytes] | None = None,
    scans: KnownScans | None = None,
) -> tuple[Settings, list[Group]]:
    """The run's settings and, per configuration, the files discovered (discovery runs once
    per command) and what checking them found. Each group is analysed as a project of its
    own: its configuration chooses the rules, the framework and the runtime module.
    `overlay`: texts that discovered files would have (by resolved path), read instead of
    theirs; `scans`: what the earlier checks of a `fix` run scanned (`check_files`)."""
    resolver = resolver_for(options)
    try:
        run_settings = resolver.run_settings()
        real_paths: dict[str, str] = {}
        unreadable: list[tuple[Path, str]] = []
        if stdin is None:
            files = _discover(paths, resolver, real_paths, unreadable)
        else:
            settings = resolver.settings_of_file(stdin[0])
            if settings.force_exclude and force_excluded(stdin[0], _exclusion(settings)):
                files = []  # as ruff: an editor passing an excluded file's buffer gets no findings
            else:
                files = [stdin[0]]
        by_settings: dict[int, tuple[Settings, list[Path]]] = {}
        in_directory: dict[str, Settings] = {}  # the settings of a file are its directory's
        for file in files:
            directory = os.path.dirname(file)
            settings = in_directory.get(directory)
            if settings is None:
                settings = in_directory[directory] = resolver.settings_of_file(file)
            by_settings.setdefault(id(settings), (settings, []))[1].append(file)
        if not by_settings:
            by_settings[0] = (resolver.settings_of_file(Path(paths[0] if paths else ".")), [])
    except ConfigError as error:
        raise UsageError(str(error)) from None
    walked = () if stdin is not None else _walked(paths)
    unsaved = {stdin[0]: stdin[1]} if stdin is not None else {}
    if overlay:
        unsaved |= {file: overlay[file.resolve()] for file in files if file.resolve() in overlay}
    groups = []
    for settings, group_files in by_settings.values():
        cache = None
        if options.cache:
            cache = (
                options.cache_dir
                or settings.cache_dir
                or default_cache_dir(settings.config_file, options.project)
            )
        result = check_files(
            group_files,
            ChosenRules(
                (layer.select, layer.extend_select, layer.ignore) for layer in settings.rule_layers
            ),
            settings.framework,
            jobs=options.jobs,
            cache_dir=cache,
            unsaved=unsaved,
            runtime_copy=settings.runtime_module,
            max_file_size=settings.max_file_size,
            discovery=DiscoveryScope(
                walked, settings.excludes, settings.respect_gitignore, real_paths
            ),
            scans=scans,
        )
        groups.append(Group(settings, group_files, _without_ignored(result, resolver)))
    if unreadable:  # what is in them went unchecked: each is an error, as an unreadable file
        from mcp_codemod.rules.findings import FileError

        errors = [FileError(os.path.relpath(path), message) for path, message in unreadable]
        first = groups[0]
        result = replace(first.result, errors=tuple(sorted((*first.result.errors, *errors))))
        groups[0] = Group(first.settings, first.files, result)
    return run_settings, groups


def _without_ignored(result: CheckResult, resolver: SettingsResolver) -> CheckResult:
    """The findings less those `per-file-ignores` turns off in their file."""
    kept = []
    ignored_in: dict[str, frozenset[str] | None] = {}  # by path: a file has many findings
    for finding in result.findings:
        if finding.path not in ignored_in:
            absolute = os.path.abspath(finding.path)
            ignored_in[finding.path] = resolver.settings_of_file(absolute).ignored_in(absolute)
        ignored = ignored_in[finding.path]
        if ignored is None or not any(
            code == "ALL" or finding.code.startswith(code) for code in ignored
        ):
            kept.append(finding)
    if len(kept) == len(result.findings):
        return result
    ignored = len(result.findings) - len(kept)
    return replace(result, findings=tuple(kept), suppressed=result.suppressed + ignored)


def merged(groups: Sequence[Group]) -> CheckResult:
    """One result for the groups of a run."""
    if len(groups) == 1:
        return groups[0].result
    results = [group.result for group in groups]
    return CheckResult(
        findings=tuple(sorted(f for r in results for f in r.findings)),
        errors=tuple(sorted(e for r in results for e in r.errors)),
        files=sum(r.files for r in results),
        tools=sum(r.tools for r in results),
        unchecked=tuple(u for r in results for u in r.unchecked),
        suppressed=sum(r.suppressed for r in results),
        digests={key: value for r in results for key, value in r.digests.items()},
        tool_files=tuple(sorted({pair for r in results for pair in r.tool_files})),
        guard_imports=tuple(sorted({path for r in results for path in r.guard_imports})),
        work=sum(r.work for r in results),
    )


def _walked(paths: Sequence[str | Path]) -> tuple[Path, ...]:
    """The directories discovery walked, resolved."""
    given = [Path(p) for p in paths] or [Path(".")]
    return tuple(path.resolve() for path in given if path.is_dir())


def _exclusion(settings: Settings) -> Exclusion:
    return Exclusion(
        settings.excludes, settings.respect_gitignore, settings.force_exclude, settings.root
    )


def _discover(
    paths: Sequence[str | Path],
    resolver: SettingsResolver,
    real_paths: dict[str, str] | None = None,
    unreadable: list[tuple[Path, str]] | None = None,
) -> list[Path]:
    exclusions: dict[int, Exclusion] = {}

    def exclusion_at(directory: str) -> Exclusion:
        settings = resolver.settings_at(directory)
        if id(settings) not in exclusions:
            exclusions[id(settings)] = _exclusion(settings)
        return exclusions[id(settings)]

    try:
        return discover(
            [Path(p) for p in paths] or [Path(".")],
            real_paths=real_paths,
            exclusion_at=exclusion_at,
            unreadable=unreadable,
        )
    except PathError as error:
        raise UsageError(str(error)) from None


@dataclass(frozen=True)
class FixOutcome:
    check: CheckResult
    fixes: FixResult  # the changed files (not written yet), per-file failures, advice
    writable: frozenset[Path] = frozenset()  # the files (resolved) the fixes may edit
    # The modules the fixed code imports the runtime from: `mcp_codemod.runtime`, and each
    # configuration's `runtime-module`.
    runtime_modules: frozenset[str] = frozenset()
    # What the run's scans found, for the checks after the fixes (`fix_paths(rechecked=True)`).
    scans: KnownScans | None = None


def fix_paths(
    paths: Sequence[str | Path] = (),
    options: Options | None = None,
    *,
    unsafe_fixes: bool = False,
    stdin: tuple[Path, bytes] | None = None,
    rechecked: bool = False,
) -> FixOutcome:
    """The changes `mcp-codemod fix` would make (nothing is written: `fixer.write` does that).
    Only files discovery finds under `paths` are changed, never a module an import leads to
    elsewhere: an edit there is a note in the result. `stdin`: fix one module's bytes instead
    (the change's path is the name it stands for; nothing else is changed). `rechecked`: the
    fixed files will be checked again in this process (`fix_workflow.apply_fixes`): the
    outcome keeps what the scans found for those checks, and the scan of each fixed text, made
    from the tree parsed to confirm that it parses (`FixOutcome.scans`)."""
    from mcp_codemod.engine.file_facts import KnownScans

    return _fix_paths(paths, options, unsafe_fixes, stdin, KnownScans() if rechecked else None)


def fix_again(
    outcome: FixOutcome,
    paths: Sequence[str | Path],
    options: Options | None = None,
    *,
    unsafe_fixes: bool = False,
) -> FixOutcome:
    """`fix_paths` once `outcome`'s changes are written (`fix`'s next round): what its scans
    found is reused, and kept for the checks after."""
    return _fix_paths(paths, options, unsafe_fixes, None, outcome.scans)


def _fix_paths(
    paths: Sequence[str | Path],
    options: Options | None,
    unsafe_fixes: bool,
    stdin: tuple[Path, bytes] | None,
    scans: KnownScans | None,
) -> FixOutcome:
    # The fixer is imported only when fixing: `check`'s start-up (a warm run is mostly start-up)
    # does not pay for it.
    from mcp_codemod.engine.file_io import SourceError
    from mcp_codemod.fix.apply import FixResult, fix_findings
    from mcp_codemod.fix.guard_module import guard_module_change
    from mcp_codemod.fix.imports.dependents import Importers
    from mcp_codemod.fix.imports.plan import RUNTIME

    _settings, groups = _check(paths, options or Options(), stdin, scans=scans)
    given = [Path(p) for p in paths] or [Path(".")]
    if stdin is not None:
        given = [stdin[0]]
    parts: list[FixResult] = []
    all_writable: set[Path] = set()
    runtimes = {RUNTIME}
    for group in groups:
        settings, result = group.settings, group.result
        writable = writable_files(group.files, given)
        all_writable |= writable
        applicable = tuple(f for f in result.findings if f.applies(unsafe_fixes))
        runtime = settings.runtime_module or RUNTIME
        runtimes.add(runtime)
        importers = Importers(settings.excludes, settings.respect_gitignore)
        fixes = fix_findings(
            applicable,
            result.digests,
            writable,
            runtime=runtime,
            importers=importers,
            unsaved=_unsaved(stdin),
            scans=scans,
        )
        if settings.runtime_module is not None:
            # Also for a buffer (`check --fix -`, format on save): the fixed text imports it.
            try:
                guards = guard_module_change(
                    settings.runtime_module,
                    settings.config_file,
                    needed=bool(fixes.files or result.guard_imports),
                    fixed=[change.path for change in fixes.files] or list(result.guard_imports),
                )
            except ConfigError as error:
                raise UsageError(str(error)) from None
            except SourceError as error:
                raise UsageError(f"`runtime-module` {settings.runtime_module}: {error}") from None
            if guards is not None:
                fixes = replace(fixes, files=(*fixes.files, guards))
        parts.append(fixes)
    fixes = parts[0]
    for part in parts[1:]:
        fixes = FixResult(
            files=(*fixes.files, *part.files),
            failures=(*fixes.failures, *part.failures),
            advice=(*fixes.advice, *part.advice),
            outside=(*fixes.outside, *part.outside),
            incomplete=fixes.incomplete + part.incomplete,
        )
    return FixOutcome(merged(groups), fixes, frozenset(all_writable), frozenset(runtimes), scans)


def add_noqa_paths(
    paths: Sequence[str | Path] = (), options: Options | None = None
) -> tuple[Settings, CheckResult, NoqaResult]:
    """`check --add-noqa`: the findings under `paths`, and the codes added on their lines,
    written under `fix --write`'s rules (only files discovery found under `paths`, compare and
    swap against the bytes checked, owner and mode kept)."""
    from mcp_codemod.fix.noqa import add_noqa

    settings, groups = _check(paths, options or Options(), None)
    given = [Path(p) for p in paths] or [Path(".")]
    writable = frozenset(path for group in groups for path in writable_files(group.files, given))
    result = merged(groups)
    return settings, result, add_noqa(result.findings, result.digests, writable)


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
        return merged(_check(paths, options, None, scans=outcome.scans)[1])
    if not outcome.fixes.files:
        return outcome.check
    overlay = {
        Path(change.path).resolve(): change.fixed.encode(change.encoding)
        for change in outcome.fixes.files
    }
    return merged(_check(paths, options, None, overlay, outcome.scans)[1])


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


def _unsaved(stdin: tuple[Path, bytes] | None) -> dict[str, bytes] | None:
    return {os.path.abspath(stdin[0]): stdin[1]} if stdin is not None else None


def _codes(values: Sequence[str] | None) -> list[str] | None:
    codes = [c.strip().upper() for value in values or () for c in value.split(",") if c.strip()]
    return codes or None
