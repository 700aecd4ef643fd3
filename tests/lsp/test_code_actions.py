"""The language server's code actions and hovers, driven by a real LSP client (pytest-lsp,
tests/lsp/editor.py): a quick fix and fix-all give the text of `fix --write`, `# noqa`, a hover
that explains the rule, a fix that edits another file, or says why it cannot, and plain edits for
a client without document changes."""

from __future__ import annotations

import subprocess

import pytest

pytest.importorskip(
    "pygls", reason="the language server needs the lsp extra: pip install -e '.[lsp]'"
)
pytest.importorskip("pytest_lsp", reason="the tests drive it with pytest-lsp (the test extra)")

from demo_servers import tools_module
from lsprotocol import types

from mcp_codemod.rules import RULES_BY_CODE

from .editor import (
    ONE_SAFE_FIX,
    SAFE_AND_UNSAFE,
    SERVER,
    actions_at,
    applied,
    change_document,
    diagnostics_of,
    fix_all,
    fixed_by_cli,
    open_document,
    project,
    start,
)


@pytest.mark.asyncio
async def test_a_quick_fix_gives_the_text_of_fix_write(client, tmp_path):
    root = project(tmp_path / "app", {"server.py": ONE_SAFE_FIX})
    await start(client, root)
    uri = open_document(client, root / "server.py")
    await diagnostics_of(client, uri, 1)

    actions = await actions_at(client, uri, 6)
    [fix] = [a for a in actions if a.title.startswith("Fix MCP001")]
    assert fix.title == "Fix MCP001: Mark it `NoPreParse` and make the server a `GuardedFastMCP`"
    assert fix.is_preferred and fix.disabled is None
    assert fix.diagnostics[0].code == "MCP001"
    fixed = applied(fix.edit, {uri: ONE_SAFE_FIX})[uri]
    assert fixed == fixed_by_cli(tmp_path, ONE_SAFE_FIX)
    assert fixed != ONE_SAFE_FIX


@pytest.mark.asyncio
async def test_fix_all_applies_the_safe_fixes_and_leaves_the_unsafe_ones_alone(client, tmp_path):
    root = project(tmp_path / "app", {"server.py": SAFE_AND_UNSAFE})
    await start(client, root)
    uri = open_document(client, root / "server.py")
    codes = sorted(d.code for d in await diagnostics_of(client, uri, 1))
    # `payload: Any`: MCP001's marker is unsafe; MCP007's (the untyped schema node) is safe.
    assert codes == ["MCP001", "MCP002", "MCP007"]

    action = await fix_all(client, uri, SAFE_AND_UNSAFE.count("\n"))
    fixed = applied(action.edit, {uri: SAFE_AND_UNSAFE})[uri]
    assert fixed == fixed_by_cli(tmp_path, SAFE_AND_UNSAFE)
    assert fixed != fixed_by_cli(tmp_path, SAFE_AND_UNSAFE, "--unsafe-fixes")
    assert "AcceptWholeFloat" in fixed and 'FastMCP("demo")' in fixed

    # The unsafe fix is offered on its own, and says so.
    titles = [a.title for a in await actions_at(client, uri, 9)]
    [unsafe] = [title for title in titles if title.startswith("Fix MCP001: ")]
    assert unsafe.endswith("(unsafe)")
    assert "Fix MCP002: Mark it `AcceptWholeFloat`" in titles


@pytest.mark.asyncio
async def test_add_noqa_silences_the_finding(client, tmp_path):
    root = project(tmp_path / "app", {"server.py": ONE_SAFE_FIX})
    await start(client, root)
    uri = open_document(client, root / "server.py")
    await diagnostics_of(client, uri, 1)
    [noqa] = [a for a in await actions_at(client, uri, 6) if "noqa" in a.title]
    assert noqa.title == "Add # noqa: MCP001"
    fixed = applied(noqa.edit, {uri: ONE_SAFE_FIX})[uri]
    assert fixed.splitlines()[6] == "def search(query: str | None = None) -> str:  # noqa: MCP001"

    change_document(client, uri, 2, fixed)
    assert await diagnostics_of(client, uri, 2) == []


