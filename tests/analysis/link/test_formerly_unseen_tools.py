"""Registration shapes that static analysis once could not follow (fixtures/unseen/): helpers with
wrappers, loops, registrar classes are followed now (MCP001); generated signatures, third-party
functions whose source is not found and servers stored where a library's code reads them stay
unchecked (MCP004). Either way `check` must not pass them
silently, and after `fix --write --unsafe-fixes` the SDK's own argument handling (the probe, on the
installed mcp 1.x or 2.x) must deliver "null" and "[1]" to every text parameter as sent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import sdk
from click.testing import CliRunner

from mcp_codemod.cli import main

pytestmark = pytest.mark.sdk

UNSEEN = Path(__file__).resolve().parents[3] / "fixtures" / "unseen"
# An installed library's tool functions: on sys.path, outside the checked project.
SITE = Path(__file__).resolve().parents[2] / "data" / "site"
SHAPES = sorted(path.stem for path in UNSEEN.glob("*.py"))


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The unseen-shape servers for the installed SDK, with the fake library on sys.path."""
    target = sdk.copy_for_installed_sdk(UNSEEN, tmp_path / "unseen")
    monkeypatch.syspath_prepend(str(SITE))
    monkeypatch.syspath_prepend(str(target))
    monkeypatch.chdir(target)
    yield target
    for name in [*SHAPES, "fakelib", "fakelib.tools", "fakelib.plugins"]:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("shape", SHAPES)
def test_unchecked_tools_are_reported_then_guarded(tree: Path, shape: str):
    assert sdk.mangled_text(shape), f"{shape}: the SDK should mangle this server's text arguments"
    check = CliRunner().invoke(main, ["check", "--no-cache", f"{shape}.py"])
    assert check.exit_code == 1, check.output
    assert "All checks passed!" not in check.output
    fixed = CliRunner().invoke(main, ["fix", "--write", "--unsafe-fixes", "--no-cache", "."])
    assert fixed.exit_code == 0, fixed.output
    assert sdk.mangled_text(shape) == set()
