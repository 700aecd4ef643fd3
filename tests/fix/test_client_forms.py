"""What current clients send (docs/runtime.md, "What clients send"): a server with each parameter
of the table, before and after the default `fix --write`, on the installed mcp SDK and on
standalone fastmcp.

Before the fix, `probe --clients` lists the forms a parameter rejects or changes and `check`
reports each such parameter; after it, the probe lists none, and a real tools/call with every
form at once gives the tool the value each client meant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastmcp
import pytest
import sdk
from conftest import run_cli
from demo_servers import import_server

from mcp_codemod.engine.checker import check_files
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import select_rules

pytestmark = pytest.mark.sdk

FASTMCP_MAJOR = int(fastmcp.__version__.split(".")[0])

TOOL = """\


class Box(BaseModel):
    left: int
    top: int


@{decorator}
def table(
    names: list[str],
    sizes: dict[str, int],
    box: Box,
    limit: int | None,
    count: int,
    page: StrictInt,
    account: str | None,
) -> str:
    return repr((names, sizes, box, limit, count, page, account))
"""
SERVERS = {
    "mcp": (
        "from mcp.server.fastmcp import FastMCP\nfrom pydantic import BaseModel, StrictInt\n\n"
        'mcp = FastMCP("table")\n'
    ),
    "fastmcp": (
        "from fastmcp import FastMCP\nfrom pydantic import BaseModel, StrictInt\n\n"
        'mcp = FastMCP("table")\n'
    ),
    "fastmcp strict": (
        "from fastmcp import FastMCP\nfrom pydantic import BaseModel, StrictInt\n\n"
        'mcp = FastMCP("table", strict_input_validation=True)\n'
    ),
}
# The parameters whose forms fail before the fix, as measured on each framework: the mcp SDK
# decodes JSON text itself; fastmcp does not; strict validation refuses 5.0 and "5" for `int`.
FAILING = {
    "mcp": {"page", "account"},
    "fastmcp": {"names", "sizes", "box", "limit", "page", "account"},
    "fastmcp strict": {"names", "sizes", "box", "limit", "count", "page", "account"},
}
# Every form of the table at once, and what the tool should then receive.
CALLS = [
    (
        {
            "names": '["a", "b"]',
            "sizes": '{"a": 1}',
            "box": '{"left": 1, "top": 2}',
            "limit": "null",
            "count": 5.0,
            "page": "7",
            "account": 4608023173,
        },
        "(['a', 'b'], {'a': 1}, Box(left=1, top=2), None, 5, 7, '4608023173')",
    ),
    (
        {
            "names": ["a"],
            "sizes": {"a": 1},
            "box": {"left": 1, "top": 2},
            "limit": 3,
            "count": "5",
            "page": 7.0,
            "account": "null",
        },
        "(['a'], {'a': 1}, Box(left=1, top=2), 3, 5, 7, 'null')",
    ),
    (
        {
            "names": [],
            "sizes": {},
            "box": {"left": 1, "top": 2},
            "limit": None,
            "count": 5,
            "page": 7,
            "account": "[1]",
        },
        "([], {}, Box(left=1, top=2), None, 5, 7, '[1]')",
    ),
]


def frameworks() -> list[Any]:
    params = [pytest.param("mcp", id=f"mcp {sdk.MCP_MAJOR}.x")]
    params.append(pytest.param("fastmcp", id=f"fastmcp {fastmcp.__version__}"))
    # fastmcp 2.x's strict mode checks the advertised schema before any validator, so no
    # marker can take a form the schema refuses (docs/runtime.md).
    if FASTMCP_MAJOR >= 3:
        params.append(pytest.param("fastmcp strict", id=f"fastmcp {fastmcp.__version__} strict"))
    return params


def source_for(framework: str) -> str:
    if framework != "mcp":
        return SERVERS[framework] + TOOL.format(decorator="mcp.tool")
    return sdk.for_installed_sdk(SERVERS[framework] + TOOL.format(decorator="mcp.tool()"))


def failing(server: Any) -> set[str]:
    return {problem.parameter for problem in probe_server(server).client_forms}


async def call_each(server: Any) -> list[str]:
    if isinstance(server, fastmcp.FastMCP):
        async with fastmcp.Client(server) as client:
            results = []
            for arguments, _ in CALLS:
                result = await client.call_tool("table", arguments, raise_on_error=False)
                text = result.content[0].text
                results.append(f"error: {text}" if result.is_error else text)
            return results
    async with sdk.connect(server) as client:
        return [await sdk.call(client, "table", arguments) for arguments, _ in CALLS]


@pytest.fixture(params=frameworks())
def framework(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def project(tmp_path: Path, framework: str) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "server.py").write_text(source_for(framework), encoding="utf-8")
    return root


def test_probe_lists_the_failing_forms_before_the_fix(project: Path, framework: str) -> None:
    _, module = import_server((project / "server.py").read_text(), project)
    assert failing(module.mcp) == FAILING[framework]


def test_check_reports_each_failing_parameter_before_the_fix(project: Path, framework: str):
    path = project / "server.py"
    lines = path.read_text().splitlines()
    found = check_files([path], select_rules(None, []), jobs=1).findings
    reported = {lines[f.line - 1].strip().split(":")[0] for f in found}
    assert reported >= FAILING[framework]


@pytest.mark.anyio
async def test_after_the_default_fix_every_form_arrives_as_meant(project: Path, framework: str):
    result = run_cli("fix", "--write", "--no-cache", ".", cwd=project)
    assert result.exit_code == 0, result.output
    _, module = import_server((project / "server.py").read_text(), project)
    report = probe_server(module.mcp)
    assert report.client_forms == ()
    assert report.problems == ()
    assert await call_each(module.mcp) == [expected for _, expected in CALLS]
