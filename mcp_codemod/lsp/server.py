"""`mcp-codemod server`: the language server over standard input and output, on pygls.

A document is checked when it is opened, changed or saved, and when a file it may import
changes on disk. Checks run one at a time in a thread of their own, so the server keeps
answering while one runs. Changes are debounced by coalescing: a check starts as soon as the
document's previous one ends, on the text the editor holds then, and the result of a check
whose text changed meanwhile is dropped, not published. (A fixed delay would add its length to
every answer.)
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from mcp_codemod import __version__
from mcp_codemod.lsp.document_check import DocumentCheck, check_document
from mcp_codemod.lsp.features import (
    FIX_ALL,
    SOURCE,
    EditTarget,
    Positions,
    code_actions,
    diagnostics,
    hover,
)

# The files whose change on disk can change a check: modules an open document imports, and
# the configuration.
WATCHED = ("**/*.py", "**/pyproject.toml", "**/.gitignore")


class CodemodServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, __version__)
        self.checks: dict[str, DocumentCheck] = {}  # uri → the last check of its text
        self.running: dict[str, asyncio.Task] = {}  # uri → the check under way
        self.stale: set[str] = set()  # uris whose text changed while their check ran
        # Set at `shutdown` (or `exit`): nothing is published after it. pygls closes the output
        # at `exit`, and a publish then would fail, and so would its report of the failure.
        self.shut_down = False
        # One thread: checks share the facts cache on disk and the process's memory.
        self.analysis = ThreadPoolExecutor(1, thread_name_prefix="mcp-codemod-check")

    # What the editor holds.

    def path_of(self, uri: str) -> Path | None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return Path(os.path.normpath(path)) if path else None

    def is_python(self, uri: str) -> bool:
        document = self.workspace.text_documents.get(uri)
        path = self.path_of(uri)
        if document is None or path is None:
            return False
        return document.language_id == "python" or path.suffix == ".py"

    def folders(self) -> list[Path]:
        found = [self.path_of(folder.uri) for folder in self.workspace.folders.values()]
        if not found and self.workspace.root_uri:
            found = [self.path_of(self.workspace.root_uri)]
        return [folder for folder in found if folder is not None]

    def folder_of(self, path: Path) -> Path | None:
        """The innermost workspace folder holding `path`."""
        holding = [folder for folder in self.folders() if path.is_relative_to(folder)]
        return max(holding, key=lambda folder: len(folder.parts), default=None)

    def editable(self, document: Path):
        """Which other files a fix of `document` may edit: those in the workspace (or, with no
        workspace, in the document's project)."""
        folders = self.folders()
        if not folders:
            check = self.checks.get(document.as_uri())
            config = check.settings.config_file if check and check.settings else None
            folders = [config.parent if config else document.parent]
        return lambda path: any(path.is_relative_to(folder) for folder in folders)

    def open_text(self, path: Path) -> tuple[str, int | None] | None:
        document = self.workspace.text_documents.get(path.as_uri())
        return (document.source, document.version) if document is not None else None

    def units(self, text: str) -> int:
        return self.workspace.position_codec.client_num_units(text)

    def edit_target(self) -> EditTarget:
        capabilities = self.client_capabilities
        edit = capabilities.workspace.workspace_edit if capabilities.workspace else None
        document = capabilities.text_document
        actions = document.code_action if document else None
        return EditTarget(
            bool(edit and edit.document_changes),
            self.units,
            bool(actions and actions.disabled_support),
        )

    # Checks.

    def schedule(self, uri: str) -> None:
        """Check the document's current text as soon as its check under way (if any) ends."""
        if self.shut_down or not self.is_python(uri):
            return
        if uri in self.running:
            self.stale.add(uri)
            return
        self.running[uri] = asyncio.ensure_future(self._check_until_current(uri))

    async def _check_until_current(self, uri: str) -> None:
        try:
            while uri in self.workspace.text_documents:
                self.stale.discard(uri)
                check = await self.current(uri)
                if self.shut_down or uri not in self.workspace.text_documents:
                    return  # closed meanwhile (its diagnostics were cleared), or shut down
                if uri in self.stale:
                    continue  # the text changed while it was checked: check the new one
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(
                        uri=uri,
                        version=check.version,
                        diagnostics=diagnostics(check, Positions(check.text, self.units)),
                    )
                )
                return
        finally:
            self.running.pop(uri, None)

    async def current(self, uri: str) -> DocumentCheck:
        """The check of the text the editor holds now: the last one, or a new one."""
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        known = self.checks.get(uri)
        if known is not None and known.version == version and known.text == text:
            return known
        path = self.path_of(uri)
        assert path is not None
        check = await asyncio.get_running_loop().run_in_executor(
            self.analysis, check_document, path, text, version, self.folder_of(path)
        )
        self.checks[uri] = check
        return check

    def invalidate(self, changed: list[Path]) -> None:
        """Files changed on disk: check again the open documents of their workspace folders
        (all of them, outside any folder), whose imports or configuration may be among them."""
        folders = {self.folder_of(path) for path in changed}
        for uri in list(self.workspace.text_documents):
            path = self.path_of(uri)
            if path is None or (None not in folders and self.folder_of(path) not in folders):
                continue
            self.checks.pop(uri, None)
            self.schedule(uri)


server = CodemodServer()


@server.feature(types.INITIALIZED)
def initialized(ls: CodemodServer, _params: types.InitializedParams) -> None:
    workspace = ls.client_capabilities.workspace
    watching = workspace.did_change_watched_files if workspace else None
    if watching is not None and watching.dynamic_registration:
        # Not awaited: the server answers requests while the client registers the watchers.
        ls.client_register_capability(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="mcp-codemod-watched-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
                        ),
                    )
                ]
            )
        )


@server.feature(types.SHUTDOWN)
def shutdown(ls: CodemodServer, _params: None) -> None:
    ls.shut_down = True


@server.feature(types.EXIT)
def exit_(ls: CodemodServer, _params: None) -> None:
    ls.shut_down = True


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: CodemodServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: CodemodServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: CodemodServer, params: types.DidSaveTextDocumentParams) -> None:
    # The saved file may be imported by the other open documents: they are checked again too.
    path = ls.path_of(params.text_document.uri)
    if path is not None:
        ls.invalidate([path])


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: CodemodServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.checks.pop(uri, None)
    if not ls.shut_down:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: CodemodServer, params: types.DidChangeWatchedFilesParams) -> None:
    changed = [ls.path_of(change.uri) for change in params.changes]
    ls.invalidate([path for path in changed if path is not None])


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False
    ),
)
async def code_action(
    ls: CodemodServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    if not ls.is_python(uri):
        return None
    check = await ls.current(uri)
    path = ls.path_of(uri)
    assert path is not None
    return code_actions(
        check,
        (params.range.start.line, params.range.end.line),
        params.context.only,
        ls.open_text,
        ls.editable(path),
        ls.edit_target(),
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: CodemodServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    if not ls.is_python(uri):
        return None
    return hover(await ls.current(uri), params.position, ls.units)


def serve() -> None:
    server.start_io()
