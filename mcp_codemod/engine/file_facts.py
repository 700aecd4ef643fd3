"""Each file's facts, from the cache when it knows the file, else read, prefiltered and parsed.

A file's outcome is None (the prefilter rules it out), its `ModuleFacts`, the one-line reason it
cannot be read or parsed, or `Pending` (to parse: `FileFacts.parse` does it, in parallel when there
is enough to parse).
"""

from __future__ import annotations

import ast
import importlib
import os
import traceback
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.engine.caller_texts import CallerTexts
from mcp_codemod.engine.facts_cache import (
    Entry,
    FactsCache,
    Parsed,
    Stamp,
    digest,
    dump_facts,
    load_facts,
    refreshed,
    stamp,
)
from mcp_codemod.engine.file_io import SourceError, decode
from mcp_codemod.engine.module_paths import ModuleNames
from mcp_codemod.engine.parallel import OrderedMap, Workers
from mcp_codemod.engine.prefilter import is_candidate
from mcp_codemod.engine.run_cache import Witness
from mcp_codemod.engine.settings import DEFAULT_MAX_FILE_SIZE


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
    tree = _parse(task)
    return tree if isinstance(tree, str) else scan_tree(task, tree)


def _parse(task: ScanTask) -> ast.Module | str:
    """The module's syntax tree, or the one-line reason it cannot be parsed."""
    try:
        return ast.parse(task.text, filename=task.display)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return _syntax_message(error, task.text)


def scan_tree(task: ScanTask, tree: ast.Module) -> ModuleFacts | str:
    """`scan_source` of a text already parsed: `tree` is `ast.parse(task.text)`."""
    # Imported here: a run answered by the cache never needs the scanner.
    from mcp_codemod.analysis.scan.scanner import scan_module

    try:
        return scan_module(task.text, tree, task.module, task.display, task.is_package)
    except RecursionError as error:  # a valid module can nest deeper than the scanner recurses
        return _syntax_message(error, task.text)
    except Exception as error:  # a bug of ours: one file's error, reported, not a traceback
        message = (
            f"internal error while analysing ({type(error).__name__}: {error}); please report it"
        )
        if os.environ.get("MCP_CODEMOD_DEBUG"):
            message += "\n" + traceback.format_exc()
        return message


def _links_in(directory: str) -> frozenset[str] | None:
    """The names of the symbolic links in a directory, None when it cannot be listed."""
    try:
        with os.scandir(directory) as entries:
            return frozenset(entry.name for entry in entries if entry.is_symlink())
    except OSError:
        return None


def _syntax_message(error: BaseException, text: str) -> str:
    if isinstance(error, SyntaxError | ValueError) and "\0" in text:
        # The parser refuses the text whole, without a position: the first NUL is the reason.
        at = text.index("\0")
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        return (
            f"cannot parse (line {line}, column {column}): a NUL byte (source code cannot hold one)"
        )
    if isinstance(error, SyntaxError):
        if error.lineno is None:
            return f"cannot parse: {error.msg}"
        where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
        return f"cannot parse ({where}): {error.msg}"
    if isinstance(error, RecursionError):
        return "cannot parse: nested too deeply"
    return f"cannot parse: {error}"


class KnownScans:
    """What the scans of one `fix` run found, by task: the checks after its first one (the next
    round, the check of what the fixes leave) read the same modules again, those the fixes left
    as they were and the fixed texts the fixer has just parsed to confirm that they parse. A
    scan is a function of its task alone (the facts cache keys it the same way), so a task seen
    before is answered without parsing; each entry holds one module's facts, for one run."""

    def __init__(self) -> None:
        self.results: dict[ScanTask, ModuleFacts | str] = {}
        self.module_names = ModuleNames()
        # The syntax tree of the largest text parsed in this process, and that text: the
        # fixer, which parses the text it edits, takes it instead (a large module is what
        # parsing twice costs most on, and one tree at most is kept).
        self.kept: tuple[str, ast.Module] | None = None

    def keep(self, text: str, tree: ast.Module) -> None:
        if self.kept is None or len(text) > len(self.kept[0]):
            self.kept = (text, tree)

    def tree_of(self, text: str) -> ast.Module | None:
        """The tree kept of `text`, taken: it is not kept any longer."""
        kept, self.kept = self.kept, None
        if kept is not None and kept[0] == text:
            return kept[1]
        self.kept = kept
        return None

    def add_fixed(self, path: str, text: str, tree: ast.Module) -> None:
        """The scan of `text`, the fixed text of the file at `path` (as findings show it), from
        its tree, under the name a check of the file will give the module: a check that names
        it otherwise parses it as it would have."""
        module, _root, is_package = self.module_names.of(Path(os.path.realpath(path)))
        task = ScanTask(text, module, display_path(Path(path)), is_package)
        if task not in self.results:
            self.results[task] = scan_tree(task, tree)


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


