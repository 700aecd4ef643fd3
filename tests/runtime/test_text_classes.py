"""Classes that accept any text (`bytes`, `pathlib` paths, `re.Pattern`, pydantic's
secrets and path types) are text, for the guard policy and for the rules alike: `b"null"`, a
file named `null` or `[1]`, the pattern `[1]` are valid values, which the SDK's pre-parse turns
into None or a list. The real SDK, plain and guarded, is the oracle."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path, PurePosixPath
from typing import get_type_hints

import pytest
from pydantic import SecretStr
from sdk import GuardedServer, PlainServer, call, connect, for_installed_sdk

from mcp_codemod.runtime.declared_text import declares_text

pytestmark = [pytest.mark.anyio, pytest.mark.sdk]


def raw(x: bytes | None = None) -> str:
    return repr(x)


def path(x: Path | None = None) -> str:
    return repr(None if x is None else x.as_posix())


def pure_path(x: PurePosixPath) -> str:
    return repr(x.as_posix())


def pattern(x: re.Pattern[str] | None = None) -> str:
    return repr(None if x is None else x.pattern)


def secret(x: SecretStr | None = None) -> str:
    return repr(None if x is None else x.get_secret_value())


TOOLS = [raw, path, pure_path, pattern, secret]
# What each tool returns for the text sent, when the text arrives as sent.
AS_SENT = {
    "raw": lambda text: repr(text.encode()),
    "path": repr,
    "pure_path": repr,
    "pattern": repr,
    "secret": repr,
}
TEXTS = ["null", "[1]", '{"a": 1}', "true"]


def with_tools(server):
    for tool in TOOLS:
        server.tool()(tool)
    return server


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.__name__)
def test_each_class_declares_text(tool) -> None:
    assert declares_text(get_type_hints(tool)["x"])


async def test_the_plain_sdk_mangles_their_valid_texts() -> None:
    async with connect(with_tools(PlainServer("plain"))) as client:
        for tool in TOOLS:
            received = [await call(client, tool.__name__, {"x": text}) for text in TEXTS]
            assert received != [AS_SENT[tool.__name__](text) for text in TEXTS], tool


async def test_the_guarded_server_passes_them_as_sent() -> None:
    async with connect(with_tools(GuardedServer("guarded"))) as client:
        for tool in TOOLS:
            for text in TEXTS:
                expected = AS_SENT[tool.__name__](text)
                assert await call(client, tool.__name__, {"x": text}) == expected, (tool, text)


def test_check_reports_them_and_the_fixed_server_keeps_their_text(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(
        for_installed_sdk(
            textwrap.dedent(
                """\
                from pathlib import Path

                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("files")


                @mcp.tool()
                def read(name: Path | None = None, data: bytes | None = None) -> str:
                    return repr((name, data))
                """
            )
        )
    )
    command = [sys.executable, "-m", "mcp_codemod"]
    probe = [
        sys.executable,
        "-c",
        "import server\n"
        "from mcp_codemod.testing import assert_tools_keep_arguments\n"
        "assert_tools_keep_arguments(server.mcp)\n",
    ]
    before = subprocess.run(probe, cwd=tmp_path, capture_output=True, text=True)
    assert before.returncode == 1 and "AssertionError" in before.stderr, before.stderr
    checked = subprocess.run(
        [*command, "check", "--no-cache", str(server)], capture_output=True, text=True
    )
    assert checked.returncode == 1, checked.stdout
    assert checked.stdout.count(" MCP001 ") == 2, checked.stdout
    fixed = subprocess.run(
        [*command, "fix", "--no-cache", "--write", str(server)], capture_output=True, text=True
    )
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    after = subprocess.run(probe, cwd=tmp_path, capture_output=True, text=True)
    assert after.returncode == 0, after.stderr
