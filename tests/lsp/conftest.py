"""The language server's clients, as fixtures: pytest-lsp starts `mcp-codemod server` over stdio
for each test (where pytest-lsp is installed; the modules that need it skip without it)."""

import importlib.util

if importlib.util.find_spec("pytest_lsp") and importlib.util.find_spec("pygls"):
    import pytest_lsp
    from pytest_lsp import LanguageClient

    from .editor import CLIENT_SERVER

    @pytest_lsp.fixture(config=CLIENT_SERVER)
    async def client(lsp_client: LanguageClient):
        yield
        await lsp_client.shutdown_session()

    @pytest_lsp.fixture(config=CLIENT_SERVER)
    async def unmanaged_client(lsp_client: LanguageClient):
        """A client whose test shuts the server down itself."""
        yield