class FileFacts:
    """Each file's outcome: None (the prefilter rules it out), its facts, the one-line reason it
    cannot be read or parsed, or `Pending` (to parse). The cache answers for files whose stamp
    or content it knows; others are read."""

    def __init__(
        self,
        cache: FactsCache | None,
        unsaved: dict[Path, bytes] | None = None,
        witness: Witness | None = None,
        workers: Workers | None = None,
        real_paths: Mapping[str, str] | None = None,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        scans: KnownScans | None = None,
    ) -> None:
        self.cache = cache
        self.scans = scans  # what this process's earlier scans found, kept and reused
        # A larger file that could matter is reported instead of parsed: a parse holds many
        # times the file's size, so one huge module can exhaust the machine's memory.
        self.max_file_size = max_file_size
        self.workers = workers or Workers(1)  # the run's worker processes
        self.unsaved = unsaved or {}
        self.witness = witness  # records what the run read, for the run cache
        self.digests: dict[str, bytes] = {}  # absolute path → digest of the bytes analysed
        self.located: dict[Path, tuple[str, Path, bool, str]] = {}
        self.resolved: dict[Path, Path] = {}
        self.real_directories: dict[str, str] = {}
        # The real paths of the files discovery found that are no links (`discover`).
        self.known_real_paths = real_paths or {}
        self.module_names = ModuleNames()
        self.callers = CallerTexts(cache, witness)  # what the search for callers reads

    def resolve(self, path: Path) -> Path:
        """The real path, asked of the system once per run and path."""
        resolved = self.resolved.get(path)
        if resolved is None:
            resolved = self.resolved[path] = Path(self.real_path(str(path)))
        return resolved

    def real_path(self, path: str) -> str:
        """`resolve` in text: beneath its directory's real path (asked once per directory) only
        the file itself can be a link, one `lstat`."""
        return self._real_path(path, None)

    def real_paths(self, paths: list[str]) -> list[str]:
        """`real_path` of each of many files (the caller search's pass over every file of the
        run): which are links is read from one listing of each directory, the entries' types,
        instead of an `lstat` per file."""
        links: dict[str, frozenset[str] | None] = {}
        return [self._real_path(path, links) for path in paths]

    def _real_path(self, path: str, links: dict[str, frozenset[str] | None] | None) -> str:
        """`links`: the names of the links in each real directory listed so far (None where it
        cannot be listed), or None to ask of each file."""
        known = self.known_real_paths.get(path)
        if known is not None:
            return known
        directory, name = os.path.split(path)
        if name in ("", ".", ".."):
            return os.path.realpath(path)
        real_directory = self.real_directories.get(directory)
        if real_directory is None:
            real_directory = self.real_directories[directory] = os.path.realpath(directory)
        joined = os.path.join(real_directory, name)
        linked = None
        if links is not None:
            if real_directory not in links:
                links[real_directory] = _links_in(real_directory)
            linked = links[real_directory]
        is_link = os.path.islink(joined) if linked is None else name in linked
        return os.path.realpath(joined) if is_link else joined

    def locate(self, path: Path) -> tuple[str, Path, bool, str]:
        """Module name, the directory it is importable from, whether it is a package, and the
        path as findings show it."""
        if path not in self.located:
            self.located[path] = (*self._named(path), display_path(path))
        return self.located[path]

    def import_root(self, path: Path) -> Path:
        """The directory the module at `path` is importable from: `locate`'s second answer,
        without the path as shown (asked for every directory of the run)."""
        located = self.located.get(path)
        return located[1] if located is not None else self._named(path)[1]

    def _named(self, path: Path) -> tuple[str, Path, bool]:
        module, root, is_package = self.module_names.of(self.resolve(path))
        if self.witness is not None:
            # The `__init__.py` files that make the name: from the file's directory up to the
            # one it is importable from.
            chain = []
            for directory in self.resolve(path).parents:
                chain.append(directory / "__init__.py")
                if directory == root:
                    break
            self.witness.saw(chain)
        return module, root, is_package

    def examine(self, path: Path, prefilter: bool, key: str | None = None) -> Outcome:
        """`key`: the absolute path, when the caller has it."""
        key = key or os.path.abspath(path)
        if path in self.unsaved:
            return self._unsaved(path, self.unsaved[path], prefilter)
        outcome, content = self._examine(path, prefilter, key)
        # Only a file the analysis reads can be written by `fix`; a file the prefilter rules out
        # has no digest, with a cache or without one.
        if outcome is not None and content is not None:
            self.digests[key] = content
        return outcome

    def _examine(self, path: Path, prefilter: bool, key: str) -> tuple[Outcome, bytes | None]:
        if self.witness is not None:
            self.witness.saw((key,))
        entry = self.cache.get(key) if self.cache is not None else None
        if entry is not None and entry.stamp is not None:
            try:
                unchanged = stamp(os.stat(path)) == entry.stamp
            except OSError:
                unchanged = False
            if unchanged and (known := self._known(path, entry, prefilter)) is not _UNKNOWN:
                return self._bounded(known, entry.stamp[0]), entry.digest
        try:
            # Stamp before reading: a change while reading leaves a stamp that no longer matches.
            stat = os.stat(path) if self.cache is not None else None
            data = path.read_bytes()
        except OSError as error:
            return f"cannot read: {error.strerror or error}", None
        if stat is None:
            # Without a cache, the digest is taken only of what passes the prefilter: hashing
            # every byte of a large tree is saved.
            try:
                if prefilter and not is_candidate(data):
                    return None, None
            except SourceError as error:
                return str(error), digest(data)
            entry = _UNCACHED._replace(candidate=True if prefilter else None, digest=digest(data))
        else:
            entry = refreshed(entry, stat, digest(data))
            self._put(key, entry)
        if (known := self._known(path, entry, prefilter)) is not _UNKNOWN:
            return self._bounded(known, len(data)), entry.digest
        try:
            if prefilter and entry.candidate is None:
                entry = entry._replace(candidate=is_candidate(data))
                self._put(key, entry)
                if not entry.candidate:
                    return None, entry.digest
            if len(data) > self.max_file_size:
                return self._too_large(len(data)), entry.digest
            text = decode(data).text
        except SourceError as error:
            return str(error), entry.digest
        module, _root, is_package, display = self.locate(path)
        task = ScanTask(text, module, display, is_package)
        return Pending(task, key, entry.stamp, entry.digest, entry.candidate), entry.digest

    def _unsaved(self, path: Path, data: bytes, prefilter: bool) -> Outcome:
        """A buffer that is not the file on disk: never cached."""
        try:
            if prefilter and not is_candidate(data):
                return None
            if len(data) > self.max_file_size:
                return self._too_large(len(data))
            text = decode(data).text
        except SourceError as error:
            return str(error)
        module, _root, is_package, display = self.locate(path)
        return Pending(ScanTask(text, module, display, is_package), "", None, b"", None)

    def _bounded(self, known: Outcome | object, size: int) -> Outcome | object:
        """What the cache knows of a file, unless the file is too large to be parsed now (the
        bound is a setting: the cache may hold what a higher one let through)."""
        if known is None or size <= self.max_file_size:
            return known
        return self._too_large(size)

    def _too_large(self, size: int) -> str:
        return f"not checked: {size:,} bytes, over max-file-size ({self.max_file_size:,} bytes)"

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
        if self.cache is None or not pending.key:
            return
        task = pending.task
        if isinstance(result, str):
            parsed = Parsed(task.module, task.display, task.is_package, None, result)
        else:
            parsed = Parsed(task.module, task.display, task.is_package, dump_facts(result), None)
        old = self.cache.get(pending.key)
        same = old is not None and old.digest == pending.digest
        self.cache.put(
            pending.key,
            Entry(
                pending.stamp,
                pending.digest,
                pending.candidate,
                parsed,
                old.mentions if old is not None and same else (),
                old.imports if old is not None and same else None,
            ),
        )

    def facts(self, path: Path) -> ModuleFacts | None:
        """The facts of one module now, parsed in this process if need be."""
        return self.facts_of([path])[0]

    def facts_of(self, paths: list[Path]) -> list[ModuleFacts | None]:
        """The facts of modules asked for together (the callers of a registrar, the modules of a
        tool's types), parsed by the workers too when they are up."""
        outcomes = self._parsed(self.examine(path, prefilter=False) for path in paths)
        return [outcome if isinstance(outcome, ModuleFacts) else None for outcome in outcomes]

    def facts_ahead(self, paths: list[Path]) -> Callable[[], list[ModuleFacts | None]]:
        """`facts_of`, started now and given when the returned function is called (once): the
        workers, when they are up, parse the modules while this process goes on."""
        outcomes, pending, parses = self._started(
            self.examine(path, prefilter=False) for path in paths
        )
        parses.hand_over_all()

        def facts() -> list[ModuleFacts | None]:
            parsed = self._finished(outcomes, pending, parses)
            return [outcome if isinstance(outcome, ModuleFacts) else None for outcome in parsed]

        return facts

    def outcomes(self, files: list[Path], keys: list[str], prefilter: bool) -> list[Outcome]:
        """Each file's outcome, none pending: the files to parse are handed to worker processes
        (when there are enough) as they are found, while the others are still being read."""
        examined = (
            self.examine(path, prefilter, key) for path, key in zip(files, keys, strict=True)
        )
        return self._parsed(examined)

    def _parsed(self, examined: Iterable[Outcome]) -> list[Outcome]:
        """The outcomes, each pending one parsed (and recorded in the cache). `examined` is
        consumed lazily: a file is handed to the parse as soon as it is examined."""
        return self._finished(*self._started(examined))

    def _started(
        self, examined: Iterable[Outcome]
    ) -> tuple[list[Outcome], list[tuple[int, Pending]], OrderedMap[ScanTask, ModuleFacts | str]]:
        """The outcomes, the pending ones with their index, and their parses, begun."""
        outcomes: list[Outcome] = []
        pending: list[tuple[int, Pending]] = []
        parses: OrderedMap[ScanTask, ModuleFacts | str] = OrderedMap(
            scan_source, self.workers, self._scan_here if self.scans is not None else None
        )
        for outcome in examined:
            if isinstance(outcome, Pending) and self.scans is not None:
                known = self.scans.results.get(outcome.task)
                if known is not None:
                    self.record(outcome, known)
                    outcomes.append(known)
                    continue
            if isinstance(outcome, Pending):
                if not pending:
                    # Imported before the workers fork, which then inherit it instead of each
                    # importing it again.
                    importlib.import_module("mcp_codemod.analysis.scan.scanner")
                pending.append((len(outcomes), outcome))
                parses.put(outcome.task, len(outcome.task.text))
            outcomes.append(outcome)
        return outcomes, pending, parses

    def _scan_here(self, task: ScanTask) -> ModuleFacts | str:
        """`scan_source` in this process, which offers the tree to the scans kept."""
        tree = _parse(task)
        if isinstance(tree, str):
            return tree
        assert self.scans is not None
        self.scans.keep(task.text, tree)
        return scan_tree(task, tree)

    def _finished(
        self,
        outcomes: list[Outcome],
        pending: list[tuple[int, Pending]],
        parses: OrderedMap[ScanTask, ModuleFacts | str],
    ) -> list[Outcome]:
        """The outcomes with the pending ones' results in their place, recorded in the cache."""
        results = parses.results()
        for (index, outcome), result in zip(pending, results, strict=True):
            self.record(outcome, result)
            if self.scans is not None:
                self.scans.results[outcome.task] = result
            outcomes[index] = result
        return outcomes
