"""The language server offers no fix whose code would not import with the installed mcp: it
confirms its edits with the fix workflow's own check (`fix_workflow.missing_runtime_names`),
as `fix` does before it says "Fixed"."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_servers import server_module

from mcp_codemod.fix.runtime_names import installed_mcp
from mcp_codemod.lsp.document_check import check_document
from mcp_codemod.lsp.document_fixes import FixUnavailable, fix_edits

# A server whose class another module re-exports (nothing in its own module says which major
# it is for): `fix` makes it a server of that major's guarded class.
REEXPORTS = {
    1: ("from mcp.server.fastmcp import FastMCP as Server\n", "GuardedFastMCP"),
    2: ("from mcp.server.mcpserver import MCPServer as Server\n", "GuardedMCPServer"),
}
SERVER = server_module(imports="from compat import Server", server="Server('t')")


@pytest.mark.parametrize("major", [1, 2])
def test_a_fix_that_would_not_import_here_is_unavailable_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, major: int
):
    monkeypatch.chdir(tmp_path)
    compat, guarded = REEXPORTS[major]
    (tmp_path / "compat.py").write_text(compat, encoding="utf-8")
    path = tmp_path / "server.py"
    path.write_text(SERVER, encoding="utf-8")
    check = check_document(path, SERVER, 1, tmp_path)
    assert check.findings, check.error

    def edits():
        return fix_edits(check, check.findings, lambda _path: None, lambda _path: True)

    mcp = installed_mcp()
    if mcp.major is not None and (mcp.major >= 2) == (major >= 2):
        [change] = edits()
        assert change.path == path
        return
    with pytest.raises(FixUnavailable) as refused:
        edits()
    # The line `fix` prints for it, where the document's directory sees the file.
    assert str(refused.value).startswith("server.py:3:") and f"`{guarded}`" in str(refused.value)
