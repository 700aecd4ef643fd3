"""The analysis pipeline: files → module facts → linked tool parameters → findings.

Reading a file and the textual prefilter cost little; parsing is what costs. So a file is parsed
only when it can matter (the prefilter, or an import that leads to it), once per content (the
cache), and the parses of a run share the machine's cores (`parallel`). Linking and the rules then
run in this process over plain `ModuleFacts`.
"""

from __future__ import annotations

import contextlib
import gc
import os
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.linker import Linker, ToolParameter, UnresolvedTool
from mcp_codemod.analysis.types import ACCEPT_WHOLE_FLOAT, NO_PRE_PARSE
from mcp_codemod.cache import FactsCache
from mcp_codemod.findings import FileError, Finding, FixPlan, MarkerEdit
from mcp_codemod.module_facts import Pending, Sources, display_path
from mcp_codemod.project_modules import Project
from mcp_codemod.rules import Rule


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...]
    errors: tuple[FileError, ...]
    files: int  # files considered
    tools: int  # tool registrations found
    unresolved: tuple[UnresolvedTool, ...]


def check_files(
    files: list[Path],
    rules: tuple[Rule, ...],
    framework: Framework | None = None,
    *,
    prefilter: bool = True,
    jobs: int | None = None,
    cache_dir: Path | None = None,
) -> CheckResult:
    """`prefilter=False` parses every file (to verify that the prefilter loses nothing);
    `jobs`: processes for parsing (default: one per core; 1: none); `cache_dir`: where facts are
    kept between runs (None: nowhere)."""
    with _without_cycle_collection():
        return _check(files, rules, framework, prefilter, jobs, cache_dir)


@contextlib.contextmanager
def _without_cycle_collection():
    """Parsing, scanning and unpickling make millions of objects and no reference cycles; the
    cycle collector's passes over them took a quarter of a cold run and half of a cached one.
    Reference counting still frees everything."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _check(
    files: list[Path],
    rules: tuple[Rule, ...],
    framework: Framework | None,
    prefilter: bool,
    jobs: int | None,
    cache_dir: Path | None,
) -> CheckResult:
    sources = Sources(FactsCache(cache_dir) if cache_dir is not None else None)
    # os.path.abspath asks the system for the working directory every time.
    cwd = os.getcwd()
    keys = [os.path.normpath(os.path.join(cwd, path)) for path in files]
    outcomes = [
        sources.examine(path, prefilter, key) for path, key in zip(files, keys, strict=True)
    ]
    pending = [(index, o) for index, o in enumerate(outcomes) if isinstance(o, Pending)]
    results = sources.parse([p for _, p in pending], jobs)
    for (index, _), result in zip(pending, results, strict=True):
        outcomes[index] = result
    project = Project(sources)
    candidates: list[ModuleFacts] = []
    errors: list[FileError] = []
    for path, outcome in zip(files, outcomes, strict=True):
        if isinstance(outcome, str):
            errors.append(FileError(display_path(path), outcome))
        elif isinstance(outcome, ModuleFacts):
            project.add(path, outcome)
            candidates.append(outcome)
    linked = Linker(project.load, project.loaded, project.load_callers).link(candidates, framework)
    if sources.cache is not None:
        sources.cache.save()
    given = _given(files, set(keys), cwd)
    noqa = {facts.path: facts.noqa for facts in project.loaded()}
    findings = {
        (finding.path, finding.line, finding.column, finding.code): finding
        for parameter in linked.parameters
        if given(parameter.path)
        for rule in rules
        if (finding := _finding(rule, parameter)) is not None
        and not _suppressed(finding, parameter, noqa.get(parameter.path, {}))
    }
    return CheckResult(
        findings=tuple(sorted(findings.values())),
        errors=tuple(sorted(errors)),
        files=len(files),
        tools=linked.tools,
        unresolved=linked.unresolved,
    )


def _given(files: list[Path], keys: set[str], cwd: str):
    """Whether a module's path (as findings show it) is one of the files given. A tool function
    can live in a module the prefilter passed over (registered from another one): its findings
    belong to it all the same."""
    resolved: set[Path] = set()

    def given(path: str) -> bool:
        if os.path.normpath(os.path.join(cwd, path)) in keys:
            return True
        # The same file reached through another spelling (a symbolic link): rare, so resolved
        # only when asked.
        if not resolved:
            resolved.update(Path(file).resolve() for file in files)
        return Path(path).resolve() in resolved

    return given


def _finding(rule: Rule, parameter: ToolParameter) -> Finding | None:
    message = rule.check(parameter)
    if message is None:
        return None
    fixable = rule.is_fixable(parameter)
    position = parameter.parameter.position
    return Finding(
        path=parameter.path,
        line=position.line,
        column=position.column + 1,
        code=rule.code,
        tool=parameter.tool,
        parameter=parameter.parameter.name,
        annotation=parameter.parameter.annotation_text,
        framework=parameter.server.framework.value,
        message=message,
        fixable=fixable,
        fix=_fix_plan(rule, parameter) if fixable else None,
    )


def _fix_plan(rule: Rule, parameter: ToolParameter) -> FixPlan:
    marker_path, site = parameter.fix_site
    marker = NO_PRE_PARSE if rule.code == "MCP001" else ACCEPT_WHOLE_FLOAT
    edit = MarkerEdit(marker_path, site, marker) if marker not in parameter.facts.markers else None
    server = parameter.server
    swap = server.swap if rule.code == "MCP001" else None
    advice = None
    if rule.code == "MCP001" and swap is None:
        advice = (
            f"the server ({server.description}) is built outside the code this fix can rewrite: "
            "pass it through `mcp_codemod.runtime.guard(server)` before it serves requests"
        )
    return FixPlan(edit, swap, advice)


def _suppressed(
    finding: Finding, parameter: ToolParameter, noqa: dict[int, frozenset[str] | None]
) -> bool:
    for line in (parameter.function.position.line, parameter.parameter.position.line):
        if line in noqa:
            codes = noqa[line]
            if codes is None or finding.code in codes:
                return True
    return False
