"""Adopting the tool on a generated repository of a few hundred files (servers, helpers, tests
with mock tools, a legacy server of a framework the analysis cannot see), the way a team adopts
ruff: a report-only CI run with SARIF in a file, per-file ignores for the tests, a baseline with
`--add-noqa`, then the pre-commit hook, which passes until a new exposed parameter is committed.

The hook runs through the real pre-commit, as a local hook with the entry, file types and
serial flag of this repository's `.pre-commit-hooks.yaml`, run by this interpreter: nothing is
installed, so the test needs no network.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# The validator comes with the mcp SDK (its dependency), as in every test environment here.
jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
APPS = 20
HELPERS = 12

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed"
    ),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

SERVER = """\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

from app_{n}.helper_0 import clean

mcp = FastMCP("app-{n}")


@mcp.tool()
def search(query: str | None = None) -> str:
    return clean(query or "")


@mcp.tool()
def page(number: StrictInt = 1) -> int:
    return number


@mcp.tool()
def echo(text: str = "") -> str:
    return text
"""
HELPER = """\
def clean(text: str) -> str:
    return text.strip()


VALUE = {m}
"""
TEST = """\
from mcp.server.fastmcp import FastMCP


def make_handler(name: str):
    def handler(value):
        return value

    handler.__name__ = name
    return handler


def test_app_{n}_registers_a_mock():
    server = FastMCP("test-{n}")
    server.add_tool(make_handler("mock"))
"""
LEGACY = """\
from company_toolkit import build_server

mcp = build_server("legacy")


@mcp.tool()
def lookup(name: str | None = None) -> str:
    return name or ""
"""


def environment(**extra: str) -> dict[str, str]:
    kept = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return {**kept, **extra}


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        env=environment(),
        capture_output=True,
        text=True,
    )


def generate(repo: Path) -> int:
    """The repository; returns how many Python files it has."""
    count = 0
    for n in range(APPS):
        package = repo / "src" / f"app_{n}"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "server.py").write_text(SERVER.format(n=n))
        for m in range(HELPERS):
            (package / f"helper_{m}.py").write_text(HELPER.format(m=m))
        (repo / "tests").mkdir(exist_ok=True)
        (repo / "tests" / f"test_app_{n}.py").write_text(TEST.format(n=n))
        count += 3 + HELPERS
    (repo / "legacy").mkdir()
    (repo / "legacy" / "server.py").write_text(LEGACY)
    (repo / "pyproject.toml").write_text(
        "[tool.mcp-codemod]\n"
        "# Mock tools in tests are not served to clients.\n"
        'per-file-ignores = { "tests/**" = ["MCP004"] }\n'
    )
    # The legacy server is built by a company helper; its own configuration says what it is.
    (repo / "legacy" / "pyproject.toml").write_text('[tool.mcp-codemod]\nframework = "mcp1"\n')
    return count + 1


def mcp_codemod(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_codemod", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env=environment(),
    )


def install_hook(repo: Path) -> None:
    import yaml  # pre-commit's own dependency

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "mcp-codemod-check")
    command = shlex.split(hook["entry"])
    assert command[0] == "mcp-codemod"
    local = {
        **{key: hook[key] for key in ("id", "name", "types", "require_serial")},
        "entry": shlex.join([sys.executable, "-m", "mcp_codemod", *command[1:]]),
        "language": "system",
    }
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))


def test_report_only_then_baseline_then_the_hook_blocks_a_new_exposed_parameter(tmp_path):
    repo = tmp_path / "monorepo"
    repo.mkdir()
    files = generate(repo)
    assert files > 300

    # 1. Report-only CI: SARIF into a file, the log in text, exit 0 whatever was found.
    report = mcp_codemod(
        repo, "check", "--exit-zero", "--output-format", "sarif", "--output-file", "report.sarif"
    )
    assert report.returncode == 0, report.stderr
    sarif = json.loads((repo / "report.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"MCP001", "MCP002"}
    # Two per server, and the legacy server's parameter (its framework comes from legacy/).
    assert len(results) == 2 * APPS + 1
    assert not any("tests/" in json.dumps(r["locations"]) for r in results)
    # Without --exit-zero the same run fails.
    assert mcp_codemod(repo, "check", "--quiet").returncode == 1

    # 2. The baseline: every finding accepted where it is, nothing else changed.
    git(repo, "init", "--quiet")
    git(repo, "add", ".")
    baseline = mcp_codemod(repo, "check", "--add-noqa")
    assert baseline.returncode == 0, baseline.stdout + baseline.stderr
    assert f"Added {2 * APPS + 1} noqa directives in {APPS + 1} files." in baseline.stderr
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--isolated", "."],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert formatted.returncode == 0, formatted.stdout
    clean = mcp_codemod(repo, "check")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    again = mcp_codemod(repo, "check", "--add-noqa")
    assert "Added 0 noqa directives." in again.stderr

    # 3. The hook goes in and the baseline commits.
    install_hook(repo)
    home = tmp_path / "pre-commit-home"
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=repo,
        env=environment(PRE_COMMIT_HOME=str(home)),
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git(repo, "add", ".")
    first = git(repo, "commit", "-m", "baseline")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "mcp-codemod check" in first.stdout + first.stderr

    # 4. A new exposed parameter blocks the commit, with the finding named.
    server = repo / "src" / "app_3" / "server.py"
    server.write_text(
        server.read_text()
        + '\n\n@mcp.tool()\ndef tag(label: str | None = None) -> str:\n    return label or ""\n'
    )
    git(repo, "add", str(server))
    blocked = git(repo, "commit", "-m", "a new tool")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "Failed" in output
    assert "src/app_3/server.py:25:9: MCP001" in output, output
    assert "Found 1 issue" in output
    assert git(repo, "log", "--oneline").stdout.count("\n") == 1
