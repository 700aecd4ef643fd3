"""The analysis pipeline: files → module facts → linked tool parameters → findings.

Reading a file and the textual prefilter cost little; parsing is what costs. So a file is parsed
only when it can matter (the prefilter, or an import that leads to it), once per content (the
cache), and the parses of a run share the machine's cores (`parallel`). Linking and the rules then
run in this process over plain `ModuleFacts`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.engine.cycle_collection import without_cycle_collection
from mcp_codemod.engine.discovery import DiscoveryScope
from mcp_codemod.engine.facts_cache import FactsCache
from mcp_codemod.engine.run_cache import RunCache, Witness
from mcp_codemod.engine.settings import DEFAULT_MAX_FILE_SIZE
from mcp_codemod.rules import ChosenRules

# Only for their names here: a run the run cache answers imports neither the analysis nor the
# rules (their data classes are most of a warm run's start-up); `_check` imports what a run
# that is not answered uses.
if TYPE_CHECKING:
    from mcp_codemod.analysis.facts import ModuleFacts
    from mcp_codemod.analysis.subjects import (
        LinkResult,
        RegisteredTool,
        ServerTools,
        ToolParameter,
        UncheckedRegistration,
    )
    from mcp_codemod.engine.declared_sdk import DeclaredSdk
    from mcp_codemod.engine.file_facts import KnownScans
    from mcp_codemod.rules.findings import FileError, Finding
    from mcp_codemod.rules.model import Rule


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...]
    errors: tuple[FileError, ...]
    files: int  # files considered
    tools: int  # tool registrations found
    unchecked: tuple[UncheckedRegistration, ...]  # registrations whose tools were not checked
    # Findings a `noqa` comment or `per-file-ignores` turned off: the user's decision, but not a
    # run in which every check passed.
    suppressed: int = 0
    # The hash (cache.digest) of the bytes analysed, per absolute path of a given file: `fix`
    # rewrites a file only while it still holds exactly those bytes.
    digests: Mapping[str, bytes] = field(default_factory=dict)
    # (module where a server is made, file that defines a tool on it), for every tool with
    # parameters: what the probe must import besides the server's module.
    tool_files: tuple[tuple[str, str], ...] = ()
    # The checked files that import the project's guard module (the `runtime-module` setting):
    # while it does not exist they cannot run, and no check of theirs passes.
    guard_imports: tuple[str, ...] = ()
    # The steps of resolution linking took (analysis/link/work.py): what tests of growth count.
    work: int = 0

    @property
    def unprotected(self) -> tuple[UncheckedRegistration, ...]:
        """Unchecked registrations that nothing is known to protect: on a server of unknown
        framework, or on a pre-parsing server that is not guarded."""
        return tuple(
            tool
            for tool in self.unchecked
            if tool.server.framework is None or tool.server.framework.pre_parses_json
        )


def check_files(
    files: list[Path],
    rules: Sequence[Rule],
    framework: Framework | None = None,
    *,
    prefilter: bool = True,
    jobs: int | None = None,
    cache_dir: Path | None = None,
    unsaved: dict[Path, bytes] | None = None,
    runtime_copy: str | None = None,
    discovery: DiscoveryScope | None = None,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    scans: KnownScans | None = None,
) -> CheckResult:
    """`prefilter=False` parses every file (to verify that the prefilter loses nothing);
    `rules`: a tuple, or `ChosenRules` (chosen only when the run cache does not answer);
    `jobs`: processes for parsing (default: one per core; 1: none); `cache_dir`: where facts are
    kept between runs (None: nowhere); `unsaved`: the bytes of given files, instead of what is
    on disk (an editor's buffer); `runtime_copy`: the project's copy of mcp_codemod.runtime
    (the `runtime-module` setting), whose names count as the runtime's; `discovery`: how `files`
    were found (default: given one by one, with the default exclusions), which tells where to
    look for registrars' callers; `max_file_size`: larger files that could matter are reported,
    not parsed; `scans`: what earlier checks of the same `fix` run scanned, reused where a
    module's text and name are the same, and added to."""
    with without_cycle_collection():
        return _check(
            files,
            rules,
            framework,
            prefilter,
            jobs,
            cache_dir,
            unsaved or {},
            runtime_copy,
            discovery,
            max_file_size,
            scans,
        )


def _check(
    files: list[Path],
    rules: Sequence[Rule],
    framework: Framework | None,
    prefilter: bool,
    jobs: int | None,
    cache_dir: Path | None,
    unsaved: dict[Path, bytes],
    runtime_copy: str | None,
    discovery: DiscoveryScope | None,
    max_file_size: int,
    scans: KnownScans | None,
) -> CheckResult:
    # os.path.abspath asks the system for the working directory every time.
    cwd = os.getcwd()
    keys = [os.path.normpath(os.path.join(cwd, path)) for path in files]
    discovery = discovery or DiscoveryScope()
    runs = None
    if cache_dir is not None and not unsaved:
        runs = RunCache(
            cache_dir,
            (
                tuple(keys),
                # The layers that choose the rules (with the code, in the key, what they choose),
                # or the rules themselves.
                rules.layers
                if isinstance(rules, ChosenRules)
                else tuple(rule.code for rule in rules),
                framework.value if framework is not None else None,
                prefilter,
                cwd,
                tuple(map(str, discovery.walked)),
                discovery.excludes,
                discovery.respect_gitignore,
                runtime_copy,
                # An internal error's message holds its traceback then (module_facts).
                bool(os.environ.get("MCP_CODEMOD_DEBUG")),
                max_file_size,
            ),
        )
        stored = runs.load()
        if isinstance(stored, CheckResult):
            return stored
    # Imported here: a run answered by the run cache reads, prefilters, parses and links nothing.
    from mcp_codemod.analysis.facts import ModuleFacts
    from mcp_codemod.analysis.link.linker import Linker
    from mcp_codemod.engine.declared_sdk import DeclaredSdk
    from mcp_codemod.engine.file_facts import FileFacts, display_path
    from mcp_codemod.engine.parallel import Workers
    from mcp_codemod.engine.project import Project
    from mcp_codemod.rules.findings import FileError

    witness = Witness(cache_dir) if runs is not None and cache_dir is not None else None
    with Workers(jobs) as workers:
        cache = FactsCache(cache_dir) if cache_dir is not None else None
        sources = FileFacts(
            cache, unsaved, witness, workers, discovery.real_paths, max_file_size, scans
        )
        outcomes = sources.outcomes(files, keys, prefilter)
        project = Project(sources, files, discovery)
        project.add_roots(files)
        candidates: list[ModuleFacts] = []
        errors: list[FileError] = []
        for path, outcome in zip(files, outcomes, strict=True):
            if isinstance(outcome, str):
                errors.append(FileError(display_path(path), outcome))
            elif isinstance(outcome, ModuleFacts):
                project.add(path, outcome)
                candidates.append(outcome)
        linker = Linker(project, runtime_copy)
        linked = linker.link(candidates, framework)
        linked = _with_declared_sdk(
            linked, DeclaredSdk(project.project_roots, witness.saw if witness is not None else None)
        )
    if sources.cache is not None:
        sources.cache.save()
    given = _given(files, set(keys), cwd, sources.resolve)
    noqa = {facts.path: facts.noqa for facts in project.loaded()}
    # The same finding made twice (a function registered twice) is one; findings about two
    # servers at one registration (counted against each, the unguarded-server rule) say which server.
    findings = {}
    suppressed = set()
    for finding, is_suppressed in judge(rules, linked, given, noqa):
        key = (finding.path, finding.line, finding.column, finding.code, finding.message)
        if is_suppressed:
            suppressed.add(key)
        else:
            findings[key] = finding
    result = CheckResult(
        findings=tuple(sorted(findings.values())),
        errors=tuple(sorted(errors)),
        files=len(files),
        tools=linked.tools,
        unchecked=linked.unchecked,
        suppressed=len(suppressed),
        # Of the given files only, the ones `fix` may write: what else a run reads depends on
        # its caches (a cached run reads fewer of a registrar's possible callers).
        digests={key: sources.digests[key] for key in keys if key in sources.digests},
        tool_files=tuple(
            sorted(
                {
                    (parameter.server.origin[0], parameter.path)
                    for parameter in linked.parameters
                    if parameter.server.origin is not None and parameter.library is None
                }
            )
        ),
        guard_imports=_guard_imports(candidates, runtime_copy),
        work=linked.work,
    )
    if runs is not None and witness is not None:
        runs.save(witness, result)
    return result


def _guard_imports(candidates: list[ModuleFacts], runtime_copy: str | None) -> tuple[str, ...]:
    """The modules that import from the project's guard module, by path."""
    if runtime_copy is None:
        return ()
    prefix = f"{runtime_copy}."
    return tuple(
        sorted(
            facts.path
            for facts in candidates
            if any(name.startswith(prefix) for name in facts.imports.values())
        )
    )


def _given(files: list[Path], keys: set[str], cwd: str, resolve: Callable[[Path], Path]):
    """Whether a module's path (as findings show it) is one of the files given. A tool function
    can live in a module the prefilter passed over (registered from another one): its findings
    belong to it all the same."""
    resolved: set[Path] = set()
    answers: dict[str, bool] = {}  # asked for every parameter, of a few modules

    def given(path: str) -> bool:
        answer = answers.get(path)
        if answer is None:
            answer = answers[path] = is_given(path)
        return answer

    def is_given(path: str) -> bool:
        if os.path.normpath(os.path.join(cwd, path)) in keys:
            return True
        # The same file reached through another spelling (a symbolic link): rare, so resolved
        # only when asked.
        if not resolved:
            resolved.update(map(resolve, files))
        return resolve(Path(path)) in resolved

    return given


class _Site(NamedTuple):
    """Where a finding about a subject goes, and what it names."""

    path: str
    line: int
    column: int
    framework: str
    noqa_lines: tuple[int, ...]  # a noqa comment on any of these lines (in `path`) suppresses it
    tool: str | None = None
    parameter: str | None = None
    annotation: str | None = None


def _parameter_site(parameter: ToolParameter) -> _Site:
    position = parameter.parameter.position
    return _Site(
        parameter.path,
        position.line,
        position.column + 1,
        parameter.server.framework.value,
        (parameter.function.position.line, position.line),
        parameter.tool,
        parameter.parameter.name,
        parameter.parameter.annotation_text,
    )


def _with_declared_sdk(linked: LinkResult, declared: DeclaredSdk) -> LinkResult:
    """The parameters of mcp 1.x servers whose project allows only releases older than 1.12,
    marked with that requirement: there the pre-parse decodes exact `str` too."""
    parameters = tuple(
        replace(p, old_sdk=old)
        if p.server.runs_on(Framework.MCP1)
        and (old := declared.old_requirement(p.path)) != p.old_sdk
        else p
        for p in linked.parameters
    )
    return replace(linked, parameters=parameters)


def _tool_site(tool: RegisteredTool) -> _Site:
    position = tool.function.position
    return _Site(
        tool.path,
        position.line,
        position.column + 1,
        tool.server.framework.value,
        (position.line,),
        tool.tool,
    )


def _server_site(subject: ServerTools) -> _Site:
    # At its own first unchecked registration; one only counted against it (a registration on a
    # server of unknown framework) may be counted against other servers too.
    from mcp_codemod.analysis.unchecked import Unchecked

    first = next(
        (t for t in subject.unchecked if t.kind is not Unchecked.UNTIED), subject.unchecked[0]
    )
    lines = [first.line]
    swap = subject.server.swap
    if swap is not None and swap.path == first.path:
        lines.append(swap.span.start.line)
    return _Site(first.path, first.line, 1, subject.server.framework.value, tuple(lines))


def judge(
    rules: Sequence[Rule],
    linked: LinkResult,
    given: Callable[[str], bool],
    noqa: dict[str, dict[int, frozenset[str] | None]],
) -> Iterator[tuple[Finding, bool]]:
    """Each rule's finding on each subject of its kind that lies in the files given, and
    whether a `noqa` comment suppresses it."""
    from mcp_codemod.analysis.subjects import RegisteredTool, ServerTools, ToolParameter
    from mcp_codemod.rules.findings import Finding

    # Where a finding about each kind of subject goes: asked only of the subjects a rule reports.
    sites: dict[type, Callable] = {
        ToolParameter: _parameter_site,
        RegisteredTool: _tool_site,
        ServerTools: _server_site,
    }
    subjects: dict[type, list] = {
        ToolParameter: [p for p in linked.parameters if given(p.path)],
        RegisteredTool: [t for t in linked.registered if given(t.path)],
        ServerTools: [],
    }
    for server in linked.servers:
        # Only the registrations in the files given count, as for parameters.
        unchecked = tuple(tool for tool in server.unchecked if given(tool.path))
        if unchecked:
            subjects[ServerTools].append(ServerTools(server.server, unchecked))
    for rule in rules:
        for subject in subjects[rule.subject]:
            report = rule.check(subject)
            if report is None:
                continue
            site = sites[rule.subject](subject)
            finding = Finding(
                path=site.path,
                line=site.line,
                column=site.column,
                code=rule.code,
                message=report.message,
                framework=site.framework,
                tool=site.tool,
                parameter=site.parameter,
                annotation=site.annotation,
                fix=report.fix,
            )
            yield finding, _suppressed(rule.code, site, noqa.get(site.path, {}))


def _suppressed(code: str, site: _Site, noqa: dict[int, frozenset[str] | None]) -> bool:
    for line in site.noqa_lines:
        if line in noqa:
            codes = noqa[line]
            if codes is None or code in codes:
                return True
    return False
