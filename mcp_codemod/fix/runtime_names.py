"""Whether the names fixed code imports from the runtime exist where `fix` runs.

`fix` never says "Fixed" over a module that would not import: after its changes it reads every
name the fixed files import from `mcp_codemod.runtime` (or the project's generated copy of it,
the `runtime-module` setting), and each guarded class needs its own mcp major: `GuardedFastMCP`
exists only with mcp 1.x, `GuardedMCPServer` only with mcp 2.x. The installed mcp is read from
its distribution's metadata and file list, never by importing it, and never the user's code.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from mcp_codemod.analysis.frameworks import RUNTIME_MODULES
from mcp_codemod.analysis.scan.syntax import statement_nodes

# Each guarded class: the mcp major it needs, and the SDK module its base class comes from.
_GUARDED_CLASSES = {
    "GuardedFastMCP": (1, "mcp/server/fastmcp/__init__.py"),
    "GuardedMCPServer": (2, "mcp/server/mcpserver/__init__.py"),
}
# The server package each mcp major has, and the other lacks.
_SDK_PACKAGES = {1: "mcp.server.fastmcp", 2: "mcp.server.mcpserver"}
# The runtime's names that load the mcp SDK when they are imported.
_NEEDS_MCP = frozenset(("guard", "install", "uninstall", *_GUARDED_CLASSES))


@dataclass(frozen=True)
class InstalledMcp:
    """The mcp distribution where `fix` runs: its version and the files it installed."""

    version: str | None  # None: not installed
    files: frozenset[str] = frozenset()

    @property
    def major(self) -> int | None:
        if self.version is None:
            return None
        head = self.version.split(".")[0]
        return int(head) if head.isdigit() else None


def installed_mcp() -> InstalledMcp:
    try:
        distribution = metadata.distribution("mcp")
    except metadata.PackageNotFoundError:
        return InstalledMcp(None)
    files = frozenset(str(path).replace("\\", "/") for path in distribution.files or ())
    return InstalledMcp(distribution.version, files)


def runtime_exports() -> frozenset[str]:
    """The names `mcp_codemod.runtime` offers, read from its source (importing it would need
    pydantic, which `fix` does not)."""
    path = Path(__file__).resolve().parent.parent / "runtime" / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List | ast.Tuple):
            targets = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if targets & {"__all__", "_SERVER_NAMES"}:
                names.update(e.value for e in node.value.elts if isinstance(e, ast.Constant))
    return frozenset(names)


@dataclass(frozen=True)
class ModuleImports:
    """What the confirmation reads of a module: its import statements, read from a syntax tree
    (`module_imports`). The fix reads them from the trees it parses anyway (the text before its
    edits, and the fixed text it checks), so that the confirmation parses neither again."""

    # Each module-level import outside any function or class: the modules it names (`import a,
    # b`: a and b; `from m import x`: m) and, for an absolute `from` import, the names it takes.
    module_level: tuple[tuple[tuple[str, ...], tuple[str, ...] | None], ...]
    # Every absolute `from` import, anywhere, in the order `ast.walk` meets them: its line, its
    # module and the names it takes (None: not read, for a text the confirmation reads only
    # the module-level imports of, the one before the fix).
    absolute_from: tuple[tuple[int, str, tuple[str, ...]], ...] | None


def module_imports(tree: ast.Module, everywhere: bool = True) -> ModuleImports:
    """`everywhere`: also the `from` imports in functions, classes and branches."""
    module_level = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            module_level.append(((node.module,), tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Import):
            module_level.append((tuple(alias.name for alias in node.names), None))
    if not everywhere:
        return ModuleImports(tuple(module_level), None)
    absolute_from = tuple(
        (node.lineno, node.module, tuple(alias.name for alias in node.names))
        for node in statement_nodes(tree)
        if isinstance(node, ast.ImportFrom) and not node.level and node.module
    )
    return ModuleImports(tuple(module_level), absolute_from)


def runtime_imports(
    imports: ModuleImports, runtime_modules: Collection[str]
) -> list[tuple[int, str]]:
    """The names a module imports from the runtime, each with its line: `from
    mcp_codemod.runtime import X`, anywhere in the module."""
    assert imports.absolute_from is not None, "read with everywhere=True"
    return [
        (line, name)
        for line, module, names in imports.absolute_from
        if module in runtime_modules
        for name in names
    ]


def written_for(imports: ModuleImports, runtime_modules: Collection[str]) -> int | None:
    """The one mcp major a module runs on, when a module-level import outside any branch names
    that major's server package (`from mcp.server.mcpserver import MCPServer`), or that major's
    guarded class (a module a fix made guarded before): the guarded class of that major is right
    for it, whichever mcp is installed where `fix` runs."""
    for modules, names in imports.module_level:
        if names is not None and modules[0] in runtime_modules:
            for name in names:
                if name in _GUARDED_CLASSES:
                    return _GUARDED_CLASSES[name][0]
        for module in modules:
            for major, package in _SDK_PACKAGES.items():
                if module == package or module.startswith(f"{package}."):
                    return major
    return None


def missing_names(
    fixed: Iterable[tuple[str, str | ModuleImports | None, str | ModuleImports | None]],
    runtime_modules: Collection[str],
    exported: Collection[str],
    mcp: InstalledMcp,
    swapped: Mapping[str, Collection[str]] | None = None,
) -> list[str]:
    """One line per name a fixed file (path, text before the fix, text after) imports from the
    runtime that does not exist with the mcp installed here (for a module written for one major
    only, as its text before the fix says: with that major). Each text may come as what the fix
    read of its tree already (`ModuleImports`; None: it does not parse). `swapped`: per file,
    the guarded classes the fix swapped in for a server class bound once, which the analysis
    followed to its major's package (through a re-export too): right for the module wherever
    `fix` runs."""
    modules = {*RUNTIME_MODULES, *runtime_modules}
    lines = []
    for path, original, text in fixed:
        after, before = _read(text), _read(original)
        if after is None:
            continue  # never written: the fixer refuses a result that does not parse
        major = written_for(before, modules) if before is not None else None
        proven = (swapped or {}).get(path, ())
        for line, name in runtime_imports(after, modules):
            if major is not None and _GUARDED_CLASSES.get(name, (None,))[0] == major:
                continue
            if name in proven:
                continue
            why = _why_missing(name, exported, mcp)
            if why is not None:
                lines.append(f"{path}:{line}: error: the fixed code imports `{name}`, {why}")
    return lines


def _read(text: str | ModuleImports | None) -> ModuleImports | None:
    if not isinstance(text, str):
        return text
    try:
        return module_imports(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _why_missing(name: str, exported: Collection[str], mcp: InstalledMcp) -> str | None:
    if name == "*":
        return None
    if name not in exported and name not in _NEEDS_MCP:
        return "which this mcp-codemod's runtime does not define"
    if name not in _NEEDS_MCP:
        return None
    if mcp.major is None:
        return (
            "which needs the mcp SDK, and mcp is not installed where mcp-codemod runs: "
            "cannot confirm that the fixed server imports (run `fix` in the server's environment)"
        )
    if name not in _GUARDED_CLASSES:
        return None
    major, module = _GUARDED_CLASSES[name]
    if (mcp.major >= 2) != (major >= 2) or (mcp.files and module not in mcp.files):
        needs = "mcp<2" if major < 2 else "mcp>=2"
        return (
            f"which needs {needs}; the installed mcp is {mcp.version}: the server will not import"
        )
    return None
