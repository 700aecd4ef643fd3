"""A whole run's result, kept with the state of everything it was computed from.

A run's findings depend on the given files and on more: the modules that imports, registrars'
callers and libraries lead to, and the directories probed to find them (a module that appears
where an import found nothing changes what it resolves to). While it runs, the checker records
them in a `Witness`: every file whose content it used, every path whose existence it asked about
(an `__init__.py`, a module an import may name, a project marker), and the directories of every
walk of a project (for registrars' callers) with their `.gitignore` files. Exact paths, not directories: a directory as busy as `/tmp` or a home
directory changes all the time. The result is stored with the stamp (size,
mtime, ctime, inode) of each of those paths; a later run with the same key (files, settings,
rules, working directory, `sys.path` and the analysis code) whose stamps all match returns the
stored result without reading anything else. Anything that does not match is a miss: the run is done afresh (with the facts
cache) and stored again.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import io
import os
import pickle
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import mcp_codemod
from mcp_codemod.engine import facts_cache as cache
from mcp_codemod.engine.facts_cache import RestrictedUnpickler, Stamp, stamp

_FORMAT = 3
_KEPT = 8  # results of this many distinct runs (file sets, settings) are kept
# The result's classes, besides the facts' (reading a cache file must not run code). A class
# a result comes to hold is listed here, or every stored result is a miss (test_cache_safety).
RESULT_CLASSES = cache.FACTS_CLASSES | {
    ("mcp_codemod.engine.checker", "CheckResult"),
    ("mcp_codemod.analysis.facades", "Facade"),  # a server's facade (an unchecked registration's)
    ("mcp_codemod.analysis.unchecked", "Unchecked"),
    *(
        ("mcp_codemod.rules.findings", name)
        for name in ("AnnotationEdit", "FileError", "Finding", "Fix", "MarkerEdit", "Safety")
    ),
    *(
        ("mcp_codemod.analysis.subjects", name)
        for name in (
            "LinkResult",
            "ResolvedServer",
            "ServerTools",
            "ToolParameter",
            "UncheckedRegistration",
        )
    ),
}


def path_stamp(path: str) -> Stamp | None:
    try:
        return stamp(os.stat(path))
    except OSError:
        return None


class Witness:
    """What a run's result depends on, besides its key: the paths whose state it read."""

    def __init__(self, cache_dir: Path) -> None:
        self.paths: set[str] = set()
        # Written by every run: never a dependency, and always too recent to trust.
        self.cache_dir = os.path.realpath(cache_dir)

    def saw(self, paths: Iterable[str | Path]) -> None:
        self.paths.update(map(os.fspath, paths))

    def module_probes(self, roots: Iterable[Path], name: str) -> None:
        """`find_module` looks for `a/b/c.py` and `a/b/c/__init__.py` under each root."""
        relative = os.path.join(*name.split("."))
        for root in roots:
            base = os.path.join(root, relative)
            self.paths.add(base + ".py")
            self.paths.add(os.path.join(base, "__init__.py"))

    def walk(self, root: Path, excludes: tuple[str, ...]) -> None:
        """A discovery under `root`: a file appearing or disappearing there changes the stamp of
        a directory it walked, a changed rule that of a `.gitignore`. Only exclusions by name
        prune this walk: discovery prunes at least as much, and more paths only cost stats."""
        excluded = re.compile("|".join(fnmatch.translate(p) for p in excludes) or "(?!)").match
        for directory in root.parents:
            self.paths.update(str(directory / name) for name in (".gitignore", ".git"))
        for directory, subdirectories, _files in os.walk(root):
            subdirectories[:] = [
                name
                for name in subdirectories
                if not excluded(name) and os.path.join(directory, name) != self.cache_dir
            ]
            self.paths.add(directory)
            self.paths.add(os.path.join(directory, ".gitignore"))


def _code_stamps() -> tuple:
    """The state of this package's modules: a result is reused only by the code that made it
    (an editable install under development changes without a new version number)."""
    package = Path(mcp_codemod.__file__).parent
    stamps = []
    layers = ("analysis", "analysis/scan", "analysis/link", "engine", "rules")
    for directory in (package, *(package / layer for layer in layers)):
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            stamps += sorted(
                (entry.name, stamp(entry.stat())) for entry in entries if entry.name.endswith(".py")
            )
    return tuple(stamps)


class RunCache:
    """Stored results, one file per key under `<cache>/<version>/runs/`."""

    def __init__(self, directory: Path, key: tuple) -> None:
        full_key = (_FORMAT, sys.implementation.cache_tag, tuple(sys.path), _code_stamps(), key)
        # Stored and compared as its text: one string, where the tuples of the files given and
        # the code's stamps took as many objects to unpickle.
        self.key = repr(full_key)
        name = hashlib.sha1(self.key.encode(), usedforsecurity=False).hexdigest()
        self.folder = directory / mcp_codemod.__version__ / "runs"
        self.file = self.folder / f"{name}-{sys.implementation.cache_tag}"
        # Made before the run starts: creating the cache directory changes the directory that
        # holds it, which the run may look into (and then would not trust what it saw).
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
        self.started = time.time_ns()

    def load(self):
        """The stored result, if everything it depends on is as it was; else None."""
        try:
            with open(self.file, "rb") as stream:
                key, stamps, result = RestrictedUnpickler(stream).load()
            if key != self.key:
                return None
            for path, expected in stamps.items():
                if path_stamp(path) != expected:
                    return None
            return _ResultUnpickler(io.BytesIO(result)).load()
        except Exception:  # missing, damaged, of another format: a miss
            return None

    def save(self, witness: Witness, result: object) -> None:
        """Store `result`, unless a path it depends on changed too recently for its stamp to
        show a later change (timestamps are coarse), or since the run started."""
        stamps = {path: path_stamp(path) for path in sorted(witness.paths)}
        recent = self.started - cache.RACY_NS
        if any(s is not None and max(s[1], s[2]) >= recent for s in stamps.values()):
            return
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        import tempfile

        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as stream:
                    pickle.dump(
                        (self.key, stamps, data),
                        stream,
                        protocol=pickle.HIGHEST_PROTOCOL,
                    )
                os.replace(temporary, self.file)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()

    def _prune(self) -> None:
        """Keep the results of the latest runs only (each set of files given makes one)."""
        stored = sorted(self.folder.iterdir(), key=lambda path: path.stat().st_mtime_ns)
        for old in stored[:-_KEPT]:
            old.unlink(missing_ok=True)


class _ResultUnpickler(RestrictedUnpickler):
    allowed = RESULT_CLASSES
