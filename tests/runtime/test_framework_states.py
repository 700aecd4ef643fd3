"""The runtime never breaks a server's import: `guard()`, `install()`, the guarded classes (and the
probe) work whatever state another MCP framework (standalone `fastmcp`) is in: present, absent,
an incompatible version whose import fails, or partly importable (`fastmcp.FastMCP` raising on
access). A framework that cannot be imported is treated as absent.

Each state runs in a fresh interpreter: the states are made of `sys.modules` entries and a
package directory put first on `sys.path`, which must not leak into other tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sdk

pytestmark = pytest.mark.sdk

PLAIN_IMPORT = (
    "from mcp.server.mcpserver import MCPServer as PlainServer"
    if sdk.MCP_MAJOR >= 2
    else "from mcp.server.fastmcp import FastMCP as PlainServer"
)
GUARDED_CLASS = "GuardedMCPServer" if sdk.MCP_MAJOR >= 2 else "GuardedFastMCP"

# A fixed server module, as `fix --write` writes one.
FIXED_SERVER = f"""\
from mcp_codemod.runtime import {GUARDED_CLASS}, NoPreParse

mcp = {GUARDED_CLASS}("fixed")


@mcp.tool()
def search(query: str | None = None) -> str:
    return repr(query)
"""

# Every entry point of the server side, each checked on a `str | None` tool: "null" is kept.
USE_THE_RUNTIME = f"""\
import fixed_server
from mcp_codemod.runtime import guard, install, uninstall
{PLAIN_IMPORT}


def kept(server):
    tool = server._tool_manager.get_tool("search")
    return tool.fn_metadata.pre_parse_json({{"query": "null"}}) == {{"query": "null"}}


def with_tool(server):
    server.tool()(fixed_server.search)
    return server


assert kept(fixed_server.mcp)
assert kept(guard(with_tool(PlainServer("guarded"))))
install()
assert kept(with_tool(PlainServer("installed")))
uninstall()
assert not kept(with_tool(PlainServer("plain")))
# The probe, too, takes the framework for absent.
from mcp_codemod.probe.server_probe import probe_server

assert probe_server(fixed_server.mcp).tools == ("search",)
print("ok")
"""

# Each state of the standalone fastmcp package, set up before anything imports the runtime.
STATES = {
    "present": "import fastmcp",
    "absent": "import sys; sys.modules['fastmcp'] = None  # import fastmcp raises ImportError",
    "import raises (incompatible version)": "",  # the package in BROKEN_PACKAGE
    "FastMCP raises on access": """\
import sys, types

module = types.ModuleType("fastmcp")


def __getattr__(name):
    raise ImportError(f"cannot import name {name!r} from 'mcp.server' (incompatible mcp)")


module.__getattr__ = __getattr__
sys.modules["fastmcp"] = module
""",
    "FastMCP is not a class": """\
import sys, types

sys.modules["fastmcp"] = types.ModuleType("fastmcp")
sys.modules["fastmcp"].FastMCP = None
""",
}
BROKEN_PACKAGE = "raise ImportError(\"cannot import name 'Icon' from 'mcp.types'\")\n"


@pytest.mark.parametrize("state", list(STATES))
def test_the_runtime_works_in_every_state_of_another_framework(tmp_path: Path, state: str) -> None:
    (tmp_path / "fixed_server.py").write_text(FIXED_SERVER, encoding="utf-8")
    search_path = [str(tmp_path)]
    if state == "import raises (incompatible version)":
        broken = tmp_path / "broken" / "fastmcp"
        broken.mkdir(parents=True)
        (broken / "__init__.py").write_text(BROKEN_PACKAGE, encoding="utf-8")
        search_path.insert(0, str(broken.parent))
    script = textwrap.dedent(STATES[state]) + "\n" + USE_THE_RUNTIME
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(search_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr


def test_a_standalone_fastmcp_server_is_still_recognised_and_left_alone() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import fastmcp\n"
            "from mcp_codemod.runtime import guard\n"
            "server = fastmcp.FastMCP('standalone')\n"
            "before = dict(vars(server))\n"
            "assert guard(server) is server and vars(server) == before\n"
            "print('ok')\n",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
