"""What the command line says, word for word, in one snapshot (tests/cli/snapshots/cli-messages.txt):
`check` and `fix` on small projects, each message family once (findings, the summaries, what was
not checked, what was fixed in part or left, errors). Other tests assert on exit codes, files and
JSON; the wording is held here. Run with MCP_CODEMOD_UPDATE_SNAPSHOTS=1 to rewrite it, and review
the diff."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import run_cli
from demo_servers import EXPOSED, UNKNOWN_FRAMEWORK, server_module, tool, tools_module

SNAPSHOT = Path(__file__).parent / "snapshots" / "cli-messages.txt"

# Each project (its files) and the commands run on it in turn, in the project's directory.
SCENARIOS: dict[str, tuple[dict[str, str | bytes], list[list[str]]]] = {
    "an exposed parameter, fixed": (
        {"server.py": EXPOSED},
        [["check"], ["check", "--statistics"], ["fix"], ["fix", "--write"], ["fix", "--write"]],
    ),
    "a server of unknown framework": (
        {"server.py": UNKNOWN_FRAMEWORK},
        [["check"], ["check", "--statistics"], ["fix", "--write"]],
    ),
    "a registration counted against the pre-parsing server": (
        {"server.py": EXPOSED, "company.py": UNKNOWN_FRAMEWORK},
        [["check"], ["fix", "--write"]],
    ),
    "a fix that leaves the unsafe ones": (
        {
            "server.py": server_module(
                tool("save", "body", "Any = None", "repr({parameter})"),
                tool(),
                imports="from typing import Any\n\nfrom mcp.server.fastmcp import FastMCP",
            )
        },
        [["fix", "--write"], ["check"]],
    ),
    "a finding fixed in part (its server is outside the given paths)": (
        {
            "app/__init__.py": "",
            "app/server.py": 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n',
            "app/tools.py": tools_module(server="app.server"),
        },
        [["fix", "--write", "app/tools.py"]],
    ),
    "a file that cannot be read": (
        {"server.py": EXPOSED, "broken.py": EXPOSED.encode() + b"# \xff\n"},
        [["check"], ["fix", "--write"]],
    ),
}


def transcript(tmp_path: Path) -> str:
    parts = []
    for index, (title, (files, commands)) in enumerate(SCENARIOS.items()):
        root = tmp_path / str(index)
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                (root / name).write_bytes(text)
            else:
                (root / name).write_text(text, encoding="utf-8")
        parts.append(f"## {title}\n")
        for command in commands:
            result = run_cli(*command, "--no-cache", cwd=root)
            parts.append(f"$ mcp-codemod {' '.join(command)}  (exit {result.exit_code})\n")
            parts += [result.stdout, "[stderr]\n" + result.stderr if result.stderr else "", "\n"]
    return "".join(parts)


def test_messages_match_the_snapshot(tmp_path):
    text = transcript(tmp_path)
    if os.environ.get("MCP_CODEMOD_UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert text == SNAPSHOT.read_text(encoding="utf-8")
