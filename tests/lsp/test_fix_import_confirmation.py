"""The language server offers no fix whose code would not import with the installed mcp: it
confirms its edits with the fix workflow's own check (`fix_workflow.missing_runtime_names`),
as `fix` does before it says "Fixed"."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_servers import server_module

from mcp_codemod.fix import runtime_names
from mcp_codemod.lsp.document_check import check_document
from mcp_codemod.lsp.document_fixes import FixUnavailable, fix_edits

# A server whose class another module re-exports (nothing in its own module says which major
# it is for): `fix` makes it a server of that major's guarded class, right for it wherever the
# fix runs (the re-export imports that major's package).
REEXPORTS = {
    1: ("from mcp.server.fastmcp import FastMCP as Server\n", "GuardedFastMCP"),
    2: ("from mcp.server.mcpserver import MCPServer as Server\n", "GuardedMCPServer"),
}
SERVER = server_module(imports="from compat import Server", server="Server('t')")
# A server whose class is chosen between the majors: the fix passes it through `guard()`.
CHOSEN = server_module(
    imports="try:\n    from mcp.server.mcpserver import MCPServer as Server\n"
    "except ImportError:\n    from mcp.server.fastmcp import FastMCP as Server",
    server="Server('t')",
)


def edits_for(path: Path, text: str, root: Path):
    path.write_text(text, encoding="utf-8")
    check = check_document(path, text, 1, root)
    assert check.findings, check.error
    return fix_edits(check, check.findings, lambda _path: None, lambda _path: True)


@pytest.mark.parametrize("major", [1, 2])
def test_a_re_exported_class_is_fixed_for_its_major_whatever_mcp_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, major: int
):
    monkeypatch.chdir(tmp_path)
    compat, _guarded = REEXPORTS[major]
    (tmp_path / "compat.py").write_text(compat, encoding="utf-8")
    [change] = edits_for(tmp_path / "server.py", SERVER, tmp_path)
    assert change.path == tmp_path / "server.py"


def test_a_fix_that_would_not_import_here_is_unavailable_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runtime_names, "installed_mcp", lambda: runtime_names.InstalledMcp(None))
    with pytest.raises(FixUnavailable) as refused:
        edits_for(tmp_path / "server.py", CHOSEN, tmp_path)
    # The line `fix` prints for it, where the document's directory sees the file.
    assert str(refused.value).startswith("server.py:") and "`guard`" in str(refused.value)
