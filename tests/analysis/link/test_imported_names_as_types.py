"""A module-level name bound to an imported name (`Count = StrictInt`, `Query = Text`) is that
type wherever it annotates a tool parameter, in its own module or imported into another. The scope
keeps such a name as a possible server too (`mcp = app`); `check` must report exactly what the
SDK's own argument handling (the probe, on the installed mcp 1.x or 2.x) mangles."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import sdk
from conftest import run_cli

from mcp_codemod.probe.server_probe import WHOLE_FLOAT

pytestmark = pytest.mark.sdk

PACKAGE = {
    "__init__.py": "",
    "types.py": "Text = str | None\n",
    "limits.py": (
        "from pydantic import StrictInt\n"
        "from .types import Text\n\n"
        "Count = StrictInt\n"
        "Query = Text\n"
    ),
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n"
        "from pydantic import StrictInt\n"
        "from .limits import Count, Query\n\n"
        "Pages = StrictInt\n"
        "mcp = FastMCP('renamed types')\n\n\n"
        "@mcp.tool()\n"
        "def search(query: Query, count: Count, pages: Pages, exact: str) -> str:\n"
        "    return str((query, count, pages, exact))\n"
    ),
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "renamed"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(sdk.for_installed_sdk(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    for name in [name for name in sys.modules if name.startswith("renamed")]:
        del sys.modules[name]


def mangled() -> dict[str, set[str]]:
    for name in [name for name in sys.modules if name.startswith("renamed")]:
        del sys.modules[name]
    found: dict[str, set[str]] = {"MCP001": set(), "MCP002": set()}
    for problem in sdk.probe_module("renamed.server").problems:
        if problem.sent in sdk.TEXT_PROBES:
            found["MCP001"].add(problem.parameter)
        elif problem.kind == WHOLE_FLOAT:
            found["MCP002"].add(problem.parameter)
    return found


def test_check_reports_what_the_sdk_mangles(tree: Path):
    result = run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tree)
    assert result.exit_code == 1, result.output
    reported: dict[str, set[str]] = {"MCP001": set(), "MCP002": set()}
    for finding in json.loads(result.stdout):
        reported.setdefault(finding["code"], set()).add(finding["parameter"])
    assert reported == mangled() == {"MCP001": {"query"}, "MCP002": {"count", "pages"}}


def test_after_the_fix_the_sdk_mangles_nothing(tree: Path):
    fixed = run_cli("fix", "--write", "--no-cache", ".", cwd=tree)
    assert fixed.exit_code == 0, fixed.output
    assert mangled() == {"MCP001": set(), "MCP002": set()}
