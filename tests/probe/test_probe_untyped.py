"""`probe_server` on schema nodes without `type` (`Any`, `object`, a bare `list`), the live
counterpart of MCP007, on the installed mcp SDK and standalone fastmcp."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import pytest

from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import untyped_schema_node
from mcp_codemod.runtime import TypedSchema
from mcp_codemod.testing import assert_tools_keep_arguments

pytestmark = pytest.mark.sdk


def untyped_tools(server: Any, *, marked: bool) -> Any:
    if marked:

        def put(
            key: str,
            value: Annotated[Any, TypedSchema],
            rows: Annotated[list | None, TypedSchema] = None,
        ) -> str:
            raise RuntimeError("a probe ran the body of put")

    else:

        def put(key: str, value: Any, rows: list | None = None) -> str:
            raise RuntimeError("a probe ran the body of put")

    server.tool()(put)
    return server


def servers(notes: Any, notes_fastmcp: Any) -> list[Any]:
    return [type(notes.mcp)("store"), sys.modules["fastmcp"].FastMCP("store")]


def test_nodes_without_type_are_reported_where_they_are(notes, notes_fastmcp):
    for server in servers(notes, notes_fastmcp):
        report = probe_server(untyped_tools(server, marked=False))
        assert {
            (n.tool, n.parameter, n.path) for n in report.found_by(untyped_schema_node.RULE)
        } == {
            ("put", "value", "/properties/value"),
            ("put", "rows", "/properties/rows/anyOf/0/items"),
        }, server
        assert report.failed


def test_typed_schema_marker_clears_them(notes, notes_fastmcp):
    for server in servers(notes, notes_fastmcp):
        assert (
            probe_server(untyped_tools(server, marked=True)).found_by(untyped_schema_node.RULE)
            == ()
        ), server


def test_helper_fails_on_a_node_without_type(notes):
    with pytest.raises(AssertionError) as failure:
        assert_tools_keep_arguments(untyped_tools(type(notes.mcp)("store"), marked=False))
    assert "  put(value): /properties/value" in str(failure.value)
    assert "Annotated[..., mcp_codemod.runtime.TypedSchema]" in str(failure.value)
