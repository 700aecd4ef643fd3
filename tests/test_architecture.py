"""The shape of the package: no import cycles, rule codes declared only by their rules."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mcp_codemod"


def module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """The package's modules that `path` imports anywhere (in functions too: a lazy import is
    still a dependency), except under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    here = module_of(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in found if name.startswith("mcp_codemod")}


def test_no_import_cycles():
    modules = {module_of(path): path for path in PACKAGE.rglob("*.py")}
    graph = {name: imported(path) & set(modules) - {name} for name, path in modules.items()}
    # Importing a module runs its packages' `__init__`s first: that is not a dependency.
    for name in graph:
        graph[name] = {other for other in graph[name] if not name.startswith(other + ".")}
    cycles = []

    def visit(name: str, trail: list[str]) -> None:
        for other in sorted(graph[name]):
            if other in trail:
                cycles.append(" → ".join([*trail[trail.index(other) :], other]))
            elif other not in done:
                visit(other, [*trail, other])
        done.add(name)

    done: set[str] = set()
    for name in sorted(graph):
        if name not in done:
            visit(name, [name])
    assert cycles == []


def test_rule_codes_are_spelled_only_by_their_rules():
    # In code, docstrings and comments alike: what names a rule elsewhere refers to it
    # (`unguarded_server.RULE.code`), so a renumbered rule leaves nothing stale behind.
    code = re.compile(r"\bMCP\d{3}\b")
    spelled = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if code.search(path.read_text(encoding="utf-8"))
    }
    rules = {
        path.relative_to(PACKAGE).as_posix()
        for path in (PACKAGE / "rules").glob("*.py")
        if hasattr(importlib.import_module(module_of(path)), "RULE")
    }
    assert spelled <= rules


# Each layer and the layers it may import. The root modules (the library API and its fix
# workflow, the pytest helper, `__main__`) and the command line's package sit above them all.
LAYERS = {
    "runtime": set(),
    "analysis": set(),
    "rules": {"analysis", "runtime"},
    "engine": {"analysis", "rules"},
    "fix": {"analysis", "rules", "engine", "runtime"},
    "probe": {"rules", "engine", "runtime"},
    "report": {"analysis", "rules", "engine", "probe"},
    # The language server consumes the library as the CLI does: the API and every layer.
    "lsp": {"runtime", "analysis", "rules", "engine", "fix", "probe", "report"},
}
ROOT_MODULES = {"__init__", "__main__", "api", "fix_workflow", "testing"}
ROOT_PACKAGES = {"cli"}
# The root modules a layer may import besides the package itself.
ROOT_IMPORTS = {"lsp": {"mcp_codemod.api", "mcp_codemod.fix_workflow"}}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_the_package_root_holds_only_the_entry_points_and_the_layers():
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    folders = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert modules == ROOT_MODULES
    assert folders == set(LAYERS) | ROOT_PACKAGES


def test_each_layer_imports_only_the_layers_below_it():
    crossings = []
    for path in PACKAGE.rglob("*.py"):
        layer = layer_of(module_of(path))
        if layer is None:
            continue
        for other in imported(path):
            target = layer_of(other)
            if target is None and other not in (
                "mcp_codemod",
                "mcp_codemod.__version__",
                *ROOT_IMPORTS.get(layer, ()),
            ):
                crossings.append(f"{module_of(path)} → {other} (the root)")
            elif target not in (None, layer) and target not in LAYERS[layer]:
                crossings.append(f"{module_of(path)} → {other}")
    assert crossings == []


# The analysis in two stages with one direction: the data both share (facts, type expressions,
# frameworks, shapes, subjects) imports neither stage; the per-module scan knows nothing of the
# project-wide link.
ANALYSIS_STAGES = {
    "mcp_codemod.analysis": set(),
    "mcp_codemod.analysis.scan": {"mcp_codemod.analysis"},
    "mcp_codemod.analysis.link": {"mcp_codemod.analysis", "mcp_codemod.analysis.scan"},
}


def stage_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["mcp_codemod", "analysis"]:
        return None
    stage = ".".join(parts[:3])
    return stage if stage in ANALYSIS_STAGES else "mcp_codemod.analysis"


def test_the_analysis_stages_import_in_one_direction():
    crossings = []
    for path in (PACKAGE / "analysis").rglob("*.py"):
        stage = stage_of(module_of(path))
        assert stage is not None
        for other in imported(path):
            target = stage_of(other)
            if target not in (None, stage) and target not in ANALYSIS_STAGES[stage]:
                crossings.append(f"{module_of(path)} → {other}")
    assert crossings == []


def test_only_the_command_line_starts_the_language_server():
    importers = sorted(
        module_of(path)
        for path in PACKAGE.rglob("*.py")
        if layer_of(module_of(path)) != "lsp"
        and any(layer_of(other) == "lsp" for other in imported(path))
    )
    assert importers == ["mcp_codemod.cli.language_server"]


def test_only_the_command_line_uses_click():
    # The layers and the library return text and data; the command line prints it.
    users = sorted(
        module_of(path)
        for path in PACKAGE.rglob("*.py")
        if re.search(r"^\s*(import click|from click\b)", path.read_text(encoding="utf-8"), re.M)
    )
    assert users and all(module.split(".")[:2] == ["mcp_codemod", "cli"] for module in users)
