"""The demo servers the tests share: write them into a project rather than retyping them."""

import importlib.util
import sys
import uuid
from pathlib import Path
from types import ModuleType

# An mcp 1.x server with one exposed parameter: `check` reports MCP001 at 7:12, `fix` guards it.
EXPOSED = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
"""

# A server whose construction the analysis cannot follow: its registration is unchecked.
UNKNOWN_FRAMEWORK = """\
from company_toolkit import build_server

mcp = build_server("demo")


@mcp.tool()
def lookup(name: str | None = None) -> str:
    return name or ""
"""


def import_server(source: str, tmp_path: Path) -> tuple[Path, ModuleType]:
    """`source` written to a file of its own under `tmp_path` and imported from there, as a
    module nothing else shares (an ImportError of its own imports propagates)."""
    path = tmp_path / f"server_{uuid.uuid4().hex}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[path.stem]
    return path, module
