"""The probe as the oracle of fix safety: on every fixture server, `fix --write` changes what a
tool receives only for arguments the SDK mangled, and never for a parameter that takes anything.

Each fixture tree (spelled for the installed mcp major) is probed in a fresh process before and
after the fix: every probe value (`ARRIVAL_PROBES` and each parameter's own) for every parameter
of every server a module holds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sdk
from click.testing import CliRunner

from mcp_codemod.cli import main

pytestmark = pytest.mark.sdk

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDER = Path(__file__).resolve().parent / "record_arrivals.py"
THIRD_PARTY = Path(__file__).resolve().parents[1] / "third_party"


def fixture_tree(target: Path) -> Path:
    shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in target.rglob("*.py"):
        path.write_text(sdk.for_installed_sdk(path.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def fix(root: Path, *options: str) -> None:
    previous = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, ["fix", "--write", "--no-cache", *options, "."])
    finally:
        os.chdir(previous)
    # Exit 1, as `check` after it: the server of unresolved_server.py is of unknown framework
    # (and without --unsafe-fixes, the parameters that take anything are left).
    assert result.exit_code == 1, result.output
    assert ": error: " not in result.output, result.output


def record(root: Path) -> dict[str, Any]:
    # The library a fixture registers a tool from (fixtures/reach_app) is on the path, as in
    # the test run.
    environment = {**os.environ, "PYTHONPATH": str(THIRD_PARTY)}
    done = subprocess.run(
        [sys.executable, str(RECORDER), str(root)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return record(fixture_tree(tmp_path_factory.mktemp("before") / "fixtures"))


def fixed(tmp_path_factory: pytest.TempPathFactory, *options: str) -> dict[str, Any]:
    root = fixture_tree(tmp_path_factory.mktemp("after") / "fixtures")
    fix(root, *options)
    return record(root)


@pytest.fixture(scope="module")
def after_safe(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return fixed(tmp_path_factory)


@pytest.fixture(scope="module")
def after_unsafe(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return fixed(tmp_path_factory, "--unsafe-fixes")


def by_key(recorded: dict[str, Any]) -> dict[tuple[str, ...], dict[str, Any]]:
    return {tuple(a["key"]): a for a in recorded["arrivals"]}


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """The arrivals before the fix whose outcome the fix changed."""
    old, new = by_key(before), by_key(after)
    assert old.keys() == new.keys()  # the same servers, tools, parameters and probes
    return [old[key] for key in old if old[key]["outcome"] != new[key]["outcome"]]


def test_the_fix_breaks_no_import_and_the_fixtures_hold_servers_to_probe(
    before, after_safe, after_unsafe
):
    importable = [
        {name for name, error in tree["imported"].items() if error is None}
        for tree in (before, after_safe, after_unsafe)
    ]
    assert importable[0] == importable[1] == importable[2]
    probed_modules = {a["key"][0] for a in before["arrivals"]}
    assert {"anything_server", "variadic_server", "notes_app.server"} <= probed_modules
    assert len(probed_modules) >= (15 if sdk.MCP_MAJOR == 1 else 10)


def test_the_safe_fix_changes_only_arguments_the_sdk_mangled(before, after_safe):
    changed = changes(before, after_safe)
    assert changed  # the fixtures have text parameters the SDK mangles
    assert [a["key"] for a in changed if a["as_sent"]] == []


def test_the_safe_fix_changes_nothing_for_parameters_that_take_anything(before, after_safe):
    anything = [a for a in before["arrivals"] if a["takes_anything"]]
    assert {a["key"][3] for a in anything if a["key"][0] == "anything_server"} == {
        "value",
        "raw",
        "thing",
        "either",
        "kwargs",
    }
    assert [a["key"] for a in changes(before, after_safe) if a["takes_anything"]] == []


def test_the_set_meta_text_keeps_the_sdk_decoding_while_the_text_beside_it_is_kept(
    before, after_safe
):
    old, new = by_key(before), by_key(after_safe)
    value = ("anything_server", "mcp", "set_meta", "value", repr("[1]"))
    body = ("anything_server", "mcp", "save", "body", repr("null"))
    assert old[value]["outcome"] == new[value]["outcome"] == ["list", "[1]"]
    assert (old[body]["outcome"], new[body]["outcome"]) == (["NoneType", "None"], ["str", "'null'"])


def test_even_the_unsafe_fix_changes_only_arguments_that_did_not_arrive_as_sent(
    before, after_unsafe
):
    changed = changes(before, after_unsafe)
    assert {a["key"][3] for a in changed if a["takes_anything"]} >= {"value", "raw", "kwargs"}
    assert [a["key"] for a in changed if a["as_sent"]] == []
