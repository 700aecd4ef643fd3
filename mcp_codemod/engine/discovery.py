"""Which files to look at: walk the given paths, skip excluded names and what .gitignore ignores.

A path given explicitly is always looked at, as ruff does, unless `force_exclude` (ruff's
`--force-exclude`: pre-commit passes every staged file explicitly); exclusions apply to what is
found beneath a given directory. Only regular files are looked at: reading a FIFO named `x.py`
would wait forever.

.gitignore files are matched as git matches them (`engine/gitignore.py`, in time linear in a
name's length), each relative to its own directory, the deepest one that has a matching pattern
deciding. A pattern git would never match is skipped with a warning.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcp_codemod.engine.gitignore import IgnoreFile, NeverMatches, parse_line
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE


@dataclass(frozen=True)
class DiscoveryScope:
    """How the run found its files: the directories it walked, with which exclusions. The search
    for a registrar's callers takes a project's files from the run's own list when the project
    lies within a walked directory, and walks it once, with the same exclusions, otherwise."""

    walked: tuple[Path, ...] = ()  # resolved
    excludes: tuple[str, ...] = DEFAULT_EXCLUDE
    respect_gitignore: bool = True
    # The real path of each file the walk found that is no link, by the path as found and by
    # the real path itself (`discover`).
    real_paths: Mapping[str, str] = field(default_factory=dict, compare=False)


class PathError(Exception):
    """A path on the command line that does not exist or is not a file or directory."""


Layers = tuple[tuple[Path, IgnoreFile], ...]  # (directory of a .gitignore, its patterns)
_warned: set[tuple[Path, int]] = set()


def _read_gitignore(directory: Path) -> IgnoreFile | None:
    path = directory / ".gitignore"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    patterns = []
    for number, line in enumerate(lines, start=1):
        try:
            pattern = parse_line(line)
        except (NeverMatches, re.error) as error:
            if (path, number) not in _warned:  # discovery may run more than once
                _warned.add((path, number))
                print(
                    f"{path}:{number}: warning: pattern {line!r} skipped: {error}",
                    file=sys.stderr,
                )
            continue
        if pattern is not None:
            patterns.append(pattern)
    return IgnoreFile(tuple(patterns)) if patterns else None


def _with_gitignore(layers: Layers, directory: Path) -> Layers:
    spec = _read_gitignore(directory)
    return (*layers, (directory, spec)) if spec is not None else layers


def _ignored(path: Path, is_directory: bool, layers: Layers) -> bool:
    for base, spec in reversed(layers):  # the deepest .gitignore with a matching pattern decides
        try:
            relative = path.relative_to(base).as_posix()
        except ValueError:
            continue
        decision = spec.decision(relative, is_directory)
        if decision is not None:
            return decision
    return False


def _repository_chain(path: Path) -> list[Path]:
    """The directories from the repository root down to `path`'s parent; [] outside one."""
    chain = []
    for parent in path.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            return chain[::-1]
    return []  # not in a repository: git would not read those files


def _ancestor_layers(directory: Path) -> Layers:
    """The .gitignore files above a walked directory, up to its repository root."""
    layers: Layers = ()
    for parent in _repository_chain(directory):
        layers = _with_gitignore(layers, parent)
    return layers


def _git_ignores(path: Path, is_directory: bool) -> bool:
    """Whether git ignores `path` itself or one of its directories (a path given explicitly)."""
    layers: Layers = ()
    for parent in _repository_chain(path):
        if layers and _ignored(parent, True, layers):
            return True
        layers = _with_gitignore(layers, parent)
    return _ignored(path, is_directory, layers)


