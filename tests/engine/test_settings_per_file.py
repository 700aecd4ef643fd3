"""Each checked or fixed file takes the configuration closest above it, as ruff resolves
hierarchical settings, not the working directory's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main

EXPOSED = """\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

mcp = FastMCP("demo")


@mcp.tool()
def search(query: str | None = None, page: StrictInt = 1) -> str:
    return query or ""
"""


@pytest.fixture
def projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        root.mkdir()
        (root / "server.py").write_text(EXPOSED)
    (a / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nselect = ["MCP002"]\nruntime-module = "a_guards"\n'
    )
    (b / "pyproject.toml").write_text('[tool.mcp-codemod]\nselect = ["MCP001"]\n')
    monkeypatch.chdir(a)
    return a, b


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def codes(result) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for item in json.loads(result.stdout):
        found.setdefault(item["path"], []).append(item["code"])
    return found


def test_a_file_of_another_project_is_checked_with_that_projects_configuration(projects):
    result = run("check", "--no-cache", "--output-format", "json", ".", "../b/server.py")
    assert codes(result) == {"server.py": ["MCP002"], "../b/server.py": ["MCP001"]}


def test_fixing_another_project_uses_its_runtime_module_and_writes_nothing_here(projects):
    a, b = projects
    result = run("fix", "--write", "--no-cache", "../b/server.py")
    assert result.exit_code == 0, result.output
    fixed = (b / "server.py").read_text()
    assert "from mcp_codemod.runtime import GuardedFastMCP, NoPreParse" in fixed
    assert "a_guards" not in fixed
    assert not (a / "a_guards.py").exists()
    assert (a / "server.py").read_text() == EXPOSED


def test_a_nested_configuration_governs_its_directory(projects):
    a, _b = projects
    (a / "sub").mkdir()
    (a / "sub" / "server.py").write_text(EXPOSED)
    (a / "sub" / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nselect = ["MCP001"]\nextend-exclude = ["skipped.py"]\n'
    )
    (a / "sub" / "skipped.py").write_text(EXPOSED)
    result = run("check", "--no-cache", "--output-format", "json")
    assert codes(result) == {"server.py": ["MCP002"], "sub/server.py": ["MCP001"]}


def test_config_option_applies_one_configuration_to_every_file(projects):
    a, _b = projects
    result = run(
        "check",
        "--no-cache",
        "--output-format",
        "json",
        "--config",
        str(a / "pyproject.toml"),
        "../b/server.py",
    )
    assert codes(result) == {"../b/server.py": ["MCP002"]}


def test_a_file_without_configuration_above_it_gets_the_defaults(projects, tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "server.py").write_text(EXPOSED)
    result = run("check", "--no-cache", "--output-format", "json", "../c/server.py")
    assert codes(result) == {"../c/server.py": ["MCP001", "MCP002"]}
