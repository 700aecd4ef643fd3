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
        if directory not in self.packages:
            if directory.parent != directory and (directory / "__init__.py").is_file():
                above, root = self.package(directory.parent)
                name = f"{above}.{directory.name}" if above else directory.name
                self.packages[directory] = (name, root)
            else:
                self.packages[directory] = ("", directory)
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
        if directory not in self.marked_directories:
            if any((directory / marker).exists() for marker in PROJECT_MARKERS):
                found: Path | None = directory
            else:
                found = self.marked(directory.parent) if directory.parent != directory else None
            self.marked_directories[directory] = found
        return self.marked_directories[directory]
