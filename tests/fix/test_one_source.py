"""One source, every environment: a server that chooses its class between frameworks at run time
(`try`/`except ImportError`, a version or environment switch, a fallback's alias, a project
module shadowing `fastmcp`, tools given to the constructor) still imports after `fix --write`,
lists the same tools with the same input schemas, runs on the same framework, and the probe
finds nothing mangled, on whichever mcp major (and fastmcp) this environment has installed.

CI runs this file on mcp 1.x and on mcp 2.x, each with standalone fastmcp installed beside it:
the fixtures in fixtures/one_source/ import under both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli

pytestmark = pytest.mark.sdk

SOURCE = FIXTURES / "one_source"
# A project whose own `fastmcp.py` shadows the package: kept out of fixtures/, whose modules
# other tests import into one interpreter, where it would shadow fastmcp for them all.
SHADOWING = Path(__file__).resolve().parents[1] / "data" / "shadowing_fastmcp"
# Each fixture server: the directory it runs from (the project's own `fastmcp.py` shadows the
# package only there) and its module.
SERVERS = [
    (".", "majors_new_first"),
    (".", "majors_old_first"),
    (".", "assigned_fallback"),
    (".", "module_aliases"),
    (".", "branch_constructions"),
    (".", "version_switch"),
    (".", "environment_switch"),
    (".", "sdk_then_fastmcp"),
    (".", "fastmcp_then_sdk"),
    (".", "constructor_tools"),
    ("shadowing", "server"),
]
# The environment that makes `environment_switch` take its other branch (standalone fastmcp).
FASTMCP_ASKED = {"NOTES_FASTMCP": "1"}

DESCRIBE = """\
import importlib, json, sys, traceback, warnings
TEXT = {"null", "[1]", '{"a": 1}'}
servers, found = {}, {}
sys.path.insert(0, ".")
for name in sys.argv[1:]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            servers[name] = importlib.import_module(name).mcp
    except BaseException:
        found[name] = {"error": traceback.format_exc(limit=-3)}
# The probe imports the fastmcp package itself: not the project's module that shadows it.
sys.path.remove(".")
if not hasattr(sys.modules.get("fastmcp"), "__path__"):
    sys.modules.pop("fastmcp", None)
from mcp_codemod.probe.argument_handling import inspect_server
from mcp_codemod.probe.server_probe import probe_server
for name, server in servers.items():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, tools, _ = inspect_server(server)
            report = probe_server(server)
        found[name] = {
            "class": f"{type(server).__module__}.{type(server).__qualname__}",
            "schemas": {tool_name: tool.parameters for tool_name, tool in tools},
            "mangled": sorted(
                {f"{p.tool}.{p.parameter}" for p in report.problems if p.sent in TEXT}
            ),
        }
    except BaseException:
        found[name] = {"error": traceback.format_exc(limit=-3)}
print(json.dumps(found))
"""


def describe(root: Path, environment: dict[str, str] | None = None) -> dict[str, dict]:
    """Each fixture server as a fresh interpreter imports it: its class, its tools' input
    schemas and the parameters whose text the server changes; or why it failed to import."""
    found = {}
    for directory in sorted({d for d, _ in SERVERS}):
        modules = [m for d, m in SERVERS if d == directory]
        result = subprocess.run(
            [sys.executable, "-c", DESCRIBE, *modules],
            cwd=root / directory,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, **(environment or {})},
        )
        assert result.returncode == 0, result.stderr[-3000:]
        for module, description in json.loads(result.stdout).items():
            found[f"{directory}/{module}"] = description
    return found


@pytest.fixture(scope="module")
def fixed(tmp_path_factory) -> tuple[dict, dict, dict, dict, Path]:
    """The servers before and after `fix --write` (also with the environment that asks for
    fastmcp), and the fixed tree."""
    root = tmp_path_factory.mktemp("one_source") / "one_source"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SHADOWING, root / "shadowing", ignore=shutil.ignore_patterns("__pycache__"))
    before, before_fastmcp = describe(root), describe(root, FASTMCP_ASKED)
    sources = {path: path.read_bytes() for path in root.rglob("*.py")}
    reported = run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=root)
    safe = [
        r
        for r in json.loads(reported.stdout)
        if (r.get("fix") or {}).get("applicability") == "safe"
    ]
    assert len(safe) == 30
    result = run_cli("fix", "--write", "--no-cache", ".", cwd=root)
    assert result.exit_code == 0, result.output
    assert sum(path.read_bytes() != text for path, text in sources.items()) == 11
    return before, describe(root), before_fastmcp, describe(root, FASTMCP_ASKED), root


def test_every_fixture_server_imports_and_pre_parses_before_the_fix(fixed):
    before, _, _, _, _ = fixed
    assert set(before) == {f"{d}/{m}" for d, m in SERVERS}
    assert not {name: d["error"] for name, d in before.items() if "error" in d}
    sdk_servers = [d for d in before.values() if not d["class"].startswith("fastmcp.")]
    # What makes the test able to fail: the SDK's servers mangle both text parameters.
    assert sdk_servers and all(
        d["mangled"] == ["search.query", "tag.label"] for d in sdk_servers
    ), before


@pytest.mark.parametrize("environment", ["plain", "fastmcp asked"])
def test_after_the_fix_each_server_imports_unchanged_and_protected(fixed, environment):
    before, after, before_fastmcp, after_fastmcp, _ = fixed
    if environment == "fastmcp asked":
        before, after = before_fastmcp, after_fastmcp
    assert not {name: d["error"] for name, d in after.items() if "error" in d}
    for name, was in before.items():
        now = after[name]
        assert now["class"] == was["class"], name  # the same framework, never swapped
        assert now["schemas"] == was["schemas"], name
        assert now["mangled"] == [], name


def test_the_environment_switch_runs_on_fastmcp_when_asked(fixed):
    _, _, _, after_fastmcp, _ = fixed
    assert after_fastmcp["./environment_switch"]["class"].startswith("fastmcp.")


def test_a_fastmcp_first_server_stays_on_fastmcp(fixed):
    before, after, _, _, _ = fixed
    assert before["./fastmcp_then_sdk"]["class"].startswith("fastmcp.")
    assert after["./fastmcp_then_sdk"]["class"] == before["./fastmcp_then_sdk"]["class"]


def test_the_fix_guards_the_instance_and_keeps_every_import(fixed):
    root = fixed[-1]
    for directory, module in SERVERS:
        source = SHADOWING if directory == "shadowing" else SOURCE
        original = (source / f"{module}.py").read_text(encoding="utf-8")
        text = (root / directory / f"{module}.py").read_text(encoding="utf-8")
        # No guarded class of one major: `guard()` takes either, and fastmcp untouched.
        assert "Guarded" not in text, module
        assert "guard(" in text, module
        # Every import of the original is still there, in its branch.
        for line in original.splitlines():
            if line.lstrip().startswith(("import ", "from ")):
                assert line in text.splitlines(), (module, line)


def test_the_fixed_tree_passes_check(fixed):
    result = run_cli("check", "--no-cache", ".", cwd=fixed[-1])
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.output
