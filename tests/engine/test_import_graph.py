"""The search for a registrar's callers parses only the files whose imports may lead to its
module: what a file's import statements may refer to is read from its text, erring towards
"may", and followed through the files that re-export."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.import_graph import ANYTHING, ImportGraph, import_targets
from mcp_codemod.rules import select_rules


def counted(run):
    """What a function returns, and the Python calls it made (a count, the same everywhere)."""
    calls = 0

    def count(frame: object, event: str, argument: object) -> None:
        nonlocal calls
        calls += event == "call"

    sys.setprofile(count)
    try:
        return run(), calls
    finally:
        sys.setprofile(None)


@pytest.mark.parametrize(
    ("source", "targets"),
    [
        ("import a.b\n", {(0, ("a",))}),  # binds `a`: anything under it
        ("import a.b as c\n", {(0, ("a", "b"))}),
        ("import os, a.b as c\n", {(0, ("os",)), (0, ("a", "b"))}),
        ("from a.b import c\n", {(0, ("a", "b"))}),
        ("from . import helpers\n", {(1, ())}),
        ("from ..tools.register import add\n", {(2, ("tools", "register"))}),
        ("from .helpers import (\n    add,\n)\n", {(1, ("helpers",))}),
        ("if TYPE_CHECKING: from a import b\n", {(0, ("a",))}),
        ("x = 1; import a\n", {(0, ("a",))}),
        ("from \\\n    a import b\n", {(0, ("a",))}),
        ("    def f():\n        import a.b.c as d\n", {(0, ("a", "b", "c"))}),
        ("yield from a\nraise Error from error\n", set()),
        # Only the module's own body runs another file in its namespace.
        ("exec(open('other.py').read())\n", set(ANYTHING)),
        ("x = 1; exec(TEXT)\n", set(ANYTHING)),
        ("def run():\n    exec(TEXT)\n", set()),
        ('"""Runs `exec(text)`."""\nself.exec(1)\n', set()),
    ],
)
def test_what_a_module_may_import_is_read_from_its_text(source: str, targets: set) -> None:
    assert set(import_targets(source.encode())) == targets


def graph_of(root: Path, files: dict[str, str]) -> ImportGraph:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    paths = [str(root / name) for name in files]
    return ImportGraph((path, import_targets(Path(path).read_bytes())) for path in paths)


def test_a_file_reaches_a_module_through_the_files_that_re_export_it(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {
            "app/pkg/helpers.py": "def register(mcp): ...\n",
            "app/pkg/__init__.py": "from .helpers import *\n",
            "app/utils.py": "from app.pkg import register as add\n",
            "app/main.py": "from app import utils\n",
            "app/sub/deep.py": "from ..pkg import register\n",
            "app/other.py": "import json\n# register(mcp)\n",
            "elsewhere/rooted_above.py": "from pkg.helpers import register\n",
        },
    )
    reaching = graph.reaching(str(tmp_path / "app/pkg/helpers.py"))
    names = {os.path.relpath(path, tmp_path) for path in reaching}
    assert names == {
        "app/pkg/helpers.py",
        "app/pkg/__init__.py",
        "app/utils.py",
        "app/main.py",
        "app/sub/deep.py",
        "elsewhere/rooted_above.py",  # an absolute name may be rooted at any directory
    }


def test_a_file_that_execs_text_may_import_anything(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {"tools.py": "def register(mcp): ...\n", "loader.py": "exec(TEXT)\nregister(mcp)\n"},
    )
    assert str(tmp_path / "loader.py") in graph.reaching(str(tmp_path / "tools.py"))


def registrar_project(root: Path, bystanders: int) -> list[Path]:
    """A registrar called through a re-export, and `bystanders` large files of the project that
    say its name without importing anything that leads to it."""
    files = {
        "pyproject.toml": "[project]\nname = 'app'\n",
        "app/__init__.py": "",
        "app/server.py": "from mcp.server.fastmcp import FastMCP\n\n"
        "from app.tools import register\n\nmcp = FastMCP('app')\nregister(mcp)\n",
        "app/tools/__init__.py": "from .registrar import register\n",
        "app/tools/registrar.py": "def register(server):\n"
        "    @server.tool()\n"
        "    def search(query: str | None = None) -> str:\n"
        "        return query or ''\n",
    }
    body = "".join(f"\ndef register_{i}(x):\n    return x\n" for i in range(200))
    for index in range(bystanders):
        files[f"docs/page_{index}.py"] = f"# how to register a tool\n{body}"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return [root / "app/tools/registrar.py"]


def test_the_callers_search_parses_no_file_that_cannot_import_the_registrar(tmp_path: Path):
    """Checking the registrar alone (a staged file) finds its server through its caller, and
    the project's files that only say `register` cost nothing to that search."""
    rules = select_rules(None, [])
    runs = {}
    for bystanders in (0, 40):
        files = registrar_project(tmp_path / str(bystanders), bystanders)
        runs[bystanders] = counted(lambda files=files: check_files(files, rules, jobs=1))
    (few, few_calls), (many, many_calls) = runs[0], runs[40]
    assert [f.code for f in few.findings] == [f.code for f in many.findings] == ["MCP001"]
    assert many_calls - few_calls < 20_000, (few_calls, many_calls)
