"""Fixed code passes the user's mypy and pyright wherever the input did, under the installed mcp
major (CI runs these under mcp 1.x and 2.x): `pytest -m typecheck`.

The checkers themselves are the oracle, in their default and strict modes: the guard module
`fix` writes (`runtime-module`), a server fixed to import `mcp_codemod.runtime`, and the whole
fixtures tree before and after `fix --write --unsafe-fixes`, where no file may get an error it
did not have. The package is found on the checkers' search path (as its editable install is
not), and ships `py.typed` so that, installed, it is typed (`test_the_wheel_ships_py_typed`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
CHECKERS = ("mypy", "mypy --strict", "pyright basic", "pyright strict")
MYPY_ERROR = re.compile(r"^(?P<path>[^:\n]+):\d+: error: .*\[(?P<code>[a-z-]+)\]$", re.MULTILINE)

try:
    import mcp.server.mcpserver  # noqa: F401

    SDK = "from mcp.server.mcpserver import MCPServer as Server"
    GUARDED = "GuardedMCPServer"
except ImportError:
    SDK = "from mcp.server.fastmcp import FastMCP as Server"
    GUARDED = "GuardedFastMCP"

# A typed server for the installed major: it passes every checker before the fix.
SERVER = f"""\
    from typing import Any

    {SDK}

    mcp = Server("notes")


    @mcp.tool()
    def search(query: str | None = None, page: int = 1) -> str:
        return f"{{query}} {{page}}"


    def create_server() -> Server[Any]:
        return mcp
    """
# What a user writes on the guarded class and guard(): the types are the SDK's.
USES = f"""\
    from typing import Any

    {SDK}

    from mcp_codemod.runtime import {GUARDED}, guard

    guarded = {GUARDED}("notes", instructions="typed")
    kept: Server[Any] = guard(Server("plain"))


    @guarded.tool()
    def echo(text: str) -> str:
        return text


    def server() -> Server[Any]:
        return guarded
    """


def errors(checker: str, tree: Path) -> Counter[tuple[str, str]]:
    """Each (file, error code) the checker reports in `tree`, with how often."""
    tool, _, mode = checker.partition(" ")
    if tool == "mypy":
        command = [sys.executable, "-m", "mypy", "--python-executable", sys.executable]
        command += ["--no-color-output", "--no-error-summary", "--cache-dir", str(tree / ".mc")]
        command += [*mode.split(), "."]
        result = subprocess.run(
            command, cwd=tree, capture_output=True, text=True, env=_env(MYPYPATH=str(ROOT))
        )
        assert result.returncode in (0, 1), result.stdout + result.stderr
        return Counter(
            (Path(m["path"]).as_posix(), m["code"]) for m in MYPY_ERROR.finditer(result.stdout)
        )
    config = {"typeCheckingMode": mode, "extraPaths": [str(ROOT)], "exclude": [".mc"]}
    (tree / "pyrightconfig.json").write_text(json.dumps(config))
    command = [sys.executable, "-m", "pyright", "--pythonpath", sys.executable, "--outputjson"]
    result = subprocess.run(command, cwd=tree, capture_output=True, text=True, env=_env())
    (tree / "pyrightconfig.json").unlink()
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return Counter(
        (Path(d["file"]).relative_to(tree).as_posix(), d.get("rule", "error"))
        for d in json.loads(result.stdout)["generalDiagnostics"]
        if d["severity"] == "error"
    )


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", **extra}


def server_project(root: Path, runtime_module: bool) -> Path:
    root.mkdir(exist_ok=True)
    setting = 'runtime-module = "app._mcp_guards"\n' if runtime_module else ""
    (root / "pyproject.toml").write_text(f"[tool.mcp-codemod]\n{setting}")
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "server.py").write_text(dedent(SERVER))
    return root


@pytest.mark.typecheck
@pytest.mark.parametrize("runtime_module", [True, False], ids=["guard-module", "runtime"])
@pytest.mark.parametrize("checker", CHECKERS)
def test_a_fixed_server_and_its_guard_module_pass_the_checkers_that_passed_it(
    tmp_path, checker, runtime_module
):
    tree = server_project(tmp_path, runtime_module)
    assert errors(checker, tree) == Counter()

    assert run_cli("fix", "--write", "--no-cache", ".", cwd=tree).exit_code == 0

    fixed = (tree / "app" / "server.py").read_text()
    assert f"mcp = {GUARDED}(" in fixed and "NoPreParse" in fixed
    assert (tree / "app" / "_mcp_guards.py").exists() == runtime_module
    assert errors(checker, tree) == Counter()


@pytest.mark.typecheck
@pytest.mark.parametrize("checker", CHECKERS)
def test_the_runtime_types_as_the_sdk_does(tmp_path, checker):
    # A guarded server is the SDK's class (a subclass), guard() returns what it was given.
    (tmp_path / "uses.py").write_text(dedent(USES))

    assert errors(checker, tmp_path) == Counter()


# The `def` fits only because the formatter counts no pragma comment: with the marker it would be
# split, and the `type: ignore` would leave the line whose error it ignores.
PRAGMA_SERVER = f"""\
    {SDK}

    mcp = Server("notes")


    @mcp.tool()
    def lookup(name: str | None = None, extra: dict = {{}}, limit: int = 10) -> str:  # type: ignore[type-arg]
        return f"{{name}} {{extra}} {{limit}}"
    """


@pytest.mark.typecheck
@pytest.mark.parametrize("checker", CHECKERS)
def test_a_type_ignore_keeps_covering_its_line_after_the_fix(tmp_path, checker):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 88\n")
    (tmp_path / "server.py").write_text(dedent(PRAGMA_SERVER))
    before = errors(checker, tmp_path)

    run_cli("fix", "--write", "--no-cache", ".", cwd=tmp_path)

    assert f"mcp = {GUARDED}(" in (tmp_path / "server.py").read_text()
    assert errors(checker, tmp_path) - before == Counter()


@pytest.mark.typecheck
@pytest.mark.parametrize("checker", CHECKERS)
def test_the_fixed_fixtures_pass_the_checkers_wherever_the_input_did(tmp_path, checker):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "fixtures", tree, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "pyproject.toml").write_text("[tool.mcp-codemod]\n")
    before = errors(checker, tree)

    run_cli("fix", "--write", "--unsafe-fixes", "--no-cache", ".", cwd=tree)

    after = errors(checker, tree)
    # A file that passed passes; one that did not gains no new kind of error, but for pyright's
    # reports of what is unknown already in the input: a server whose class the other major's
    # unchecked import makes partly unknown is as unknown given to `guard()` as assigned.
    failed_before = {path for path, _ in before}
    assert {
        (path, rule): count
        for (path, rule), count in (after - before).items()
        if path not in failed_before or not rule.startswith("reportUnknown")
    } == {}


@pytest.mark.network
def test_the_wheel_ships_py_typed(tmp_path):
    # PEP 561: without the marker, every fixed file gets `import-untyped` from mypy.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("mcp_codemod-*.whl")
    assert "mcp_codemod/py.typed" in zipfile.ZipFile(wheel).namelist()
