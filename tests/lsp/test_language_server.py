"""`mcp-codemod server` end to end: a real LSP client (pytest-lsp, tests/lsp/editor.py) drives the
server over stdio, as an editor configured as docs/editors.md says would: diagnostics on open and
on each change, from the unsaved text and each project's configuration, a syntax error, a
server of unknown framework, positions in UTF-16, and a clean shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "pygls", reason="the language server needs the lsp extra: pip install -e '.[lsp]'"
)
pytest.importorskip("pytest_lsp", reason="the tests drive it with pytest-lsp (the test extra)")

from demo_servers import tools_module
from lsprotocol import types

from .editor import (
    COMMAND,
    EDITORS,
    ONE_SAFE_FIX,
    ROOT,
    SERVER,
    TIMEOUT,
    actions_at,
    applied,
    change_document,
    diagnostics_of,
    fixed_by_cli,
    open_document,
    project,
    start,
)


@pytest.mark.asyncio
async def test_diagnostics_arrive_on_open_and_follow_each_change(client, tmp_path):
    root = project(tmp_path / "app", {"server.py": ONE_SAFE_FIX})
    await start(client, root)
    uri = open_document(client, root / "server.py")

    [diagnostic] = await diagnostics_of(client, uri, 1)
    assert diagnostic.code == "MCP001"
    assert diagnostic.source == "mcp-codemod"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    # On the parameter's name: `def search(query: ...` on line 7.
    assert diagnostic.range == types.Range(types.Position(6, 11), types.Position(6, 16))
    assert "JSON-pre-parsed" in diagnostic.message
    page = ROOT / "docs" / "rules" / "MCP001.md"
    expected = types.CodeDescription(href=page.as_uri()) if page.is_file() else None
    assert diagnostic.code_description == expected

    change_document(client, uri, 2, ONE_SAFE_FIX.replace("str | None = None", "str = ''"))
    assert await diagnostics_of(client, uri, 2) == []
    change_document(client, uri, 3, ONE_SAFE_FIX)
    assert [d.code for d in await diagnostics_of(client, uri, 3)] == ["MCP001"]


@pytest.mark.asyncio
async def test_the_unsaved_text_is_checked_not_the_file(client, tmp_path):
    root = project(tmp_path / "app", {"server.py": "print('nothing here')\n"})
    await start(client, root)
    uri = open_document(client, root / "server.py", ONE_SAFE_FIX)
    assert [d.code for d in await diagnostics_of(client, uri, 1)] == ["MCP001"]


@pytest.mark.asyncio
async def test_a_syntax_error_is_a_diagnostic_and_the_server_goes_on(client, tmp_path):
    root = project(tmp_path / "app", {"server.py": ONE_SAFE_FIX})
    await start(client, root)
    uri = open_document(client, root / "server.py")
    await diagnostics_of(client, uri, 1)

    broken = ONE_SAFE_FIX.replace("def search(", "def search((")
    change_document(client, uri, 2, broken)
    [diagnostic] = await diagnostics_of(client, uri, 2)
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.message.startswith("cannot parse (line 7")
    assert diagnostic.range.start.line == 6
    assert [a for a in await actions_at(client, uri, 6)] == []

    change_document(client, uri, 3, ONE_SAFE_FIX)
    assert [d.code for d in await diagnostics_of(client, uri, 3)] == ["MCP001"]


@pytest.mark.asyncio
async def test_a_server_module_changed_on_disk_changes_the_open_tools_module(client, tmp_path):
    tools = tools_module(server="app.server")
    root = project(
        tmp_path / "repo",
        {
            "app/__init__.py": "",
            "app/server.py": 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n',
            "app/tools.py": tools,
        },
    )
    await start(client, root)
    uri = open_document(client, root / "app" / "tools.py")
    assert [d.code for d in await diagnostics_of(client, uri, 1)] == ["MCP001"]
    # Registered after `initialized`, before the first diagnostics were published.
    [registration] = client.registrations
    assert registration.method == "workspace/didChangeWatchedFiles"
    assert [w["globPattern"] for w in registration.register_options["watchers"]] == [
        "**/*.py",
        "**/pyproject.toml",
        "**/.gitignore",
    ]

    # The server becomes standalone fastmcp, which does not pre-parse (the text union is then
    # MCP008's, for digits sent as a number): the same size and modification time as before
    # (a tool that keeps times), so only the content tells.
    server = root / "app" / "server.py"
    before = server.stat()
    changed = 'from fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'
    changed = changed.replace("\n\n", "\n" + " " * (before.st_size - len(changed)) + "\n", 1)
    server.write_text(changed, encoding="utf-8")
    os.utime(server, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert server.stat().st_size == before.st_size
    seen = len(client.published)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=server.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert [d.code for d in await diagnostics_of(client, uri, 1, after=seen)] == ["MCP008"]


@pytest.mark.asyncio
async def test_each_document_follows_its_own_projects_configuration(client, tmp_path):
    strict = project(tmp_path / "strict", {"server.py": ONE_SAFE_FIX})
    lenient = project(
        tmp_path / "lenient",
        {"server.py": ONE_SAFE_FIX},
        '[tool.mcp-codemod]\nignore = ["MCP001"]\n',
    )
    await start(client, strict, lenient)
    first = open_document(client, strict / "server.py")
    second = open_document(client, lenient / "server.py")
    assert [d.code for d in await diagnostics_of(client, first, 1)] == ["MCP001"]
    assert await diagnostics_of(client, second, 1) == []


@pytest.mark.asyncio
async def test_shutdown_and_exit_are_clean(unmanaged_client, tmp_path):
    root = project(tmp_path / "app", {"server.py": ONE_SAFE_FIX})
    await start(unmanaged_client, root)
    uri = open_document(unmanaged_client, root / "server.py")
    await diagnostics_of(unmanaged_client, uri, 1)
    await unmanaged_client.shutdown_session()
    assert unmanaged_client._server.returncode == 0
    assert unmanaged_client.error is None


def test_the_editor_configurations_in_the_docs_run_the_command_the_tests_run():
    """The tests start the server as the editors' configurations in docs/editors.md do (the
    command from this environment's scripts), with no initialization options."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        tomllib = pytest.importorskip("tomli")
    blocks: dict[str, list[str]] = {"json": [], "lua": [], "toml": []}
    for language, body in re.findall(r"```(\w+)\n(.*?)```", EDITORS.read_text("utf-8"), re.S):
        blocks.setdefault(language, []).append(body)

    [vscode] = [json.loads(body) for body in blocks["json"]]
    assert [vscode["glspc.server.command"], *vscode["glspc.server.commandArguments"]] == COMMAND
    assert vscode["glspc.server.languageId"] == ["python"]
    assert "glspc.server.initializationOptions" not in vscode

    neovim = [re.search(r"cmd = \{(.*?)\}", body) for body in blocks["lua"]]
    assert len(neovim) == 2  # vim.lsp.config (0.11) and vim.lsp.start
    for match in neovim:
        assert re.findall(r'"([^"]*)"', match.group(1)) == COMMAND
    assert not any("init_options" in body for body in blocks["lua"])

    [helix] = [tomllib.loads(body) for body in blocks["toml"]]
    server = helix["language-server"]["mcp-codemod"]
    assert [server["command"], *server["args"]] == COMMAND
    assert "config" not in server
    [python] = helix["language"]
    assert "mcp-codemod" in python["language-servers"]

    assert SERVER[1:] == COMMAND[1:] and Path(SERVER[0]).name == COMMAND[0]


