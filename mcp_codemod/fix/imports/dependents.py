"""Whether other modules of a project take a name from a module: import it from there
(`from server import FastMCP`), reach it as an attribute (`server.FastMCP`), or get it through
a star import of the module (also through a module that star-imports it and hands it on).

The fixer asks before it removes the import of a server class that a swap left unused in its
own module: another module that takes the name from there would fail to import. The analysis
does not know this: the prefilter never parses most of those modules (`from server import
FastMCP` alone can make no server), so the question is answered here, when a removal is
planned, from the files of the project that mention the name or star-import something. Names
reached dynamically (`getattr(server, "FastMCP")`, `importlib`) are not seen.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from mcp_codemod.engine.discovery import PathError, discover
from mcp_codemod.engine.file_io import SourceError, decode, read_bytes
from mcp_codemod.engine.module_paths import ModuleNames, project_root
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE

_STAR_IMPORT = re.compile(rb"import[\s\\]*\*")


class Importers:
    """The answers for one run: each project is walked once, each file parsed once."""

    def __init__(
        self, excludes: tuple[str, ...] = DEFAULT_EXCLUDE, respect_gitignore: bool = True
    ) -> None:
        self.excludes = excludes
        self.respect_gitignore = respect_gitignore
        self.module_names = ModuleNames()
        self.project_files: dict[Path, list[Path]] = {}
        self.contents: dict[Path, bytes] = {}
        self.trees: dict[Path, ast.Module | None] = {}
        self.exports: dict[Path, list[str] | None] = {}  # each module's literal `__all__`

    def takes(
        self, path: Path, name: str, text: str | None = None, tree: ast.Module | None = None
    ) -> bool:
        """Whether another module of `path`'s project takes `name` from the module at `path`.
        `text` and `tree`: the module's text as the fixer read it, and its syntax tree: when
        the file holds that text, its `__all__` is read from the tree instead of parsing the
        file once more (and keeping a large module's tree for the rest of the run)."""
        path = path.resolve()
        if tree is not None and path not in self.exports and self._text(path) == text:
            self.exports[path] = _literal_all(tree)
        return self._takes(path, name, set())

    def _takes(self, path: Path, name: str, seen: set[Path]) -> bool:
        seen.add(path)
        module = self.module_names.of(path)[0]
        star_exports = not name.startswith("_") and self._literal_all(path) is None
        for other in self._files(path):
            if other in seen:
                continue
            data = self._bytes(other)
            if name.encode() not in data and not _STAR_IMPORT.search(data):
                continue
            tree = self._tree(other)
            taken = self._taken_by(other, tree, module, name) if tree is not None else None
            if taken == "name":
                return True
            # The name comes with a star import: the module takes it if it says the name, or
            # when it hands it on to others in turn.
            if taken == "star" and star_exports:
                if re.search(rb"\b%s\b" % re.escape(name.encode()), data):
                    return True
                if self._takes(other, name, seen):
                    return True
        return False

    def _taken_by(self, path: Path, tree: ast.Module, module: str, name: str) -> str | None:
        """ "name" when the module at `path` imports `name` from `module` or reaches it as an
        attribute of `module`; "star" when it star-imports `module`; else None."""
        package = self._package(path)
        modules: dict[str, str] = {}  # a local name → the module it is bound to
        star = False
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(node, package)
                for alias in node.names:
                    if source == module and alias.name == name:
                        return "name"
                    if source == module and alias.name == "*":
                        star = True
                    elif alias.name != "*":
                        modules[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        modules[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        modules[top] = top
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == name:
                dotted = _dotted(node.value)
                if dotted is None:
                    continue
                head, _, rest = dotted.partition(".")
                if head in modules and ".".join(filter(None, (modules[head], rest))) == module:
                    return "name"
        return "star" if star else None

    def _package(self, path: Path) -> str:
        module, _, is_package = self.module_names.of(path)
        return module if is_package else module.rpartition(".")[0]

    def _literal_all(self, path: Path) -> list[str] | None:
        if path not in self.exports:
            self.exports[path] = _literal_all(self._tree(path))
        return self.exports[path]

    def _files(self, path: Path) -> list[Path]:
        root = project_root(path)
        if root not in self.project_files:
            try:
                found = discover([root], self.excludes, self.respect_gitignore)
            except PathError:  # an editor's buffer for a file that is not on disk yet
                found = []
            # Beneath a resolved root, walked without following links, only a file itself can
            # be a link.
            self.project_files[root] = [
                Path(os.path.realpath(file)) if os.path.islink(file) else file for file in found
            ]
        return self.project_files[root]

    def _bytes(self, path: Path) -> bytes:
        if path not in self.contents:
            try:
                self.contents[path] = read_bytes(path)
            except SourceError:  # unreadable: it imports nothing
                self.contents[path] = b""
        return self.contents[path]

    def _text(self, path: Path) -> str | None:
        try:
            return decode(self._bytes(path)).text
        except SourceError:
            return None

    def _tree(self, path: Path) -> ast.Module | None:
        """The file's syntax tree; None when it cannot be decoded or parsed (then it imports
        nothing)."""
        if path not in self.trees:
            try:
                self.trees[path] = ast.parse(decode(self._bytes(path)).text)
            except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
                self.trees[path] = None
        return self.trees[path]


def _literal_all(tree: ast.Module | None) -> list[str] | None:
    """A module's `__all__`, when it is a literal list or tuple."""
    for node in tree.body if tree is not None else ():
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return None


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a `from` import reads, with a relative one resolved from `package`."""
    if not node.level:
        return node.module or ""
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*base, *([node.module] if node.module else [])])


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for an attribute chain on a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