@pytest.mark.asyncio
async def test_hover_on_a_finding_explains_the_rule(client, tmp_path):
    root = project(tmp_path / "app", {"server.py": ONE_SAFE_FIX})
    await start(client, root)
    uri = open_document(client, root / "server.py")
    await diagnostics_of(client, uri, 1)
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(6, 13)
        )
    )
    rule = RULES_BY_CODE["MCP001"]
    assert rule.why in result.contents.value
    assert rule.fix_title in result.contents.value
    outside = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 0)
        )
    )
    assert outside is None


@pytest.mark.asyncio
async def test_a_fix_that_guards_a_server_elsewhere_edits_that_file_too(client, tmp_path):
    tools = tools_module(server="app.server")
    server_text = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'
    root = project(
        tmp_path / "repo",
        {"app/__init__.py": "", "app/server.py": server_text, "app/tools.py": tools},
    )
    await start(client, root)
    uri = open_document(client, root / "app" / "tools.py")
    await diagnostics_of(client, uri, 1)
    [fix] = [a for a in await actions_at(client, uri, 4) if a.title.startswith("Fix MCP001")]
    assert fix.title.endswith("(edits server.py)")
    server_uri = (root / "app" / "server.py").as_uri()
    result = applied(fix.edit, {uri: tools, server_uri: server_text})

    by_cli = project(
        tmp_path / "cli",
        {"app/__init__.py": "", "app/server.py": server_text, "app/tools.py": tools},
    )
    done = subprocess.run(
        [SERVER[0], "fix", "--write", "."], cwd=by_cli, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert result[uri] == (by_cli / "app" / "tools.py").read_text(encoding="utf-8")
    assert result[server_uri] == (by_cli / "app" / "server.py").read_text(encoding="utf-8")


@pytest.mark.asyncio
async def test_a_fix_reaching_a_file_with_unsaved_changes_says_where_instead(client, tmp_path):
    tools = tools_module(server="app.server")
    server_text = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'
    root = project(
        tmp_path / "repo",
        {"app/__init__.py": "", "app/server.py": server_text, "app/tools.py": tools},
    )
    await start(client, root)
    open_document(client, root / "app" / "server.py", "# unsaved\n" + server_text)
    uri = open_document(client, root / "app" / "tools.py")
    await diagnostics_of(client, uri, 1)
    [fix] = [a for a in await actions_at(client, uri, 4) if a.title.startswith("Fix MCP001")]
    assert fix.edit is None
    assert fix.disabled.reason == "the fix edits server.py:3: save it first"


@pytest.mark.asyncio
async def test_a_client_without_document_changes_gets_plain_edits_and_no_disabled_actions(
    client, tmp_path
):
    tools = tools_module(server="app.server")
    server_text = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'
    root = project(
        tmp_path / "repo",
        {"app/__init__.py": "", "app/server.py": server_text, "app/tools.py": tools},
    )
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="repo")],
        )
    )
    uri = open_document(client, root / "app" / "tools.py")
    await diagnostics_of(client, uri, 1)
    [fix] = [a for a in await actions_at(client, uri, 4) if a.title.startswith("Fix MCP001")]
    assert fix.edit.document_changes is None
    server_uri = (root / "app" / "server.py").as_uri()
    assert set(fix.edit.changes) == {uri, server_uri}
    fixed = applied(fix.edit, {uri: tools, server_uri: server_text})
    assert "GuardedFastMCP" in fixed[server_uri] and "NoPreParse" in fixed[uri]

    # With unsaved changes to server.py the fix cannot apply: this client is offered none.
    open_document(client, root / "app" / "server.py", "# unsaved\n" + server_text)
    titles = [a.title for a in await actions_at(client, uri, 4)]
    assert titles == ["Add # noqa: MCP001"]
