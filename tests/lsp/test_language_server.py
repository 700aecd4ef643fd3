"""`mcp-codemod server` end to end: a real LSP client (pytest-lsp) drives the server over stdio,
as an editor configured as docs/editors.md says would."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "pygls", reason="the language server needs the lsp extra: pip install -e '.[lsp]'"
)
pytest_lsp = pytest.importorskip(
    "pytest_lsp", reason="the tests drive it with pytest-lsp (the test extra)"
)

from demo_servers import EXPOSED, tools_module  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402

from mcp_codemod.rules import RULES_BY_CODE  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EDITORS = ROOT / "docs" / "editors.md"
# The command the editors' configurations in docs/editors.md run, from this environment.
COMMAND = ["mcp-codemod", "server"]
SERVER = [str(Path(sys.executable).parent / COMMAND[0]), *COMMAND[1:]]
TIMEOUT = 60  # seconds: CI machines are shared
CONFIG = "[tool.mcp-codemod]\n"

ONE_SAFE_FIX = EXPOSED

SAFE_AND_UNSAFE = """\
from typing import Any

from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

mcp = FastMCP("demo")


@mcp.tool()
def count(page: StrictInt = 1, payload: Any = None) -> str:
    return repr((page, payload))
"""


def make_client() -> LanguageClient:
    """pytest-lsp's client, which also keeps every diagnostics notification with its version
    and accepts the server's registrations (file watchers)."""
    client = LanguageClient()
    client.published = []
    client.registrations = []

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)

    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    features = {
        **DEFAULT_CLIENT_FEATURES,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
        types.CLIENT_REGISTER_CAPABILITY: register,
    }
    register_lsp_features(client, features)
    return client


CLIENT_SERVER = ClientServerConfig(server_command=SERVER, client_factory=make_client)


@pytest_lsp.fixture(config=CLIENT_SERVER)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CLIENT_SERVER)
async def unmanaged_client(lsp_client: LanguageClient):
    """A client whose test shuts the server down itself."""
    yield


CAPABILITIES = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
            dynamic_registration=True
        ),
        workspace_folders=True,
    ),
    text_document=types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(
                    value_set=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]
                )
            ),
            disabled_support=True,
        ),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
    ),
)


async def start(client: LanguageClient, *folders: Path) -> types.InitializeResult:
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=CAPABILITIES,
            workspace_folders=[
                types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name) for folder in folders
            ],
        )
    )


def project(root: Path, files: dict[str, str], config: str = CONFIG) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(config, encoding="utf-8")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def open_document(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="python",
                version=1,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return uri


def change_document(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def diagnostics_of(
    client: LanguageClient, uri: str, version: int, after: int = 0
) -> list[types.Diagnostic]:
    """The diagnostics the server publishes for `version` of the document (the first such
    notification from index `after` of those received)."""

    async def published() -> list[types.Diagnostic]:
        while True:
            for params in client.published[after:]:
                if params.uri == uri and params.version == version:
                    return list(params.diagnostics)
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(published(), TIMEOUT)


async def actions_at(
    client: LanguageClient, uri: str, line: int, only: list[str] | None = None
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return [action for action in result or [] if isinstance(action, types.CodeAction)]


async def fix_all(client: LanguageClient, uri: str, line_count: int) -> types.CodeAction:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(line_count, 0)),
            context=types.CodeActionContext(
                diagnostics=[], only=[types.CodeActionKind.SourceFixAll]
            ),
        )
    )
    [action] = result
    assert action.kind == "source.fixAll.mcp-codemod"
    return action


def applied(edit: types.WorkspaceEdit, texts: dict[str, str]) -> dict[str, str]:
    """The texts (by uri) with the workspace edit applied, as an editor applies it: each
    document's edits against its text before any of them, in order at equal positions."""
    result = dict(texts)
    document_changes = edit.document_changes or [
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
            edits=edits,
        )
        for uri, edits in (edit.changes or {}).items()
    ]
    for change in document_changes:
        if isinstance(change, types.CreateFile):
            result[change.uri] = ""
            continue
        uri = change.text_document.uri
        text = result[uri]
        starts = [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]

        def offset(position: types.Position, text=text, starts=starts) -> int:
            start = starts[position.line]
            # UTF-16 code units to characters
            units, index = 0, start
            while units < position.character:
                units += 2 if ord(text[index]) > 0xFFFF else 1
                index += 1
            return index

        edits = sorted(
            enumerate(change.edits),
            key=lambda item: (offset(item[1].range.start), item[0]),
        )
        pieces, position = [], 0
        for _, text_edit in edits:
            start, end = offset(text_edit.range.start), offset(text_edit.range.end)
            pieces += [text[position:start], text_edit.new_text]
            position = end
        pieces.append(text[position:])
        result[uri] = "".join(pieces)
    return result


def fixed_by_cli(tmp_path: Path, text: str, *options: str) -> str:
    """What `mcp-codemod fix --write` makes of `text`, in a project of its own."""
    root = project(tmp_path / f"cli-{len(list(tmp_path.iterdir()))}", {"server.py": text})
    done = subprocess.run(
        [str(Path(sys.executable).parent / "mcp-codemod"), "fix", "--write", *options, "."],
        cwd=root,
        capture_output=True,
        text=True,
    )
    # 1: findings are left for a fix that was not enabled (`fix` does not pass while they are).
    assert done.returncode in (0, 1), done.stderr
    return (root / "server.py").read_text(encoding="utf-8")


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
