"""`mcp_codemod.testing.assert_tools_keep_arguments`, as a project's own test suite would use it."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from mcp_codemod.runtime import guard
from mcp_codemod.testing import assert_tools_keep_arguments

from .servers import MCP_FRAMEWORK

pytestmark = pytest.mark.sdk


def failure(server: Any) -> str:
    with pytest.raises(AssertionError) as raised:
        assert_tools_keep_arguments(server)
    return str(raised.value)


def test_failure_lists_tool_parameter_sent_and_received(notes):
    message = failure(notes.mcp)

    lines = message.splitlines()
    assert lines[0] == (
        f"Tool arguments that do not arrive as sent (probed 4 tools of 'notes', {MCP_FRAMEWORK}):"
    )
    assert "  search(query): sent 'null', received None" in lines
    assert (
        "  set_body(value): sent '[1]', rejected: Input should be a valid string [string_type] "
        "(the validator got [1])"
    ) in lines
    assert "  annotate(comment): sent '{\"a\": 1}', rejected: " in message
    assert len([line for line in lines if line.startswith("  ")]) == 12
    assert "guard the server" in message
    assert "AcceptWholeFloat" not in message
    assert notes.CALLS == []


def test_failure_for_a_strict_integer_suggests_accept_whole_float(notes):
    message = failure(notes.counters)

    assert "  goto(line): sent 5.0, rejected: Input should be a valid integer [int_type]" in message
    assert "AcceptWholeFloat" in message
    assert "guard the server" not in message


def test_guarded_server_passes(notes):
    assert_tools_keep_arguments(guard(notes.mcp))


def test_fastmcp_server_passes(notes_fastmcp):
    assert_tools_keep_arguments(notes_fastmcp.mcp)
    assert notes_fastmcp.CALLS == []


@pytest.mark.anyio
async def test_fastmcp_server_from_an_async_test(notes_fastmcp):
    # fastmcp lists its tools asynchronously; the caller's event loop is busy running this test.
    assert_tools_keep_arguments(notes_fastmcp.mcp)


def test_tools_it_cannot_probe_are_warned_about(notes_fastmcp):
    from fastmcp.tools import Tool

    class Raw(Tool):
        async def run(self, arguments):
            raise RuntimeError("a probe ran a raw tool")

    server = sys.modules["fastmcp"].FastMCP("raw")
    server.add_tool(Raw(name="raw", parameters={"type": "object", "properties": {}}))

    with pytest.warns(UserWarning, match=r"tool 'raw' not probed: a Raw, not a FunctionTool"):
        assert_tools_keep_arguments(server)


def test_a_server_without_tools_fails_the_assertion(notes):
    with pytest.raises(AssertionError, match=r"probed nothing: 'empty' has no tools registered"):
        assert_tools_keep_arguments(type(notes.mcp)("empty"))
