from types import ModuleType

import pytest

from .servers import FASTMCP_MAJOR, MCP_MAJOR, NOTES, NOTES_FASTMCP, load


@pytest.fixture
def notes() -> ModuleType:
    """notes_mcp1.py or notes_mcp2.py, freshly imported: servers `mcp` and `counters`."""
    if MCP_MAJOR is None:
        pytest.skip("mcp is not installed")
    return load(NOTES)


@pytest.fixture
def notes_fastmcp() -> ModuleType:
    """notes_fastmcp.py, freshly imported: servers `mcp` and `strict`."""
    if FASTMCP_MAJOR is None:
        pytest.skip("fastmcp is not installed")
    return load(NOTES_FASTMCP)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
