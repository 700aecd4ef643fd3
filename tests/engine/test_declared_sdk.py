"""A project whose declared mcp requirement allows only releases older than 1.12, whose
pre-parse decodes exact `str` too, has its exact `str` parameters reported and its server
guarded (docs/analysis.md, "Which SDK release"); a requirement that allows newer releases is
judged by them, as pip installs them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main
from mcp_codemod.engine.declared_sdk import capped_before_exact_str

SERVER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("t")


@mcp.tool()
def search(query: str, page: int = 1) -> str:
    return query
"""


@pytest.mark.parametrize(
    ("requirement", "capped"),
    [
        ("mcp==1.6.0", True),
        ("mcp[cli]==1.6.0", True),
        ("mcp[cli] (<1.12)", True),
        ("mcp<1.12.0", True),
        ("mcp<=1.11.0", True),
        ("mcp~=1.9.0", True),
        ("mcp==1.6.*", True),
        ("mcp>=1.2,<1.10; python_version >= '3.10'", True),
        ("MCP==1.11.0rc1", True),
        ("mcp<=1.12", False),
        ("mcp<1.12.1", False),
        ("mcp~=1.9", False),
        ("mcp==1.*", False),
        ("mcp>=1.0.0", False),
        ("mcp", False),
        ("mcp<2", False),
        ("mcp==1.12.0", False),
        ("mcp-server==1.0", False),
    ],
)
def test_a_requirement_caps_mcp_before_1_12_only_if_a_clause_does(requirement, capped):
    assert capped_before_exact_str(requirement) is capped


def project(root: Path, dependency: str, where: str = "pyproject") -> Path:
    if where == "pyproject":
        (root / "pyproject.toml").write_text(
            f'[project]\nname = "notes"\nversion = "0"\ndependencies = ["{dependency}"]\n',
            encoding="utf-8",
        )
    else:
        (root / "pyproject.toml").write_text('[project]\nname = "notes"\nversion = "0"\n')
        (root / "requirements.txt").write_text(f"anyio\n{dependency}  # pinned\n")
    (root / "server.py").write_text(SERVER, encoding="utf-8")
    return root


def run(root: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--no-cache", str(root)])


@pytest.mark.parametrize("where", ["pyproject", "requirements"])
def test_exact_str_is_reported_where_the_project_pins_an_older_mcp(tmp_path, where):
    result = run(project(tmp_path, "mcp[cli]==1.6.0", where), "check")
    assert result.exit_code == 1, result.output
    assert (
        "MCP001 [*] Tool `search`: `query: str` is JSON-pre-parsed by mcp 1.x FastMCP before "
        "1.12, the only releases the project's `mcp[cli]==1.6.0` allows"
    ) in result.output, result.output
    assert "page" not in result.output


def test_the_fix_guards_the_server_without_a_marker(tmp_path):
    project(tmp_path, "mcp==1.6.0")
    assert run(tmp_path, "fix", "--write").exit_code == 0
    text = (tmp_path / "server.py").read_text(encoding="utf-8")
    assert 'mcp = GuardedFastMCP("t")' in text and "def search(query: str," in text
    assert run(tmp_path, "check").exit_code == 0


def test_a_requirement_that_allows_newer_releases_is_judged_by_them(tmp_path):
    result = run(project(tmp_path, "mcp>=1.0.0"), "check")
    assert result.exit_code == 0, result.output


def test_a_cached_result_is_not_reused_once_the_requirement_changes(tmp_path):
    project(tmp_path, "mcp>=1.20", where="requirements")
    cache = ["--cache-dir", str(tmp_path / ".cache")]
    assert CliRunner().invoke(main, ["check", *cache, str(tmp_path)]).exit_code == 0
    (tmp_path / "requirements.txt").write_text("mcp==1.6.0\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", *cache, str(tmp_path)])
    assert result.exit_code == 1, result.output
