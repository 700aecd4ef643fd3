"""Files exec'd into a server module (fixtures/exec_app/): the names such a file never binds are
the module's, so its `@mcp.tool()` functions are tools of the module's server. `check` must report
exactly the text parameters that the SDK's own argument handling (the probe, on the installed mcp
1.x or 2.x) mangles, or announce the tools it cannot see; after `fix --write --unsafe-fixes` the
probe finds nothing mangled, and a file the server rewrites at each start is left as it is."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import sdk
from conftest import run_cli

pytestmark = pytest.mark.sdk

EXEC_APP = Path(__file__).resolve().parents[3] / "fixtures" / "exec_app"
# The server modules, each with the file it execs.
SERVERS = {
    "server": "server_generated.py",  # generated from the module's text at each start
    "plain": "plain_tools.py",  # read from the file
    "template": "template_tools.py",  # another text, compiled under the file's name
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = sdk.copy_for_installed_sdk(EXEC_APP, tmp_path / "exec_app")
    monkeypatch.syspath_prepend(str(target))
    monkeypatch.chdir(target)
    yield target
    for name in SERVERS:
        sys.modules.pop(name, None)


def findings(tree: Path, path: str) -> list[dict]:
    result = run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tree)
    assert result.exit_code == 1, result.output
    return [f for f in json.loads(result.stdout) if f["path"] == path and f["type"] == "finding"]


@pytest.mark.parametrize("server", ["server", "plain"])
def test_check_reports_what_the_sdk_mangles_in_an_execd_file(tree: Path, server: str):
    reported = {
        (f["tool"], f["parameter"])
        for f in findings(tree, SERVERS[server])
        if f["code"] == "MCP001"
    }
    assert reported
    assert reported == sdk.mangled_text(server)


def test_the_tools_of_another_text_are_announced_and_the_server_guarded(tree: Path):
    assert sdk.mangled_text("template")
    [finding] = findings(tree, "template_tools.py")
    assert finding["code"] == "MCP004"
    assert "1 exec'd text" in finding["message"]


def test_fix_guards_the_servers_and_leaves_the_generated_file_alone(tree: Path):
    generated = (tree / "server_generated.py").read_bytes()
    fixed = run_cli("fix", "--write", "--unsafe-fixes", "--no-cache", ".", cwd=tree)
    assert fixed.exit_code == 0, fixed.output
    assert (tree / "server_generated.py").read_bytes() == generated
    assert "NoPreParse" in (tree / "plain_tools.py").read_text(encoding="utf-8")
    for server in SERVERS:
        assert sdk.mangled_text(server) == set(), server
    # The server regenerated the same file when the probe imported it.
    assert (tree / "server_generated.py").read_bytes() == generated
