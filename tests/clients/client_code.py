"""The MCP clients' own code, installed by CI's setup step (.ci/run) outside the package's
environments: under `.clients/` in the repository (ignored by git), or the folder named by
MCP_CODEMOD_CLIENTS. Tests marked `clients` skip, saying what is missing, without them."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from demo_servers import import_server

HARNESS = Path(__file__).parent / "harness"
CLIENTS = Path(os.environ.get("MCP_CODEMOD_CLIENTS", Path(__file__).parents[2] / ".clients"))

# Each client: the harness that runs its code, and what it needs installed under CLIENTS.
NODE_CLIENTS = {
    "gemini-cli-0.61": ("gemini.mjs", "gemini", "node_modules/@google/gemini-cli-core"),
    "gemini-cli-0.7": ("gemini.mjs", "gemini07", "node_modules/@google/gemini-cli-core"),
    "ts-sdk": ("ts_sdk.mjs", "ts-sdk", "node_modules/@modelcontextprotocol/sdk"),
    "vscode-port": ("vscode_port.mjs", "vscode", "node_modules/ajv"),
}
OPENAI_PYTHON = CLIENTS / "openai" / ".venv" / "bin" / "python"


def missing(client: str) -> str | None:
    """Why the client cannot be run here, or None."""
    if client == "openai-agents":
        return None if OPENAI_PYTHON.exists() else f"{OPENAI_PYTHON} is not installed (.ci/run)"
    if shutil.which("node") is None:
        return "Node.js is not on PATH"
    _, folder, package = NODE_CLIENTS[client]
    if not (CLIENTS / folder / package).is_dir():
        return f"{CLIENTS / folder / package} is not installed (.ci/run)"
    return None


def verdicts(client: str, tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each tool's verdict from the client's own code, by tool name."""
    if client == "openai-agents":
        command = [str(OPENAI_PYTHON), str(HARNESS / "openai_strict.py")]
    else:
        script, folder, _ = NODE_CLIENTS[client]
        command = ["node", str(HARNESS / script), str(CLIENTS / folder)]
    done = subprocess.run(
        command, input=json.dumps(tools), capture_output=True, text=True, timeout=300, check=True
    )
    return {row["name"]: row for row in json.loads(done.stdout)["results"]}


def listed_tools(source: str, tmp_path: Path) -> list[dict[str, Any]]:
    """The tools, as the real SDK lists them to a client, of the server `mcp` in `source`."""
    _, module = import_server(source, tmp_path)
    return asyncio.run(_list(module.mcp))


async def _list(server: Any) -> list[dict[str, Any]]:
    if type(server).__module__.startswith("fastmcp"):
        import fastmcp

        async with fastmcp.Client(server) as client:
            tools = await client.list_tools()
    else:
        tools = await server.list_tools()
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
