"""`*args` and `**kwargs` of a tool function (fixtures/variadic_server.py) are arguments the SDK
JSON-pre-parses: `check` reports exactly the parameters the probe finds mangled on the installed
mcp 1.x or 2.x, and after `fix --write --unsafe-fixes` the probe finds none."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import sdk
from click.testing import CliRunner

from mcp_codemod.cli import main
from mcp_codemod.engine.checker import check_files
from mcp_codemod.rules import select_rules

pytestmark = pytest.mark.sdk

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "variadic_server.py"


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "variadic_server.py"
    path.write_text(sdk.for_installed_sdk(FIXTURE.read_text(encoding="utf-8")), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield path
    sys.modules.pop("variadic_server", None)


def test_variadic_parameters_are_reported_as_the_probe_finds_them(server: Path):
    result = check_files([server], select_rules(None, []))
    reported = {(f.tool, f.parameter) for f in result.findings if f.code == "MCP001"}
    assert reported == {
        ("run_any", "kwargs"),
        ("run_unannotated", "kwargs"),
        ("run_options", "options"),
        ("run_args", "args"),
    }
    assert reported == sdk.mangled_text("variadic_server")


def test_the_fix_leaves_no_variadic_parameter_mangled(server: Path):
    fixed = CliRunner().invoke(main, ["fix", "--write", "--unsafe-fixes", "--no-cache", "."])
    assert fixed.exit_code == 0, fixed.output
    assert "**options: Annotated[str | None, NoPreParse]" in server.read_text(encoding="utf-8")
    assert sdk.mangled_text("variadic_server") == set()
