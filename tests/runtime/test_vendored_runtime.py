"""The generated guard module (`runtime-module`) behaves as `mcp_codemod.runtime` does, through
the real SDK, and a fixed server runs with only that module and its SDK installed."""

import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from textwrap import dedent
from types import ModuleType
from typing import Annotated, Any

import pytest
import sdk
from click.testing import CliRunner
from pydantic import StrictInt

import mcp_codemod.runtime
from mcp_codemod.cli import main
from mcp_codemod.fix.guard_module import guard_module_text

pytestmark = [pytest.mark.anyio, pytest.mark.sdk]


@pytest.fixture(scope="module")
def vendored(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path = tmp_path_factory.mktemp("vendored") / "_mcp_guards.py"
    path.write_text(guard_module_text(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("_vendored_mcp_guards", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["package", "vendored"])
def runtime(request: pytest.FixtureRequest, vendored: ModuleType) -> Any:
    return mcp_codemod.runtime if request.param == "package" else vendored


def guarded_class(runtime: Any) -> type:
    return getattr(runtime, sdk.GuardedServer.__name__)


def tools(server: Any, runtime: Any) -> Any:
    # Annotations evaluated here (no `from __future__ import annotations` in this module), so
    # they hold this runtime's markers.
    def text(query: Annotated[str | None, runtime.NoPreParse] = None) -> str:
        return repr(query)

    def page(number: Annotated[StrictInt, runtime.AcceptWholeFloat]) -> str:
        return repr(number)

    server.add_tool(text)
    server.add_tool(page)
    return server


async def test_the_guarded_class_keeps_text_and_takes_whole_floats(runtime) -> None:
    server = tools(guarded_class(runtime)("demo"), runtime)
    async with sdk.connect(server) as client:
        assert await sdk.call(client, "text", {"query": "null"}) == "'null'"
        assert await sdk.call(client, "text", {"query": "[1, 2]"}) == "'[1, 2]'"
        assert await sdk.call(client, "page", {"number": 5.0}) == "5"
        assert (await sdk.call(client, "page", {"number": 5.5})).startswith("error:")


async def test_guard_on_a_plain_server_and_schemas_unchanged(runtime) -> None:
    plain = tools(sdk.PlainServer("demo"), runtime)
    async with sdk.connect(plain) as client:
        published = await sdk.input_schemas(client)
        assert await sdk.call(client, "text", {"query": "null"}) == "None"
    runtime.guard(plain)
    async with sdk.connect(plain) as client:
        assert await sdk.call(client, "text", {"query": "null"}) == "'null'"
        assert await sdk.input_schemas(client) == published


def test_coerce_and_the_other_major_versions_class(runtime) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert type(runtime.coerce_integer_arguments({"n": 5.0}, schema)["n"]) is int
    with pytest.raises(ImportError, match="the installed mcp is"):
        getattr(runtime, sdk.OTHER_GUARDED_CLASS)


# ---- a deployment without mcp-codemod ------------------------------------------------------

SERVER = """\
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("demo")


    @mcp.tool()
    def search(query: str | None = None) -> str:
        return repr(query)
    """
CALL = """\
    import importlib.util
    import sys

    import anyio

    sys.path.insert(0, sys.argv[1])
    if importlib.util.find_spec("mcp_codemod") is not None:
        sys.exit("mcp_codemod is importable")
    from app.server import {server}


    async def main():
        if {major} >= 2:
            from mcp import Client

            async with Client({server}) as client:
                result = await client.call_tool("search", {{"query": "null"}})
        else:
            from mcp.shared.memory import create_connected_server_and_client_session

            async with create_connected_server_and_client_session({server}._mcp_server) as client:
                result = await client.call_tool("search", {{"query": "null"}})
        print(result.content[0].text)


    anyio.run(main)
    """


def test_a_fixed_server_runs_with_only_the_guard_module_and_its_sdk(tmp_path) -> None:
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.mcp-codemod]\nruntime-module = "app._guards"\n')
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "server.py").write_text(dedent(sdk.for_installed_sdk(SERVER)))
    previous = os.getcwd()
    os.chdir(root)
    try:
        assert CliRunner().invoke(main, ["fix", "--write", "."]).exit_code == 0
    finally:
        os.chdir(previous)
    assert "from app._guards import" in (root / "app" / "server.py").read_text()
    # An environment without this project, offline: a venv without pip whose one .pth line names
    # this test environment's site-packages. A plain path line adds the directory to sys.path
    # without running the .pth files in it, so the editable install of mcp_codemod (a .pth that
    # imports a finder) stays invisible, while mcp, pydantic and anyio are found.
    environment = tmp_path / "deploy"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(environment)], check=True)
    python = environment / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site) / "test-dependencies.pth").write_text("\n".join(sorted(paths)) + "\n")
    script = tmp_path / "call.py"
    script.write_text(dedent(CALL).format(server="mcp", major=sdk.MCP_MAJOR))
    # -I: no PYTHONPATH, no user site, and neither the script's directory nor the working
    # directory (tmp_path, not the repository) on sys.path.
    result = subprocess.run(
        [python, "-I", str(script), str(root)], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "'null'"
