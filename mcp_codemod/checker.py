"""The analysis pipeline: files → module facts → linked tool parameters → findings.

Reading a file and the textual prefilter cost little; parsing is what costs. So a file is parsed
only when it can matter (the prefilter, or an import that leads to it), once per content (the
cache), and the parses of a run share the machine's cores (`parallel`). Linking and the rules then
run in this process over plain `ModuleFacts`.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.linker import Linker, ToolParameter, UnresolvedTool
from mcp_codemod.analysis.types import ACCEPT_WHOLE_FLOAT, NO_PRE_PARSE
from mcp_codemod.cache import (
    Entry,
    FactsCache,
    Parsed,
    Stamp,
    digest,
    dump_facts,
    load_facts,
    stamp,
    trusted_stamp,
)
from mcp_codemod.discovery import discover
from mcp_codemod.findings import FileError, Finding, FixPlan, MarkerEdit
from mcp_codemod.parallel import map_ordered
from mcp_codemod.project import find_module, module_name, project_root
from mcp_codemod.rules import Rule
from mcp_codemod.settings import DEFAULT_EXCLUDE
from mcp_codemod.sources import SourceError, decode

# A file can register a tool, guard a server, or create one (whose callers pass it on to
# `register_tools(mcp)` functions elsewhere) only if it says one of these. Any other module is
# parsed only when a candidate imports from it.
CANDIDATE_WORDS = ("add_tool", "mcp_codemod", "FastMCP", "MCPServer")
# `.tool` as Python reads an attribute: blanks, line continuations and (inside brackets) comments
# may stand between the dot and the name. The alternatives cannot overlap: no backtracking.
TOOL_ATTRIBUTE = r"\.(?:[\s\\]|#[^\r\n]*[\r\n])*tool\b"
# Tested on the bytes (every source encoding Python accepts is ASCII-compatible), word by word:
# substring search is several times faster than one regex with alternatives.
_WORDS_IN_BYTES = tuple(word.encode() for word in CANDIDATE_WORDS)
_TOOL_IN_BYTES = re.compile(TOOL_ATTRIBUTE.encode())
_TOOL_IN_TEXT = re.compile(TOOL_ATTRIBUTE)


def is_candidate(data: bytes) -> bool:
    """Whether a file's bytes can hold a registration, a guard or a server. Raises SourceError
    for bytes that are not ASCII and cannot be decoded."""
    if any(word in data for word in _WORDS_IN_BYTES):
        return True
    if b"tool" in data and _TOOL_IN_BYTES.search(data):
        return True
    if data.isascii():
        return False
    import unicodedata

    # Python reads identifiers NFKC-normalized: `mcp.ｔｏｏｌ` is `mcp.tool`.
    text = decode(data).text
    if unicodedata.is_normalized("NFKC", text):
        return False
    text = unicodedata.normalize("NFKC", text)
    return any(word in text for word in CANDIDATE_WORDS) or bool(_TOOL_IN_TEXT.search(text))


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...]
    errors: tuple[FileError, ...]
    files: int  # files considered
    tools: int  # tool registrations found
    unresolved: tuple[UnresolvedTool, ...]
    # The hash (cache.digest) of the bytes analysed, per absolute path: `fix` rewrites a file
    # only while it still holds exactly those bytes.
    digests: Mapping[str, bytes] = field(default_factory=dict)


def display_path(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


class ScanTask(NamedTuple):
    """One module to parse and scan: all a worker process needs."""

    text: str
    module: str
    display: str
    is_package: bool


def scan_source(task: ScanTask) -> ModuleFacts | str:
    """The module's facts, or the one-line reason it cannot be parsed."""
    # Imported here: a run answered by the cache never needs the scanner.
    from mcp_codemod.analysis.scanner import scan_module

    try:
        tree = ast.parse(task.text, filename=task.display)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return _syntax_message(error)
    try:
        return scan_module(task.text, tree, task.module, task.display, task.is_package)
    except RecursionError as error:  # a valid module can nest deeper than the scanner recurses
        return _syntax_message(error)
    except Exception as error:  # a bug of ours: one file's error, reported, not a traceback
        return f"internal error while analysing ({type(error).__name__}: {error}); please report it"


