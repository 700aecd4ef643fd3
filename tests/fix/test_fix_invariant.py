"""The invariant of `fix --write`, over every fixture and every invalid case of every rule: each
module that imported before the fix still imports after it, and the probe's verdicts change
only for the parameters `check` reported (or for tools it could not see, which it reports as
unchecked), with the safe fixes and with the unsafe ones too.

The modules are imported, and their servers probed, in a fresh interpreter per tree with the
installed SDK; a module that does not import before the fix (its framework or SDK major is not
installed) is left out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sdk
from conftest import FIXTURES, run_cli

from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover
from mcp_codemod.engine.module_paths import module_name
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.rules import RULES, select_rules
from mcp_codemod.rules.model import FixAvailability, Invalid, Report, Rule

pytestmark = pytest.mark.sdk

# A rule that reports every parameter the analysis sees: which tools `check` could follow.
SEEN = Rule(
    code="SEEN",
    name="seen",
    summary="",
    why="",
    fix_title="",
    fix_safety="",
    subject=ToolParameter,
    check=lambda parameter: Report("seen"),
    availability=FixAvailability.NEVER,
    enabled_by_default=False,
    cases=(),
)

# Imports each module given as `name=root` (its import root), each after the modules of other
# roots that share its top-level name are forgotten, and probes every server it holds.
IMPORT_AND_PROBE = """\
import dataclasses, importlib, inspect, json, os, sys, traceback
from mcp_codemod.probe.argument_handling import NotAServerError, inspect_server
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import array_without_items

def verdicts(server):
    _, tools, _ = inspect_server(server)
    files = {}
    for name, tool in tools:
        function = inspect.unwrap(getattr(tool, "fn", None) or (lambda: None))
        code = getattr(function, "__code__", None)
        files[name] = os.path.realpath(code.co_filename) if code else None
    report = probe_server(server)
    found = [
        [p.tool, p.parameter, p.kind, json.dumps(p.sent), p.outcome] for p in report.problems
    ]
    found += [[a.tool, a.parameter, "array-without-items", a.path, ""] for a in report.found_by(array_without_items.RULE)]
    return {"files": files, "verdicts": found, "not_probed": [t for t, _ in report.not_probed]}

out = {}
for argument in sys.argv[1:]:
    name, root = argument.split("=", 1)
    top = name.split(".")[0]
    loaded = sys.modules.get(top)
    if loaded is not None and not (getattr(loaded, "__file__", None) or "").startswith(root):
        for key in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
            del sys.modules[key]
    sys.path.insert(0, root)
    try:
        module = importlib.import_module(name)
    except BaseException:
        out[name] = {"error": traceback.format_exc(limit=-3)}
        continue
    finally:
        sys.path.remove(root)
    servers = {}
    for attribute, value in sorted(vars(module).items()):
        try:
            servers[attribute] = verdicts(value)
        except NotAServerError:
            pass
        except Exception:
            servers[attribute] = {"error": traceback.format_exc(limit=-3)}
    out[name] = {"error": None, "servers": servers}
