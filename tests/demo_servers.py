"""The demo servers the tests share: write them into a project rather than retyping them."""

import importlib.util
import sys
import uuid
from pathlib import Path
from types import ModuleType

MCP1_IMPORT = "from mcp.server.fastmcp import FastMCP"


def tool(
    name: str = "search",
    parameter: str = "query",
    annotation: str = "str | None = None",
    returns: str = '{parameter} or ""',
) -> str:
    """One `@mcp.tool()` function, as module text: `def NAME(PARAMETER: ANNOTATION) -> str`,
    returning its argument (`returns`, in which `{parameter}` is the parameter's name)."""
    result = returns.format(parameter=parameter)
    return f"\n\n@mcp.tool()\ndef {name}({parameter}: {annotation}) -> str:\n    return {result}\n"


def server_module(*tools: str, imports: str = MCP1_IMPORT, server: str = 'FastMCP("demo")') -> str:
    """A module that makes the server `mcp` (by default of mcp 1.x) and registers `tools` on it
    (by default the one `tool()`)."""
    return f"{imports}\n\nmcp = {server}\n" + "".join(tools or (tool(),))


def tools_module(*tools: str, server: str = "server") -> str:
    """A module that registers `tools` (by default the one `tool()`) on the server `mcp` it
    imports from the module `server`."""
    return f"from {server} import mcp\n" + "".join(tools or (tool(),))


# An mcp 1.x server with one exposed parameter: `check` reports MCP001 at 7:12, `fix` guards it.
EXPOSED = server_module()

# A server whose construction the analysis cannot follow: its registration is unchecked.
UNKNOWN_FRAMEWORK = server_module(
    tool("lookup", "name"),
    imports="from company_toolkit import build_server",
    server='build_server("demo")',
)


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
