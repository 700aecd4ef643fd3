"""The modules of the checked tree, and the project's other modules loaded when an import or a
registrar's callers lead there."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.link.module_source import NotParsed
from mcp_codemod.engine.discovery import DiscoveryScope, discover
from mcp_codemod.engine.import_graph import ImportGraph
from mcp_codemod.engine.module_paths import (
    PROJECT_MARKERS,
    ProjectRoots,
    find_library_module,
    find_module,
)

# Parsing a file costs as much as reading the imports of this many: the search for a registrar's
# callers reads every file's imports only when that spares parsing as much.
PARSING_TO_READING_IMPORTS = 50

if TYPE_CHECKING:
    from mcp_codemod.engine.file_facts import FileFacts


class Project:
    """The modules of the checked tree, loading others on demand when an import leads there."""

    def __init__(self, sources: FileFacts, files: list[Path], discovery: DiscoveryScope) -> None:
        self.sources = sources
        self.files = files  # the run's files, as discovery found them
        self.discovery = discovery
        # The modules loaded, by resolved path: plain strings, as the caller search asks of
        # every file of a project for each registrar.
        self.by_path: dict[str, ModuleFacts | None] = {}
        self.loaded_modules: tuple[ModuleFacts, ...] | None = None  # `loaded`
        # Modules parsed before they are asked for (`parse_ahead`), by resolved path: each joins
        # `by_path` only when `load` asks for it. Those still being parsed wait on their batch.
        self.parsed_ahead: dict[str, ModuleFacts | None] = {}
        self.parsing_ahead: dict[str, Callable[[], None]] = {}
        self.roots: list[Path] = []
        self.project_files: dict[Path, list[str]] = {}
        self.import_graphs: dict[Path, ImportGraph] = {}
        self.listed_roots: set[Path] = set()  # whose listing the run cache's witness holds
        self.found: dict[tuple[str, Path, int], Path | None] = {}
        self.near_roots: dict[str, Path] = {}  # a module's path → the directory it imports from
        self.near_roots_above: dict[Path, list[Path]] = {}  # `above`
        self.answers: dict[tuple[str, str, int], ModuleFacts | None] = {}
        self.listings: dict[Path, frozenset[str]] = {}
        self.holding: dict[str, tuple[int, list[Path]]] = {}  # `roots_holding`, per root count
        self.resolved_files: list[str] | None = None  # `files_of`
        self.libraries: dict[str, ModuleFacts | None] = {}
        self.project_roots = ProjectRoots(sources.module_names)

    def add(self, path: Path, facts: ModuleFacts | None) -> None:
        self.by_path[str(self.sources.resolve(path))] = facts
        self.loaded_modules = None

    def add_roots(self, files: list[Path]) -> None:
        """The directories the given files are importable from, in order: where imports are
        looked up. Every given file counts, parsed or not, so that what is found does not
        depend on which files the prefilter passed."""
        directories: set[str] = set()
        known = set(self.roots)
        for path in files:
            # As text: a `Path`'s parent is a new object, for each of thousands of files.
            directory = os.path.dirname(path)
            if directory not in directories:
                directories.add(directory)
                root = self.sources.import_root(path)
                if root not in known:
                    known.add(root)
                    self.roots.append(root)

    def load(self, name: str, near: ModuleFacts) -> ModuleFacts | None:
        # The linker asks for the same modules from every module that imports them, and again
        # for every call's callee: hundreds of thousands of times on a large tree, so the answer
        # is kept under plain strings, and the file system probed once per package root.
        answer = (name, near.path, len(self.roots))
        if answer not in self.answers:
            path = self.find(name, near)
            if path is None:
                self.answers[answer] = None
            else:
                key = str(path)
                if key not in self.by_path:
                    # None when it cannot be parsed: reported only if the user asked to check it.
                    if self.was_parsed_ahead(key):
                        self.by_path[key] = self.parsed_ahead.pop(key)
                    else:
                        self.by_path[key] = self.sources.facts(path)
                    self.loaded_modules = None
                self.answers[answer] = self.by_path[key]
        return self.answers[answer]

    def preload(self, modules: Iterable[tuple[str, ModuleFacts]]) -> None:
        """Parse together the modules `load` is about to be asked for (each name with the module
        that imports it), so that the workers share them: loaded one by one, they were parsed
        one after the other while the other cores stood idle."""
        paths = self._paths_of(modules, self.by_path.__contains__)
        if len(paths) > 1:  # one alone is parsed when it is loaded
            self.parse_together(paths)

    def parse_ahead(self, modules: Iterable[tuple[str, ModuleFacts]]) -> None:
        """Start parsing together modules `load` is about to be asked for, without loading them:
        the workers parse them while the linker goes on, and each is loaded when asked for,
        where it would have been had it been parsed then. While the tools are being reached,
        which modules are loaded decides which callers a search sees, and the order they were
        loaded in the order of what it finds."""
        paths = self._paths_of(
            modules,
            lambda key: (
                key in self.by_path or key in self.parsed_ahead or key in self.parsing_ahead
            ),
        )
        if not paths:
            return
        keys = list(map(str, paths))
        facts = self.sources.facts_ahead(paths)

        def finish() -> None:
            for key, found in zip(keys, facts(), strict=True):
                del self.parsing_ahead[key]
                self.parsed_ahead[key] = found

        self.parsing_ahead.update(dict.fromkeys(keys, finish))

    def _paths_of(
        self, modules: Iterable[tuple[str, ModuleFacts]], known: Callable[[str], bool]
    ) -> list[Path]:
        """The files (resolved) of these modules, each as `near` imports it, once each and in
        order, without those whose path `known` accepts (loaded, or parsed already)."""
        paths: list[Path] = []
        for name, near in modules:
            path = self.find(name, near)
            if path is not None and path not in paths and not known(str(path)):
                paths.append(path)
        return paths

    def load_parsed(self, name: str, near: ModuleFacts) -> ModuleFacts | None:
        """`load`, of a module loaded or parsed ahead already; raises NotParsed for a module
        of the project that is neither. Loads nothing, waits for nothing."""
        path = self.find(name, near)
        if path is None:
            return None
        key = str(path)
        if key in self.by_path:
            return self.by_path[key]
        if key in self.parsed_ahead:
            return self.parsed_ahead[key]
        raise NotParsed(name, near)

    def was_parsed_ahead(self, key: str) -> bool:
        """Whether the module is among those parsed ahead and not loaded yet (waiting for its
        batch if it is still being parsed)."""
        finish = self.parsing_ahead.get(key)
        if finish is not None:
            finish()
        return key in self.parsed_ahead

    def parse_together(self, paths: list[Path]) -> list[ModuleFacts | None]:
        """The facts of these modules, parsed together (over the workers when they are up), and
        kept; None for one that cannot be parsed."""
        ahead = [self.was_parsed_ahead(str(path)) for path in paths]
        unparsed = [
            path for path, parsed_ahead in zip(paths, ahead, strict=True) if not parsed_ahead
        ]
        facts = iter(self.sources.facts_of(unparsed))
        parsed = [
            self.parsed_ahead.pop(str(path)) if parsed_ahead else next(facts)
            for path, parsed_ahead in zip(paths, ahead, strict=True)
        ]
        self.by_path.update(zip(map(str, paths), parsed, strict=True))
        self.loaded_modules = None
        return parsed

    def find(self, name: str, near: ModuleFacts) -> Path | None:
        """The file (resolved) of module `name` as `near` imports it."""
        near_root = self.near_roots.get(near.path)
        if near_root is None:
            near_root = self.near_roots[near.path] = self.sources.import_root(Path(near.path))
        probe = (name, near_root, len(self.roots))
        if probe not in self.found:
            # Namespace packages (directories without `__init__.py`, as in `awslabs.x.tools`)
            # are importable from some directory above the one where the `__init__` chain stops.
            top = name.partition(".")[0]
            roots = [
                *([near_root] if self.may_hold(near_root, top) else []),
                *self.roots_holding(top),
                *[root for root in self.above(near_root) if self.may_hold(root, top, above=True)],
            ]
            path = find_module(name, roots) if roots else None
            if self.sources.witness is not None:
                self.sources.witness.module_probes(roots, name)
            self.found[probe] = self.sources.resolve(path) if path is not None else None
        return self.found[probe]

    def above(self, near_root: Path) -> list[Path]:
        """The four directories above a module's root, where a namespace package may start."""
        above = self.near_roots_above.get(near_root)
        if above is None:
            above = self.near_roots_above[near_root] = list(near_root.parents)[:4]
        return above

    def roots_holding(self, top: str) -> list[Path]:
        """The package roots that may hold `top`: asked for each import of each module, of a
        list of roots as long as the tree has projects."""
        known = self.holding.get(top)
        if known is None or known[0] != len(self.roots):
            known = self.holding[top] = (
                len(self.roots),
                [root for root in self.roots if self.may_hold(root, top)],
            )
        return known[1]

    def may_hold(self, root: Path, top: str, above: bool = False) -> bool:
        """Whether a module or package `top` can be under `root`: one listing per directory
        instead of two probes per root for every name (most, as `typing`, are nowhere).

        What the run depends on is that listing: for a root of the project's modules, the
        directory's stamp (an entry added or removed changes it) instead of two paths per name
        asked about. A directory above a module's root may be busy (a home directory, /tmp),
        and a file appearing there would drop every result: the paths asked about."""
        if self.sources.witness is not None:
            if above:
                self.sources.witness.saw((root / top, root / f"{top}.py"))
            elif root not in self.listed_roots:
                self.listed_roots.add(root)
                self.sources.witness.saw((root,))
        if root not in self.listings:
            try:
                self.listings[root] = frozenset(os.listdir(root))
            except OSError:
                self.listings[root] = frozenset()
        listing = self.listings[root]
        return top in listing or f"{top}.py" in listing

    def load_library(self, name: str) -> ModuleFacts | None:
        """A module outside the project, read from its source on `sys.path`: asked only for a
        tool function the project does not define."""
        if name not in self.libraries:
            path = find_library_module(name)
            if self.sources.witness is not None:
                self.sources.witness.module_probes(map(Path, filter(None, sys.path)), name)
            self.libraries[name] = self.sources.facts(path) if path is not None else None
        return self.libraries[name]

    def loaded(self) -> tuple[ModuleFacts, ...]:
        """The modules loaded so far: the same tuple until another is loaded (asked for every
        registrar's callers, and mostly nothing was loaded since)."""
        if self.loaded_modules is None:
            self.loaded_modules = tuple(
                facts for facts in self.by_path.values() if facts is not None
            )
        return self.loaded_modules

    def load_callers(self, name: str, near: ModuleFacts) -> list[ModuleFacts]:
        """Load the project's modules that may call `name` (a registrar taking the server as an
        argument, a decorator factory), when they were not among the files given: pre-commit
        passes the staged ones. Every file whose text has the word is parsed, whatever the
        prefilter says of it: `register(mcp)` with `mcp` imported, or `@tools.reader("Title")`,
        holds no word the prefilter looks for."""
        near_path = self.sources.resolve(Path(near.path))
        root = self.project_roots.of(near_path)
        if self.sources.witness is not None:
            self.sources.witness.saw(  # where project markers were looked for
                directory / marker for directory in near_path.parents for marker in PROJECT_MARKERS
            )
        files = self.files_of(root)
        unloaded = [path for path in files if path not in self.by_path]
        mentioning = self.sources.callers.mentioning(unloaded, name)
        # Of those, only the files whose imports may lead to `near` can call into it: worth
        # reading every file's imports for when it spares parsing enough of them (or they were
        # read for an earlier search).
        if root in self.import_graphs or len(mentioning) * PARSING_TO_READING_IMPORTS > len(files):
            reaching = self.import_graph(root, files).reaching(str(near_path))
            mentioning = [path for path in mentioning if path in reaching]
        paths = [Path(path) for path in mentioning]
        return [facts for facts in self.parse_together(paths) if facts is not None]

    def import_graph(self, root: Path, files: list[str]) -> ImportGraph:
        if root not in self.import_graphs:
            self.import_graphs[root] = ImportGraph(self.sources.callers.imports(files))
        return self.import_graphs[root]

    def files_of(self, root: Path) -> list[str]:
        """The project's files (resolved): discovery runs once per run, not once per registrar."""
        if root not in self.project_files:
            if any(root == walked or walked in root.parents for walked in self.discovery.walked):
                if self.resolved_files is None:
                    self.resolved_files = self.sources.real_paths(list(map(str, self.files)))
                inside = os.path.join(root, "")
                self.project_files[root] = [
                    resolved for resolved in self.resolved_files if resolved.startswith(inside)
                ]
            else:
                # Beneath a resolved root, walked without following links, only a file itself
                # can be a link, and the walk tells which (`real_paths` holds the others, each
                # its own real path): resolved without asking the system again.
                real_paths: dict[str, str] = {}
                files = discover(
                    [root],
                    self.discovery.excludes,
                    self.discovery.respect_gitignore,
                    real_paths=real_paths,
                )
                self.project_files[root] = [
                    real_paths.get(path) or self.sources.real_path(path) for path in map(str, files)
                ]
                if self.sources.witness is not None:
                    self.sources.witness.walk(root, self.discovery.excludes)
        return self.project_files[root]
