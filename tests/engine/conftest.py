"""Fixtures of the run's tests: the modules parsed in this process, odd spellings of
registrations the prefilter must let through, and a project whose registrars' callers are in
other modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codemod.engine import file_facts as module_facts


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The modules parsed in this process (jobs=1 keeps every parse here)."""
    seen: list[str] = []
    scan = module_facts.scan_source

    def counting(task):
        seen.append(task.display)
        return scan(task)

    # A spy: no public result says which modules a run parsed.
    monkeypatch.setattr(module_facts, "scan_source", counting)
    return seen


TRICKY = {
    "server.py": "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n",
    # Python allows blanks, continuations and comments between the dot and the attribute; these
    # modules name nothing else the prefilter looks for.
    "spaced.py": (
        "from server import mcp\n@mcp. tool()\ndef spaced(query: str | None = None) -> str: ...\n"
    ),
    "commented.py": (
        "from server import mcp\n"
        "@(mcp  # the server\n"
        "    .  # its method\n"
        "    tool)()\n"
        "def commented(query: str | None = None) -> str: ...\n"
    ),
    "continued.py": (
        "from server import mcp\n"
        "def continued(query: str | None = None) -> str: ...\n"
        "mcp.\\\n"
        "tool()(continued)\n"
    ),
    # Identifiers are NFKC-normalized: this is `mcp.tool`.
    "fullwidth.py": (
        "from server import mcp\n@mcp.ｔｏｏｌ()\ndef wide(query: str | None = None) -> str: ...\n"
    ),
    # The tool function lives in a module that names nothing the prefilter looks for.
    "impl.py": "def search(query: str | None = None) -> str: ...\n",
    "register.py": "from server import mcp\nfrom impl import search\nmcp.add_tool(search)\n",
}


@pytest.fixture
def tricky(tmp_path: Path) -> Path:
    for name, text in TRICKY.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


REGISTRARS = {
    "pyproject.toml": "[project]\nname = 'app'\n",
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n"
        "from tools_a import register_a\n"
        "from tools_b import register_b\n"
        "mcp = FastMCP('s')\n"
        "register_a(mcp)\n"
        "register_b(mcp)\n"
    ),
    "tools_a.py": (
        "def register_a(server):\n"
        "    @server.tool()\n"
        "    def a(query: str | None = None) -> str: ...\n"
    ),
    "tools_b.py": (
        "def register_b(server):\n"
        "    @server.tool()\n"
        "    def b(query: str | None = None) -> str: ...\n"
    ),
    # Mentions a registrar's name without passing it anything: read, parsed, no caller.
    "notes.py": "from tools_a import register_a  # FastMCP\n",
}


@pytest.fixture
def registrars(tmp_path: Path) -> Path:
    for name, text in REGISTRARS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path
