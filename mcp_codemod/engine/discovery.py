"""Which files to look at: walk the given paths, skip excluded names and what .gitignore ignores.

A path given explicitly is always looked at, as ruff does, unless `force_exclude` (ruff's
`--force-exclude`: pre-commit passes every staged file explicitly); exclusions apply to what is
found beneath a given directory. Only regular files are looked at: reading a FIFO named `x.py`
would wait forever.

.gitignore files are matched as git matches them, each relative to its own directory, the deepest
one that has a matching pattern deciding. pathspec's `GitIgnoreSpec` does the matching; bracket
expressions are rewritten first into a form it copies faithfully (it knows no `[:alpha:]` classes
and no backslash escapes inside brackets). A pattern git would never match is skipped with a
warning.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import string
import sys
from collections.abc import Callable
from pathlib import Path

from pathspec import GitIgnoreSpec


class PathError(Exception):
    """A path on the command line that does not exist or is not a file or directory."""


class _NeverMatches(Exception):
    """A .gitignore pattern that git never matches (an empty range, an unknown class...)."""


# Git's wildmatch classes, which test ASCII characters only.
_CLASS_TESTS = {
    "alnum": str.isalnum,
    "alpha": str.isalpha,
    "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "digit": str.isdigit,
    "graph": lambda c: 33 <= ord(c) <= 126,
    "lower": str.islower,
    "print": lambda c: 32 <= ord(c) <= 126,
    "punct": lambda c: c in string.punctuation,
    "space": lambda c: c in " \t\n\r\f\v",
    "upper": str.isupper,
    "xdigit": lambda c: c in string.hexdigits,
}
_CLASSES = {
    name: frozenset(chr(code) for code in range(128) if test(chr(code)))
    for name, test in _CLASS_TESTS.items()
}
# Characters that mean something inside a regex set, placed where they are literal.
_SET_SPECIALS = "]\\^[-"


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """The bracket expression at `start`, parsed as git's wildmatch does, rewritten for pathspec,
    and the index after it."""
    index = start + 1
    negated = pattern[index : index + 1] in ("!", "^")
    index += negated
    members: set[str] = set()
    ranges: list[tuple[str, str]] = []
    previous: str | None = None
    first = True
    while True:
        if index >= len(pattern):
            raise _NeverMatches("unterminated bracket")
        char = pattern[index]
        if char == "]" and not first:
            index += 1
            break
        first = False
        if char == "\\":
            index += 1
            if index >= len(pattern):
                raise _NeverMatches("unterminated bracket")
            char = pattern[index]
            members.add(char)
            previous = char
        elif (
            char == "-" and previous is not None and pattern[index + 1 : index + 2] not in ("", "]")
        ):
            index += 1
            high = pattern[index]
            if high == "\\":
                index += 1
                if index >= len(pattern):
                    raise _NeverMatches("unterminated bracket")
                high = pattern[index]
            if previous <= high:  # git matches nothing in a reversed range
                ranges.append((previous, high))
            previous = None
        elif char == "[" and pattern[index + 1 : index + 2] == ":":
            end = pattern.find("]", index + 2)
            if end == -1:
                raise _NeverMatches("unterminated bracket")
            name = pattern[index + 2 : end]
            if not name.endswith(":") or end - index - 3 < 0:  # no `:]`: a literal `[`
                members.add(char)
                previous = char
            elif name[:-1] not in _CLASSES:
                raise _NeverMatches(f"unknown character class [:{name}]")
            else:
                members |= _CLASSES[name[:-1]]
                previous = None
                index = end
        else:
            members.add(char)
            previous = char
        index += 1
    return _bracket_for_pathspec(members, ranges, negated), index


def _bracket_for_pathspec(members: set[str], ranges: list[tuple[str, str]], negated: bool) -> str:
    # A bracket never matches `/` in git, negated or not.
    members.discard("/")
    plain = []
    for low, high in ranges:
        # Special characters and `/` leave the range and become members of their own.
        cuts = sorted({c for c in _SET_SPECIALS + "/" if low <= c <= high})
        members.update(c for c in cuts if c != "/")
        for cut in cuts:
            if low < cut:
                plain.append((low, chr(ord(cut) - 1)))
            low = chr(ord(cut) + 1)
        if low <= high:
            plain.append((low, high))
    if negated:
        # `[!]` alone would read as a bracket starting with `]`; `?` is any character but `/`.
        return "[!" + _set_body(members, plain) + "]" if members or plain else "?"
    if not plain and len(members) <= 1:
        if not members:
            raise _NeverMatches("matches no character")
        return "\\" + next(iter(members))
    body = _set_body(members, plain)
    if body[0] in "^[":
        # Only `^`, `[` and maybe `-`: a leading `-` is literal; `^[` alone has no safe form.
        if "-" not in members:
            raise _NeverMatches("unsupported bracket [^[]")
        body = "-" + body.replace("-", "")
    return "[" + body + "]"


def _set_body(members: set[str], ranges: list[tuple[str, str]]) -> str:
    """`]` first, ranges and ordinary members, then `\\` `^` `[` `-`: each literal where it
    stands (pathspec doubles the backslash)."""
    ordinary = sorted(c for c in members if c not in _SET_SPECIALS)
    body = "]" if "]" in members else ""
    body += "".join(f"{low}-{high}" if low < high else low for low, high in ranges)
    body += "".join(ordinary)
    return body + "".join(c for c in "\\^[-" if c in members)


def _for_pathspec(line: str) -> str:
    """A .gitignore line with its bracket expressions rewritten; raises _NeverMatches."""
    if line.startswith("#"):
        return line
    out = []
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\":
            out.append(line[index : index + 2])
            index += 2
        elif char == "[":
            rewritten, index = _bracket(line, index)
            out.append(rewritten)
        else:
            out.append(char)
            index += 1
    return "".join(out)


Layers = tuple[tuple[Path, GitIgnoreSpec], ...]  # (directory of a .gitignore, its patterns)
_warned: set[tuple[Path, int]] = set()


def _read_gitignore(directory: Path) -> GitIgnoreSpec | None:
    path = directory / ".gitignore"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    patterns = []
    for number, line in enumerate(lines, start=1):
        try:
            patterns.extend(GitIgnoreSpec.from_lines([_for_pathspec(line)]).patterns)
        except (_NeverMatches, ValueError, re.error) as error:
            if (path, number) not in _warned:  # discovery may run more than once
                _warned.add((path, number))
                print(
                    f"{path}:{number}: warning: pattern {line!r} skipped: {error}",
                    file=sys.stderr,
                )
    return GitIgnoreSpec(patterns) if patterns else None


def _with_gitignore(layers: Layers, directory: Path) -> Layers:
    spec = _read_gitignore(directory)
    return (*layers, (directory, spec)) if spec is not None else layers


def _ignored(path: Path, is_directory: bool, layers: Layers) -> bool:
    for base, spec in reversed(layers):  # the deepest .gitignore with a matching pattern decides
        try:
            relative = path.relative_to(base).as_posix()
        except ValueError:
            continue
        result = spec.check_file(relative + "/" if is_directory else relative)
        if result.include is not None:
            return result.include
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
        self.excluded = _exclusion(excludes).match
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
) -> list[Path]:
    """Python files under `paths`, sorted, without duplicates. `real_paths`: filled with the
    real path of each file the walk found that is no link, by the path as found and by the real
    path itself. `exclusion_at`: the exclusion of each project met (hierarchical settings);
    without it, `excludes`, `respect_gitignore` and `force_exclude` apply everywhere, relative
    to `root` (default: each path given)."""
    if exclusion_at is None:
        single = Exclusion(excludes, respect_gitignore, force_exclude, root)
        exclusion_at = lambda _directory: single  # noqa: E731
    found: set[Path] = set()
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
            found.add(given)
            continue
        root_directory = given.resolve()
        base_layers = _ancestor_layers(root_directory) if exclusion.respect_gitignore else ()
        if base_layers and _ignored(root_directory, True, base_layers):
            # A directory given explicitly is walked even where git ignores it, as ruff does;
            # the patterns that ignore it would ignore all of it (pathspec matches descendants).
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
            except OSError:
                continue  # unreadable, or gone since it was listed: as os.walk does
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
                    found.add(Path(path))
                    if real_paths is not None and not entry.is_symlink():
                        # Known here for the caller search, which asks for every file's, and
                        # for the modules the linker finds under the import roots (real paths).
                        real = resolved_prefix + name
                        real_paths[path] = real_paths[real] = real
    return sorted(found)


def writable_files(files: list[Path], paths: list[Path]) -> frozenset[Path]:
    """The files (resolved) that `fix` may rewrite: those discovery found, where a symbolic link
    found beneath a given directory counts only if its target is beneath that directory too."""
    roots = [path.resolve() for path in paths]
    return frozenset(
        target
        for target in (file.resolve() for file in files)
        if any(target == root or root in target.parents for root in roots)
    )
