"""Module names ↔ files on disk, so that `from .server import mcp` can be followed."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def module_name(path: Path) -> tuple[str, Path, bool]:
    """The dotted module name of a file, the directory it is importable from, and whether it is
    a package's `__init__`. A file outside any package is importable from its own directory."""
    return ModuleNames().of(path.resolve())


class ModuleNames:
    """`module_name` of the resolved paths of one run: whether a directory is a package is asked
    of the system once per directory, not once per file and directory above it."""

    def __init__(self) -> None:
        self.packages: dict[Path, tuple[str, Path]] = {}

    def of(self, resolved: Path) -> tuple[str, Path, bool]:
        is_package = resolved.name == "__init__.py"
        package, root = self.package(resolved.parent)
        if is_package:
            return package, root, True
        return (f"{package}.{resolved.stem}" if package else resolved.stem), root, False

    def package(self, directory: Path) -> tuple[str, Path]:
        """The dotted name of the package a directory is (empty if none), and the directory it
        is importable from."""
        # A loop up the directories, not recursion: a tree can be deeper than Python recurses.
        packages = []  # the directories below the first one known, the lowest first
        above = directory
        while above not in self.packages:
            if above.parent == above or not (above / "__init__.py").is_file():
                self.packages[above] = ("", above)
                break
            packages.append(above)
            above = above.parent
        name, root = self.packages[above]
        for package in reversed(packages):
            name = f"{name}.{package.name}" if name else package.name
            self.packages[package] = (name, root)
        return self.packages[directory]


def find_module(name: str, roots: list[Path]) -> Path | None:
    """The file that defines module `name` under one of `roots`, if there is one."""
    relative = Path(*name.split("."))
    # Joined as text: probed for every import the linker follows, under several roots each.
    module = str(relative.with_suffix(".py"))
    package = os.path.join(relative, "__init__.py")
    for root in map(str, roots):
        for candidate in (os.path.join(root, module), os.path.join(root, package)):
            if os.path.isfile(candidate):
                return Path(candidate)
    return None


def find_library_module(name: str) -> Path | None:
    """The source file of module `name` on `sys.path` of this process, found without importing
    it: a library the project registers a tool from (`from somelib.tools import search`)."""
    roots = [Path(entry) for entry in sys.path if entry and Path(entry).is_dir()]
    return find_module(name, roots)


PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def project_root(path: Path) -> Path:
    """The directory of the project a file belongs to: the closest one above it with a
    pyproject.toml, setup.py, setup.cfg or .git; else the directory it is importable from."""
    return ProjectRoots(ModuleNames()).of(path)


class ProjectRoots:
    """`project_root` of the files of one run: each directory's markers are looked for once,
    not once per file below it."""

    def __init__(self, module_names: ModuleNames) -> None:
        self.module_names = module_names
        self.marked_directories: dict[Path, Path | None] = {}

    def of(self, path: Path) -> Path:
        return self.marked(path.parent) or self.module_names.of(path.resolve())[1]

    def marked(self, directory: Path) -> Path | None:
        """The closest directory at or above this one with a project marker."""
        # A loop up the directories, not recursion: a tree can be deeper than Python recurses.
        climbed = []
        found: Path | None = None
        while True:
            if directory in self.marked_directories:
                found = self.marked_directories[directory]
                break
            climbed.append(directory)
            if any((directory / marker).exists() for marker in PROJECT_MARKERS):
                found = directory
                break
            if directory.parent == directory:
                break
            directory = directory.parent
        for below in climbed:
            self.marked_directories[below] = found
        return found
