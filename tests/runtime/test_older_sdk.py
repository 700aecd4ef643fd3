"""A fixed server written for an older mcp 1.x runs on it: the runtime and the generated guard
module import, and their guarded server takes text as sent, under the oldest mcp a published
server of the corpus needs (awslabs-ec2-mcp-server 0.1.2 imports under mcp 1.11 only, whose
FastMCP is no generic class yet). Installed from the package index into a virtualenv of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codemod.fix.guard_module import guard_module_text

pytestmark = pytest.mark.sdk

ROOT = Path(__file__).resolve().parents[2]
# The mcp and pydantic of that server's time (mcp 1.11 needs a pydantic internal 2.12 removed).
OLDER_SDK = ["mcp==1.11.0", "pydantic==2.11.7"]

SERVER = """\
import asyncio
import sys

from typing import Annotated

from {runtime} import GuardedFastMCP, NoPreParse

mcp = GuardedFastMCP("old")


@mcp.tool()
def echo(text: Annotated[str | None, NoPreParse] = None) -> str:
    return repr(text)


result = asyncio.run(mcp.call_tool("echo", {{"text": "null"}}))
print(result)
"""


@pytest.fixture(scope="module")
def older_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("older-sdk") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *OLDER_SDK, "--no-deps", str(ROOT)],
        check=True,
    )
    # The SDK's own dependencies, at the versions pip picks beside those pins.
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *OLDER_SDK], check=True)
    return python


@pytest.mark.network
@pytest.mark.parametrize("runtime", ["mcp_codemod.runtime", "_mcp_guards"])
def test_a_fixed_server_runs_on_the_oldest_mcp_a_published_server_needs(
    older_python: Path, tmp_path: Path, runtime: str
) -> None:
    (tmp_path / "_mcp_guards.py").write_text(guard_module_text(), encoding="utf-8")
    (tmp_path / "server.py").write_text(SERVER.format(runtime=runtime), encoding="utf-8")
    done = subprocess.run(
        [str(older_python), "server.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "'null'" in done.stdout  # as sent: the plain FastMCP would give None
