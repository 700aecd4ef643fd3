"""The analysis pipeline: files → module facts → linked tool parameters → findings."""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.linker import Linker, ToolParameter, UnresolvedTool
from mcp_codemod.analysis.scanner import scan_module
from mcp_codemod.analysis.types import ACCEPT_WHOLE_FLOAT, NO_PRE_PARSE
from mcp_codemod.discovery import discover
from mcp_codemod.findings import FileError, Finding, FixPlan, MarkerEdit
from mcp_codemod.project import find_module, module_name, project_root
from mcp_codemod.rules import Rule
from mcp_codemod.settings import DEFAULT_EXCLUDE
from mcp_codemod.sources import SourceError, read_source

# A file can register a tool, guard a server, or create one (whose callers pass it on to
# `register_tools(mcp)` functions elsewhere) only if it says one of these. Any other module is
# parsed only when a candidate imports from it.
CANDIDATE = re.compile(r"\.tool\b|add_tool|mcp_codemod|FastMCP|MCPServer")


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...]
    errors: tuple[FileError, ...]
    files: int  # files considered
    tools: int  # tool registrations found
    unresolved: tuple[UnresolvedTool, ...]


def display_path(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def parse_facts(path: Path, text: str) -> ModuleFacts:
    """Raises SyntaxError (with a one-line message) for a file Python cannot parse."""
    name, _root, is_package = module_name(path)
    try:
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise SyntaxError(_syntax_message(error)) from None
    return scan_module(text, tree, name, display_path(path), is_package)


def _syntax_message(error: BaseException) -> str:
    if isinstance(error, SyntaxError):
        where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
        return f"cannot parse ({where}): {error.msg}"
    if isinstance(error, RecursionError):
        return "cannot parse: nested too deeply"
    return f"cannot parse: {error}"


class Project:
    """The modules of the checked tree, loading others on demand when an import leads there."""

    def __init__(self) -> None:
        self.by_path: dict[Path, ModuleFacts | None] = {}
        self.roots: list[Path] = []
        self.project_files: dict[Path, list[Path]] = {}

    def add(self, path: Path, facts: ModuleFacts | None) -> None:
        path = path.resolve()
        self.by_path[path] = facts
        root = module_name(path)[1]
        if root not in self.roots:
            self.roots.append(root)

    def load(self, name: str, near: ModuleFacts) -> ModuleFacts | None:
        near_root = module_name(Path(near.path))[1]
        # Namespace packages (directories without `__init__.py`, as in `awslabs.x.tools`) are
        # importable from some directory above the one where the `__init__` chain stops.
        path = find_module(name, [near_root, *self.roots, *list(near_root.parents)[:4]])
        if path is None:
            return None
        path = path.resolve()
        if path not in self.by_path:
            try:
                self.by_path[path] = parse_facts(path, read_source(path).text)
            except (SourceError, SyntaxError):
                self.by_path[path] = None  # reported only if the user asked to check it
        return self.by_path[path]

    def loaded(self) -> list[ModuleFacts]:
        return [facts for facts in self.by_path.values() if facts is not None]

    def load_callers(self, name: str, near: ModuleFacts) -> list[ModuleFacts]:
        """Load the project's modules that may call `name` (a registrar taking the server as an
        argument), when they were not among the files given: pre-commit passes the staged ones."""
        root = project_root(Path(near.path).resolve())
        if root not in self.project_files:
            self.project_files[root] = discover([root], DEFAULT_EXCLUDE, respect_gitignore=True)
        mention = re.compile(rf"\b{re.escape(name)}\b")
        found = []
        for path in self.project_files[root]:
            path = path.resolve()
            if path in self.by_path:
                continue
            try:
                text = read_source(path).text
                if not (mention.search(text) and CANDIDATE.search(text)):
                    continue
                self.by_path[path] = facts = parse_facts(path, text)
            except (SourceError, SyntaxError):
                self.by_path[path] = None
                continue
            found.append(facts)
        return found


def check_files(
    files: list[Path], rules: tuple[Rule, ...], framework: Framework | None = None
) -> CheckResult:
    project = Project()
    candidates: list[ModuleFacts] = []
    errors: list[FileError] = []
    for path in files:
        try:
            text = read_source(path).text
            if not CANDIDATE.search(text):
                continue
            facts = parse_facts(path, text)
        except (SourceError, SyntaxError) as error:
            errors.append(FileError(display_path(path), str(error.args[0])))
            continue
        project.add(path, facts)
        candidates.append(facts)
    linked = Linker(project.load, project.loaded, project.load_callers).link(candidates, framework)
    reported = {facts.path for facts in candidates}
    noqa = {facts.path: facts.noqa for facts in project.loaded()}
    findings = {
        (finding.path, finding.line, finding.column, finding.code): finding
        for parameter in linked.parameters
        if parameter.path in reported
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
    if parameter.alias is not None and parameter.alias.site is not None:
        marker_path, site = parameter.alias.path, parameter.alias.site
    else:
        marker_path, site = parameter.path, parameter.parameter.site
    marker = NO_PRE_PARSE if rule.code == "MCP001" else ACCEPT_WHOLE_FLOAT
    server = parameter.server
    swap = server.swap if rule.code == "MCP001" else None
    advice = None
    if rule.code == "MCP001" and swap is None:
        advice = (
            f"the server of tool `{parameter.tool}` ({server.description}) is built outside the "
            "code this fix can rewrite: pass it through `mcp_codemod.runtime.guard(server)` "
            "before it serves requests"
        )
    return FixPlan(MarkerEdit(marker_path, site, marker), swap, advice)


def _suppressed(
    finding: Finding, parameter: ToolParameter, noqa: dict[int, frozenset[str] | None]
) -> bool:
    for line in (parameter.function.position.line, parameter.parameter.position.line):
        if line in noqa:
            codes = noqa[line]
            if codes is None or finding.code in codes:
                return True
    return False