def _syntax_message(error: BaseException) -> str:
    if isinstance(error, SyntaxError):
        where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
        return f"cannot parse ({where}): {error.msg}"
    if isinstance(error, RecursionError):
        return "cannot parse: nested too deeply"
    return f"cannot parse: {error}"


class Pending(NamedTuple):
    """A file to parse, and what its cache entry will say about it."""

    task: ScanTask
    key: str
    stamp: Stamp | None
    digest: bytes
    candidate: bool | None


Outcome = ModuleFacts | str | Pending | None
_UNKNOWN = object()
_UNCACHED = Entry(None, b"", None, None)  # what is known of a file without a cache: nothing


class Sources:
    """Each file's outcome: None (the prefilter rules it out), its facts, the one-line reason it
    cannot be read or parsed, or `Pending` (to parse). The cache answers for files whose stamp
    or content it knows; others are read."""

    def __init__(self, cache: FactsCache | None) -> None:
        self.cache = cache
        self.located: dict[Path, tuple[str, Path, bool, str]] = {}
        self.digests: dict[str, bytes] = {}

    def locate(self, path: Path) -> tuple[str, Path, bool, str]:
        """Module name, the directory it is importable from, whether it is a package, and the
        path as findings show it."""
        if path not in self.located:
            module, root, is_package = module_name(path)
            self.located[path] = (module, root, is_package, display_path(path))
        return self.located[path]

    def examine(self, path: Path, prefilter: bool, key: str | None = None) -> Outcome:
        """`key`: the absolute path, when the caller has it."""
        key = key or os.path.abspath(path)
        entry = self.cache.get(key) if self.cache is not None else None
        if entry is not None and entry.stamp is not None:
            try:
                unchanged = stamp(os.stat(path)) == entry.stamp
            except OSError:
                unchanged = False
            if unchanged and (known := self._known(path, entry, prefilter)) is not _UNKNOWN:
                self.digests[key] = entry.digest
                return known
        try:
            # Stamp before reading: a change while reading leaves a stamp that no longer matches.
            stat = os.stat(path) if self.cache is not None else None
            data = path.read_bytes()
        except OSError as error:
            return f"cannot read: {error.strerror or error}"
        content = digest(data)
        self.digests[key] = content
        if stat is None:
            entry = _UNCACHED
        else:
            if entry is None or entry.digest != content:
                entry = Entry(trusted_stamp(stat), content, None, None)
            else:
                entry = entry._replace(stamp=trusted_stamp(stat))
            self._put(key, entry)
        if (known := self._known(path, entry, prefilter)) is not _UNKNOWN:
            return known
        try:
            if prefilter and entry.candidate is None:
                entry = entry._replace(candidate=is_candidate(data))
                self._put(key, entry)
                if not entry.candidate:
                    return None
            text = decode(data).text
        except SourceError as error:
            return str(error)
        module, _root, is_package, display = self.locate(path)
        task = ScanTask(text, module, display, is_package)
        return Pending(task, key, entry.stamp, entry.digest, entry.candidate)

    def _known(self, path: Path, entry: Entry, prefilter: bool) -> Outcome | object:
        if prefilter and entry.candidate is not True:
            return None if entry.candidate is False else _UNKNOWN
        parsed = entry.parsed
        if parsed is None:
            return _UNKNOWN
        module, _root, is_package, display = self.locate(path)
        if (parsed.module, parsed.display, parsed.is_package) != (module, display, is_package):
            return _UNKNOWN
        if parsed.error is not None:
            return parsed.error
        facts = load_facts(parsed.facts) if parsed.facts is not None else None
        return facts if facts is not None else _UNKNOWN

    def _put(self, key: str, entry: Entry) -> None:
        if self.cache is not None:
            self.cache.put(key, entry)

    def record(self, pending: Pending, result: ModuleFacts | str) -> None:
        if self.cache is None:
            return
        task = pending.task
        if isinstance(result, str):
            parsed = Parsed(task.module, task.display, task.is_package, None, result)
        else:
            parsed = Parsed(task.module, task.display, task.is_package, dump_facts(result), None)
        self.cache.put(pending.key, Entry(pending.stamp, pending.digest, pending.candidate, parsed))

    def facts(self, path: Path) -> ModuleFacts | None:
        """The facts of one module now, parsed in this process if need be."""
        outcome = self.examine(path, prefilter=False)
        if isinstance(outcome, Pending):
            result = scan_source(outcome.task)
            self.record(outcome, result)
            outcome = result
        return outcome if isinstance(outcome, ModuleFacts) else None


