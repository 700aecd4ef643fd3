"""A rule owns its whole footprint: it is found by walking the rules package, the run-time marker
it names is the runtime's, and its probe check is what `probe` and the pytest helper run.

Adding a rule with a fix and a probe check is adding its module: in a copy of the package, a new
module (MCP005's, under a code and name of its own) is all it takes for every command, the
generated pages and the probe to carry the new rule."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_codemod
from mcp_codemod.rules import RULES

PACKAGE = Path(mcp_codemod.__file__).parent

# What the added rule changes in MCP005's module: its code, its name, and what the probe prints.
RENAMED = {
    'code="MCP005"': 'code="MCP999"',
    'name="array-without-items"': 'name="added-array-without-items"',
    'kind="array-without-items"': 'kind="added-array-without-items"',
    '"ARRAY WITHOUT ITEMS (': '"ADDED ARRAY WITHOUT ITEMS (',
}

# Run in the copy: the rule's page, its standalone fastmcp case (a server that imports under either
# mcp major) through `check` and `fix`, the generated pages, and the probe and the pytest helper on
# that case's server.
IN_THE_COPY = """\
import importlib.util, json, subprocess, sys
from pathlib import Path

import mcp_codemod
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.report.probe_output import probe_json, probe_text
from mcp_codemod.report.rule_pages import generated_pages
from mcp_codemod.rules import RULES_BY_CODE
from mcp_codemod.rules.model import Invalid
from mcp_codemod.testing import assert_tools_keep_arguments

rule = RULES_BY_CODE["MCP999"]
case = next(c for c in rule.cases if isinstance(c, Invalid) and "from fastmcp import" in c.source)
Path("server.py").write_text(case.source, encoding="utf-8")


def cli(*args):
    run = [sys.executable, "-m", "mcp_codemod", *args]
    return subprocess.run(run, capture_output=True, text=True).stdout


out = {"package": mcp_codemod.__file__, "page": cli("rule", "MCP999"), "expected": case.lines}
out["rules"] = cli("rules")
found = json.loads(cli("check", "--no-cache", "--select", "MCP999", "--output-format", "json", "."))
out["lines"] = [record["line"] for record in found if record["type"] == "finding"]
cli("fix", "--no-cache", "--select", "MCP999", "--write", ".")
out["fixed"] = Path("server.py").read_text(encoding="utf-8") == case.fixed
out["pages"] = sorted(generated_pages())
spec = importlib.util.spec_from_file_location("server", "case_server.py")
Path("case_server.py").write_text(case.source, encoding="utf-8")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
report = probe_server(module.mcp)
out["probe"] = probe_text(report)
out["kinds"] = sorted({record["kind"] for record in json.loads(probe_json(report))})
try:
    assert_tools_keep_arguments(module.mcp)
    out["helper"] = "passed"
except AssertionError as error:
    out["helper"] = str(error)
print(json.dumps(out))
"""


def test_rules_are_found_by_walking_the_package():
    modules = {
        path.stem
        for path in (PACKAGE / "rules").glob("*.py")
        if "\nRULE = Rule(" in path.read_text(encoding="utf-8")
    }
    assert {rule.check.__module__.rpartition(".")[2] for rule in RULES} == modules
    assert [rule.code for rule in RULES] == sorted(rule.code for rule in RULES)


@pytest.mark.sdk
def test_each_rules_marker_is_the_runtimes():
    import mcp_codemod.runtime as runtime

    markers = {rule.code: rule.marker for rule in RULES if rule.marker is not None}
    assert markers  # the fixes that mark a parameter
    assert {code: marker in runtime.__all__ for code, marker in markers.items()} == dict.fromkeys(
        markers, True
    )


@pytest.mark.sdk
def test_a_rule_with_a_fix_and_a_probe_check_is_one_module(tmp_path):
    copy = tmp_path / "package" / "mcp_codemod"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    source = (PACKAGE / "rules" / "array_without_items.py").read_text(encoding="utf-8")
    for old, new in RENAMED.items():
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    (copy / "rules" / "added_array_without_items.py").write_text(source, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    environment = {**os.environ, "PYTHONPATH": str(copy.parent)}
    run = subprocess.run(
        [sys.executable, "-c", IN_THE_COPY],
        cwd=work,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["package"] == str(copy / "__init__.py")
    assert out["page"].startswith("# MCP999 (added-array-without-items)\n")
    assert "MCP999" in out["rules"]
    assert out["lines"] == out["expected"] != []
    assert out["fixed"] is True
    assert "MCP999.md" in out["pages"]
    assert "ADDED ARRAY WITHOUT ITEMS (VS Code's MCP client refuses the tool)" in out["probe"]
    assert "added-array-without-items" in out["kinds"]
    # MCP005's check and the added one's both fail the helper, each with its own heading.
    assert out["helper"].count("Input schemas with an array without `items`") == 2