print(json.dumps(out))
"""


def import_and_probe(root: Path) -> dict:
    modules = []
    for path in discover([root], DEFAULT_EXCLUDE, respect_gitignore=False):
        name, import_root, _ = module_name(path)
        modules.append(f"{name}={import_root}")
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_AND_PROBE, *modules],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def rule_cases() -> dict[str, str]:
    return {
        f"{rule.code.lower()}_{number}.py": case.source
        for rule in RULES
        for number, case in enumerate(rule.cases)
        if isinstance(case, Invalid)
    }


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> dict:
    """The fixtures and the rule cases, before and after `fix --write` (safe and unsafe, every
    rule), with what `check` reported and saw before."""
    base = tmp_path_factory.mktemp("invariant")
    before = base / "before"
    shutil.copytree(FIXTURES, before / "fixtures", ignore=shutil.ignore_patterns("__pycache__"))
    for name, source in rule_cases().items():
        (before / "rule_cases").mkdir(exist_ok=True)
        (before / "rule_cases" / name).write_text(source, encoding="utf-8")
    # Servers written for mcp 1.x, as the installed SDK spells them: more of them import.
    for path in before.rglob("*.py"):
        path.write_text(sdk.for_installed_sdk(path.read_text(encoding="utf-8")), encoding="utf-8")
    fixed = {}
    for kind, options in {"safe": [], "unsafe": ["--unsafe-fixes"]}.items():
        fixed[kind] = base / kind
        shutil.copytree(before, fixed[kind])
        result = run_cli(
            "fix", "--write", "--no-cache", "--select", "ALL", *options, ".", cwd=fixed[kind]
        )
        assert result.exit_code in (0, 1), result.output
    files = discover([before], DEFAULT_EXCLUDE, respect_gitignore=False)
    previous = os.getcwd()
    os.chdir(before)
    try:
        found = check_files(files, (*select_rules(["ALL"], []), SEEN)).findings
    finally:
        os.chdir(previous)
    # The OpenAI strict-mode rules (MCP1xx) say nothing of what an argument arrives as: their
    # reports explain no verdict (MCP103 reports `color: Color = Color.RED` for its default).
    reported = {
        (os.path.realpath(before / f.path), f.tool, f.parameter)
        for f in found
        if f.code != "SEEN" and not f.code.startswith("MCP1")
    }
    seen = {(os.path.realpath(before / f.path), f.tool) for f in found if f.code == "SEEN"}
    probed = {"before": import_and_probe(before)}
    probed.update((kind, import_and_probe(root)) for kind, root in fixed.items())
    return {
        "roots": {"before": before, **fixed},
        "probed": probed,
        "reported": reported,
        "seen": seen,
    }


def test_the_invariant_covers_fixtures_rule_cases_and_servers(trees):
    before = trees["probed"]["before"]
    imported = [name for name, module in before.items() if module["error"] is None]
    assert any(name.startswith("mcp1_") or name == "mcp2_server" for name in imported)
    assert sum(name.startswith("mcp00") for name in imported) >= 5
    servers = [s for m in before.values() if m["error"] is None for s in m["servers"].values()]
    assert len(servers) >= (20 if sdk.MCP_MAJOR < 2 else 15)
    assert all("error" not in s for s in servers)


@pytest.mark.parametrize("kind", ["safe", "unsafe"])
def test_every_module_that_imported_before_the_fix_imports_after_it(trees, kind):
    before, after = trees["probed"]["before"], trees["probed"][kind]
    broken = {
        name: after[name]["error"]
        for name, module in before.items()
        if module["error"] is None and after[name]["error"] is not None
    }
    assert broken == {}


# Parameters whose verdict the fix changes though `check` does not report them: the SDK mangles
# their text (the probe says so before the fix), MCP001 does not see it, and the guarded server
# repairs it. A gap of the analysis, not of the fix (text subtypes: a `str` enum with a "null"
# member, a `NewType` of `str`); listed so that the test fails once the analysis reports them
# and this entry can go, and so that no other parameter may join them unnoticed.
UNREPORTED_BUT_MANGLED = {
    ("anything_server", "mcp", "shapes", "color"),
    ("anything_server", "mcp", "shapes", "name"),
    # MCP001 suppressed by `noqa`, but the server is guarded all the same: unresolved_server.py's
    # registration on a server of unknown framework counts against every pre-parsing server of
    # the tree (MCP004, docs/analysis.md), so the mangled text arrives as sent after the fix.
    ("noqa_server", "mcp", "suppressed", "query"),
    ("noqa_server", "mcp", "whole_def", "query"),
}


@pytest.mark.parametrize("kind", ["safe", "unsafe"])
def test_probe_verdicts_change_only_for_reported_parameters(trees, kind):
    roots = trees["roots"]
    before, after = trees["probed"]["before"], trees["probed"][kind]

    def where(file: str | None, root: Path) -> str | None:
        # The tool function's file, as the same file of the tree before the fix.
        if file is None or not file.startswith(str(root.resolve())):
            return None
        return os.path.realpath(roots["before"] / Path(file).relative_to(root.resolve()))

    unexplained = set()
    for name, module in before.items():
        if module["error"] is not None or after[name]["error"] is not None:
            continue
        for attribute, server in module["servers"].items():
            fixed = after[name]["servers"][attribute]
            assert set(fixed["files"]) == set(server["files"]), (name, attribute)
            changed = {tuple(v) for v in server["verdicts"]} ^ {tuple(v) for v in fixed["verdicts"]}
            for tool, parameter, *_ in sorted(changed):
                file = where(server["files"][tool], roots["before"])
                seen = (file, tool) in trees["seen"]
                if seen and (file, tool, parameter) not in trees["reported"]:
                    unexplained.add((name, attribute, tool, parameter))
    assert unexplained == UNREPORTED_BUT_MANGLED