class Project:
    """The modules of the checked tree, loading others on demand when an import leads there."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.by_path: dict[Path, ModuleFacts | None] = {}
        self.roots: list[Path] = []
        self.project_files: dict[Path, list[Path]] = {}
        self.found: dict[tuple[str, Path, int], Path | None] = {}
        self.answers: dict[tuple[str, str, int], ModuleFacts | None] = {}
        self.listings: dict[Path, frozenset[str]] = {}

    def add(self, path: Path, facts: ModuleFacts | None) -> None:
        self.by_path[path.resolve()] = facts
        root = self.sources.locate(path)[1]
        if root not in self.roots:
            self.roots.append(root)

    def load(self, name: str, near: ModuleFacts) -> ModuleFacts | None:
        # The linker asks for the same modules from every module that imports them, and again
        # for every call's callee: hundreds of thousands of times on a large tree, so the answer
        # is kept under plain strings, and the file system probed once per package root.
        answer = (name, near.path, len(self.roots))
        if answer not in self.answers:
            near_root = self.sources.locate(Path(near.path))[1]
            probe = (name, near_root, len(self.roots))
            if probe not in self.found:
                # Namespace packages (directories without `__init__.py`, as in
                # `awslabs.x.tools`) are importable from some directory above the one where the
                # `__init__` chain stops.
                roots = [near_root, *self.roots, *list(near_root.parents)[:4]]
                top = name.partition(".")[0]
                roots = [root for root in roots if self.may_hold(root, top)]
                path = find_module(name, roots) if roots else None
                self.found[probe] = path.resolve() if path is not None else None
            path = self.found[probe]
            if path is not None and path not in self.by_path:
                # None when it cannot be parsed: reported only if the user asked to check it.
                self.by_path[path] = self.sources.facts(path)
            self.answers[answer] = self.by_path[path] if path is not None else None
        return self.answers[answer]

    def may_hold(self, root: Path, top: str) -> bool:
        """Whether a module or package `top` can be under `root`: one listing per directory
        instead of two probes per root for every name (most, as `typing`, are nowhere)."""
        if root not in self.listings:
            try:
                self.listings[root] = frozenset(os.listdir(root))
            except OSError:
                self.listings[root] = frozenset()
        listing = self.listings[root]
        return top in listing or f"{top}.py" in listing

    def loaded(self) -> list[ModuleFacts]:
        return [facts for facts in self.by_path.values() if facts is not None]

    def load_callers(self, name: str, near: ModuleFacts) -> list[ModuleFacts]:
        """Load the project's modules that may call `name` (a registrar taking the server as an
        argument), when they were not among the files given: pre-commit passes the staged ones."""
        root = project_root(Path(near.path).resolve())
        if root not in self.project_files:
            # Resolved once: the linker asks once per registrar, for the same files.
            files = discover([root], DEFAULT_EXCLUDE, respect_gitignore=True)
            self.project_files[root] = [path.resolve() for path in files]
        mention = re.compile(rf"\b{re.escape(name)}\b")
        found = []
        for path in self.project_files[root]:
            if path in self.by_path:
                continue
            outcome = self.sources.examine(path, prefilter=True)
            if outcome is None:
                continue
            if isinstance(outcome, ModuleFacts):
                try:
                    text = decode(path.read_bytes()).text
                except (OSError, SourceError):
                    continue
            elif isinstance(outcome, Pending):
                text = outcome.task.text
            else:
                self.by_path[path] = None
                continue
            if not mention.search(text):
                continue
            if isinstance(outcome, Pending):
                result = scan_source(outcome.task)
                self.sources.record(outcome, result)
                outcome = result
            self.by_path[path] = facts = outcome if isinstance(outcome, ModuleFacts) else None
            if facts is not None:
                found.append(facts)
        return found


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
    results = map_ordered(
        scan_source, [p.task for _, p in pending], [len(p.task.text) for _, p in pending], jobs
    )
    for (index, task), result in zip(pending, results, strict=True):
        sources.record(task, result)
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
        digests=sources.digests,
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