def test_a_finding_links_to_its_rules_page_where_the_page_is(tmp_path, monkeypatch):
    from mcp_codemod.lsp import features

    monkeypatch.setattr(features, "RULE_PAGES", tmp_path)
    assert features.rule_page("MCP001") is None
    (tmp_path / "MCP001.md").write_text("# MCP001\n", encoding="utf-8")
    assert features.rule_page("MCP001") == (tmp_path / "MCP001.md").as_uri()


@pytest.mark.asyncio
async def test_a_tool_on_a_server_of_unknown_framework_is_not_silently_clean(client, tmp_path):
    text = ONE_SAFE_FIX.replace(
        "from mcp.server.fastmcp import FastMCP", "from factory import make_server"
    ).replace('FastMCP("search")', "make_server()")
    root = project(tmp_path / "app", {"server.py": text})
    await start(client, root)
    uri = open_document(client, root / "server.py")
    [diagnostic] = await diagnostics_of(client, uri, 1)
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.message.startswith("Tool not checked: server `mcp`")
    assert "framework unknown" in diagnostic.message
    assert diagnostic.range.start.line == 5  # the registration


@pytest.mark.asyncio
async def test_positions_are_in_utf16_code_units(client, tmp_path):
    text = ONE_SAFE_FIX.replace("def search(", 'def search(note: str = "😀", ')
    root = project(tmp_path / "app", {"server.py": text})
    await start(client, root)
    uri = open_document(client, root / "server.py")
    [diagnostic] = await diagnostics_of(client, uri, 1)
    line = text.splitlines()[6]
    before = line[: line.index("query")]
    assert diagnostic.range.start == types.Position(6, len(before.encode("utf-16-le")) // 2)
    assert diagnostic.range.start.character == len(before) + 1  # the emoji is two units

    [fix] = [a for a in await actions_at(client, uri, 6) if a.title.startswith("Fix MCP001")]
    assert applied(fix.edit, {uri: text})[uri] == fixed_by_cli(tmp_path, text)


@pytest.mark.asyncio
async def test_nothing_is_published_after_shutdown(unmanaged_client, tmp_path):
    # A module long enough that its check is still running when `shutdown` arrives: pygls
    # closes the output at `exit`, and a publish after it failed while reporting its failure.
    tools = "".join(
        f"\n\n@mcp.tool()\ndef tool_{n}(query: str | None = None) -> str:\n    return query or ''\n"
        for n in range(400)
    )
    text = ONE_SAFE_FIX + tools
    root = project(tmp_path / "app", {"server.py": text})
    await start(unmanaged_client, root)
    uri = open_document(unmanaged_client, root / "server.py")
    await diagnostics_of(unmanaged_client, uri, 1)
    change_document(unmanaged_client, uri, 2, text + "\n")
    await unmanaged_client.shutdown_async(None)
    seen = len(unmanaged_client.published)
    await asyncio.sleep(3)  # longer than the check of version 2
    assert unmanaged_client.published[seen:] == []
    unmanaged_client.exit(None)
    assert await asyncio.wait_for(unmanaged_client._server.wait(), TIMEOUT) == 0