def _exclusion(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regex for all exclude globs: a call per pattern and file costs more than the walk."""
    flags = re.IGNORECASE if os.path.normcase("A") != "A" else 0
    return re.compile("|".join(fnmatch.translate(p) for p in patterns) or "(?!)", flags)


def _excluded(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a name or relative path matches one of the exclude globs. A glob without `*`,
    `?` or `[` matches only itself (the defaults are all such names): looked up in a set, on a
    file system whose names are case-sensitive, instead of matched against every pattern of
    the regex, which is most of the walk's time per entry."""
    if os.path.normcase("A") != "A":
        every = _exclusion(patterns).match
        return lambda text: every(text) is not None
    names = frozenset(p for p in patterns if not any(c in p for c in "*?["))
    globs = tuple(p for p in patterns if p not in names)
    if not globs:
        return names.__contains__
    match = _exclusion(globs).match
    return lambda text: text in names or match(text) is not None


class Exclusion:
    """The excludes of one project, as ruff applies them: a glob matches a file's or a
    directory's name, or its path relative to the project root (the directory of the
    configuration file that set them), not to the working directory or to the path given."""

    def __init__(
        self,
        excludes: tuple[str, ...],
        respect_gitignore: bool,
        force_exclude: bool = False,
        root: Path | None = None,
    ) -> None:
        self.excluded = _excluded(excludes)
        self.respect_gitignore = respect_gitignore
        self.force_exclude = force_exclude
        # None: relative to each directory given (the search for a registrar's callers, which
        # walks a project root).
        self.root = os.path.abspath(root) if root is not None else None

    def prefix(self, resolved_directory: str) -> str | None:
        """The path of a directory relative to the project root, as a prefix for its entries'
        names ("" at the root); None outside the root, where only names are matched."""
        if self.root is None:
            return None
        relative = os.path.relpath(resolved_directory, self.root)
        if relative == ".":
            return ""
        if relative.startswith(".."):
            return None
        return relative.replace(os.sep, "/") + "/"


# The exclusion that applies in a (resolved) directory: its project's.
ExclusionAt = Callable[[str], Exclusion]


def _force_excluded(given: Path, exclusion: Exclusion) -> bool:
    """Whether `check` would skip `given` when it met it in a walk from its project root: an
    exclude matches the name of the file or of one of its directories below the root, or the
    path to one of them relative to the root; or git ignores it. Outside any project root, the
    names below the working directory (or the file's own name) are matched."""
    absolute = Path(os.path.abspath(given))
    steps: tuple[str, ...] = (absolute.name,)
    for base in (exclusion.root, os.getcwd()):
        if base is None:
            continue
        relative = os.path.relpath(absolute, base)
        if relative != "." and not relative.startswith(".."):
            steps = Path(relative).parts
            break
    for end in range(1, len(steps) + 1):
        if exclusion.excluded(steps[end - 1]) or exclusion.excluded("/".join(steps[:end])):
            return True
    return exclusion.respect_gitignore and _git_ignores(absolute, absolute.is_dir())


def force_excluded(path: Path, exclusion: Exclusion) -> bool:
    """Whether `--force-exclude` skips `path` (which need not exist: an editor's buffer)."""
    return _force_excluded(path, exclusion)


def _is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # a dangling link, or gone since it was listed
        return False


def discover(
    paths: list[Path],
    excludes: tuple[str, ...] = (),
    respect_gitignore: bool = True,
    force_exclude: bool = False,
    real_paths: dict[str, str] | None = None,
    *,
    root: Path | None = None,
    exclusion_at: ExclusionAt | None = None,
    unreadable: list[tuple[Path, str]] | None = None,
) -> list[Path]:
    """Python files under `paths`, sorted, without duplicates. `real_paths`: filled with the
    real path of each file the walk found that is no link, by the path as found and by the real
    path itself. `exclusion_at`: the exclusion of each project met (hierarchical settings);
    without it, `excludes`, `respect_gitignore` and `force_exclude` apply everywhere, relative
    to `root` (default: each path given). `unreadable`: filled with each directory that cannot
    be listed, and why (its files went unchecked: the run must say so, as for a file it cannot
    read)."""
    if exclusion_at is None:
        single = Exclusion(excludes, respect_gitignore, force_exclude, root)
        exclusion_at = lambda _directory: single  # noqa: E731
    # As text, spelled as `Path` spells it (a walk joins a `Path`'s text and names): a `Path`
    # per file, hashed and compared pair by pair, cost more than the walk.
    found: set[str] = set()
    for given in paths:
        if not given.exists():
            raise PathError(f"{given}: no such file or directory")
        is_directory = given.is_dir()
        if not is_directory and not _is_regular_file(given):
            raise PathError(f"{given}: not a regular file or a directory")
        exclusion = exclusion_at(os.path.abspath(given if is_directory else given.parent))
        if exclusion.force_exclude and _force_excluded(given, exclusion):
            continue
        if not is_directory:
            found.add(str(given))
            continue
        root_directory = given.resolve()
        base_layers = _ancestor_layers(root_directory) if exclusion.respect_gitignore else ()
        if base_layers and _ignored(root_directory, True, base_layers):
            # A directory given explicitly is walked even where git ignores it, as ruff does;
            # the patterns that ignore it would ignore all of it.
            base_layers = ()
        prefix = exclusion.prefix(str(root_directory)) if exclusion.root is not None else ""
        # Each directory with its resolved path and its path relative to its project root,
        # carried down: a directory reached by the walk is no link, so neither needs asking
        # the system again. Paths are strings until a file is found: a Path per directory
        # entry costs more than the listing. `Path(given)/name` spells the same path as
        # `str(given) + sep + name`.
        start = "" if str(given) == "." else os.path.join(str(given), "")
        stack: list[tuple[str, Layers, str, str | None, Exclusion]] = [
            (start, base_layers, str(root_directory), prefix, exclusion)
        ]
        while stack:
            here, layers, resolved, prefix, exclusion = stack.pop()
            try:
                entries = list(os.scandir(here or "."))
            except FileNotFoundError:
                continue  # gone since it was listed
            except OSError as error:
                if unreadable is not None:
                    directory = Path(here or ".")
                    unreadable.append((directory, f"cannot read: {error.strerror or error}"))
                continue
            if any(entry.name == "pyproject.toml" for entry in entries):
                # Perhaps another project's configuration, with excludes of its own.
                nested = exclusion_at(resolved)
                if nested is not exclusion:
                    exclusion = nested
                    prefix = exclusion.prefix(resolved) if exclusion.root is not None else ""
            excluded = exclusion.excluded
            if exclusion.respect_gitignore and any(e.name == ".gitignore" for e in entries):
                layers = _with_gitignore(layers, Path(resolved))
            resolved_prefix = os.path.join(resolved, "")
            for entry in entries:
                name = entry.name
                # Links to directories are not followed, as os.walk does not.
                is_directory = entry.is_dir(follow_symlinks=False)
                if not is_directory and not name.endswith(".py"):
                    continue
                relative = None if prefix is None else prefix + name
                if excluded(name) or (relative is not None and excluded(relative)):
                    continue
                if (
                    layers
                    and exclusion.respect_gitignore
                    and _ignored(Path(resolved, name), is_directory, layers)
                ):
                    continue
                if is_directory:
                    below = os.path.join(resolved, name)
                    below_prefix = None if relative is None else relative + "/"
                    stack.append((here + name + os.sep, layers, below, below_prefix, exclusion))
                elif entry.is_file():  # a regular file or a link to one: not a FIFO or a socket
                    path = here + name
                    found.add(path)
                    if real_paths is not None and not entry.is_symlink():
                        # Known here for the caller search, which asks for every file's, and
                        # for the modules the linker finds under the import roots (real paths).
                        real = resolved_prefix + name
                        real_paths[path] = real_paths[real] = real
    return _sorted_paths(found)


def _sorted_paths(found: set[str]) -> list[Path]:
    """The paths, as `Path`s in the order `Path`s sort in. POSIX paths all relative (a walk from
    the working directory) or all absolute (a project's, for the caller search) sort as the
    lists of their parts, which is that order, in one call; a mix sorts as `Path`s (`/` is a
    part of its own there, and `//` a root of its own)."""
    roots = {"//" if text.startswith("//") else text[:1] == "/" for text in found}
    if os.name == "posix" and len(roots) <= 1 and "//" not in roots:
        return [Path(text) for text in sorted(found, key=lambda text: text.split("/"))]
    return sorted(map(Path, found))


def writable_files(files: list[Path], paths: list[Path]) -> frozenset[Path]:
    """The files (resolved) that `fix` may rewrite: those discovery found, where a symbolic link
    found beneath a given directory counts only if its target is beneath that directory too."""
    roots = [str(path.resolve()) for path in paths]
    beneath = tuple(os.path.join(root, "") for root in roots)
    resolve = _resolver()
    return frozenset(
        target
        for target in map(resolve, files)
        if str(target) in roots or str(target).startswith(beneath)
    )


def _resolver() -> Callable[[Path], Path]:
    """`Path.resolve` for the many files of a tree: each directory's real path is its parent's
    and its name unless it is a link, so the system is asked one `lstat` per directory and file,
    not one per directory above each file (a tree 1,500 directories deep took minutes)."""
    known: dict[str, str] = {}

    def real_directory(directory: str) -> str:
        pending = []  # the directories below the first one known, the lowest first
        while directory not in known:
            parent = os.path.dirname(directory)
            if parent == directory or os.path.islink(directory):
                known[directory] = os.path.realpath(directory)
                break
            pending.append(directory)
            directory = parent
        real = known[directory]
        for below in reversed(pending):
            real = known[below] = os.path.join(real, os.path.basename(below))
        return real

    def resolve(file: Path) -> Path:
        if ".." in file.parts:  # `link/..` is not where `..` would be read by name
            return file.resolve()
        absolute = os.path.abspath(file)
        if os.path.islink(absolute):
            return file.resolve()
        return Path(real_directory(os.path.dirname(absolute)), os.path.basename(absolute))

    return resolve
