"""A text parameter whose `pattern=` refuses every text the SDK's pre-parse decodes (JSON null,
arrays, objects) takes no text the pre-parse changes: `check` reports it only where the probe
(the installed mcp 1.x or 2.x SDK's own argument handling) finds it mangled. A pattern `check`
cannot read exactly counts as letting such text through."""

from __future__ import annotations

import importlib
import itertools
import sys

import pytest
from probe.servers import MCP_MAJOR

from mcp_codemod.engine.checker import check_files
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import select_rules

SERVER = (
    "from mcp.server.fastmcp import FastMCP as Server"
    if MCP_MAJOR == 1
    else "from mcp.server.mcpserver import MCPServer as Server"
)
# pattern → (the probe finds it mangled, `check` reports it)
PATTERNS = {
    r"^(Time)?SlicerStyle(Light|Dark|Other)\d$": (False, False),  # excel-mcp-server's add_slicer
    r"^[A-Z][A-Z0-9_]*$": (False, False),
    r"^\d{4}-\d{2}-\d{2}$": (False, False),
    r"^$": (False, False),
    r"^[a-z]+$": (True, True),  # "null" is taken, and arrives as None
    r"^[\[{]": (True, True),
    r"^\s*\[": (True, True),
    r"^.*$": (True, True),
    # Reported though the probe's three texts pass: not anchored, '["SlicerStyle"]' is mangled.
    r"SlicerStyle": (False, True),
    # Reported as `check` cannot tell: a match may begin with `n`; a flag it does not read.
    r"^n?S": (False, True),
    r"(?i)^S": (False, True),
}
_modules = itertools.count()


# annotation → (the probe finds it mangled, `check` reports it)
ANNOTATIONS = {
    **{f"Annotated[str | None, Field(pattern={p!r})]": found for p, found in PATTERNS.items()},
    'Annotated[str | None, StringConstraints(pattern="^[A-Z]+$")]': (False, False),
    # pydantic ignores metadata it does not know: only its own constraints keep text out.
    'Annotated[str | None, constraint(pattern="^[A-Z]+$")]': (True, True),
}


@pytest.mark.sdk
@pytest.mark.parametrize("annotation", list(ANNOTATIONS))
def test_check_reports_a_constrained_parameter_as_the_probe_finds_it(
    tmp_path, monkeypatch, annotation
):
    name = f"pattern_server_{next(_modules)}"
    path = tmp_path / f"{name}.py"
    path.write_text(
        f"""\
from typing import Annotated

from pydantic import Field, StringConstraints

{SERVER}

mcp = Server("patterns")


def constraint(pattern):
    return pattern


@mcp.tool()
def pick(style: {annotation} = None) -> str:
    return repr(style)
""",
        encoding="utf-8",
    )
    reported = any(f.code == "MCP001" for f in check_files([path], select_rules(None, [])).findings)
    monkeypatch.syspath_prepend(str(tmp_path))
    server = importlib.import_module(name).mcp
    sys.modules.pop(name)
    assert (bool(probe_server(server).problems), reported) == ANNOTATIONS[annotation]
