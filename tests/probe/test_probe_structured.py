"""`probe_server` on structured parameters: arrays without `items` in the input schema, and
values sent as JSON text, on the installed mcp SDK and standalone fastmcp."""

from __future__ import annotations

import shutil
import sys
from typing import Annotated, Any

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from mcp_codemod.cli import main
from mcp_codemod.probe.results import JSON_TEXT
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import array_without_items
from mcp_codemod.runtime import ArrayItemsSchema, DecodeJsonText
from mcp_codemod.testing import assert_tools_keep_arguments

from .servers import FASTMCP_MAJOR, FIXTURES, load

pytestmark = pytest.mark.sdk


class Region(BaseModel):
    corner: tuple[int, int]
    tags: list[str] = []


def mcp_server(notes: Any) -> Any:
    return type(notes.mcp)("shapes")


def fastmcp_server(strict: bool = False) -> Any:
    return sys.modules["fastmcp"].FastMCP("shapes", strict_input_validation=strict)


def register(server: Any, fn: Any) -> None:
    # mcp's decorator factory takes options; fastmcp's decorator also takes the function.
    server.tool()(fn)


def tuple_tools(server: Any, *, marked: bool) -> Any:
    if marked:

        def move(
            loc: Annotated[tuple[int, int], ArrayItemsSchema],
            region: Annotated[Region, ArrayItemsSchema],
            steps: list[int] | None = None,
        ) -> str:
            raise RuntimeError("a probe ran the body of move")

    else:

        def move(loc: tuple[int, int], region: Region, steps: list[int] | None = None) -> str:
            raise RuntimeError("a probe ran the body of move")

    register(server, move)
    return server


def arrays(report: Any) -> set[tuple[str, str, str]]:
    return {(a.tool, a.parameter, a.path) for a in report.found_by(array_without_items.RULE)}


def test_mcp_sdk_arrays_without_items_are_reported_where_they_are(notes):
    report = probe_server(tuple_tools(mcp_server(notes), marked=False))

    assert arrays(report) == {
        ("move", "loc", "/properties/loc"),
        # The model's definition, reached through the parameter's $ref.
        ("move", "region", "/$defs/Region/properties/corner"),
    }
    assert report.failed


def test_fastmcp_arrays_without_items_are_reported_where_they_are(notes_fastmcp):
    report = probe_server(tuple_tools(fastmcp_server(), marked=False))

    # fastmcp inlines the model's definition.
    assert {(tool, parameter) for tool, parameter, _ in arrays(report)} == {
        ("move", "loc"),
        ("move", "region"),
    }
    assert ("move", "loc", "/properties/loc") in arrays(report)


def test_array_items_schema_marker_clears_them(notes, notes_fastmcp):
    for server in (mcp_server(notes), fastmcp_server()):
        report = probe_server(tuple_tools(server, marked=True))
        assert report.found_by(array_without_items.RULE) == (), server


def test_helper_fails_on_an_array_without_items(notes):
    server = tuple_tools(mcp_server(notes), marked=False)

    with pytest.raises(AssertionError) as failure:
        assert_tools_keep_arguments(server)

    message = str(failure.value)
    assert "  move(loc): /properties/loc" in message
    assert "Annotated[..., mcp_codemod.runtime.ArrayItemsSchema]" in message
    assert_tools_keep_arguments(tuple_tools(mcp_server(notes), marked=True))


def structured_tools(server: Any, *, marked: bool) -> Any:
    if marked:

        def place(
            steps: Annotated[list[int] | None, DecodeJsonText] = None,
            counts: Annotated[dict[str, int] | None, DecodeJsonText] = None,
            region: Annotated[Region | None, DecodeJsonText] = None,
            text: str | None = None,
        ) -> str:
            raise RuntimeError("a probe ran the body of place")

    else:

        def place(
            steps: list[int] | None = None,
            counts: dict[str, int] | None = None,
            region: Region | None = None,
            text: str | None = None,
        ) -> str:
            raise RuntimeError("a probe ran the body of place")

    register(server, place)
    return server


JSON_TEXT_SENT = {
    ("place", "steps", "[5]"),
    ("place", "counts", '{"a": 5}'),
    ("place", "region", '{"corner": [5, 5]}'),
}


def json_text(report: Any) -> set[tuple[str, str, Any]]:
    return {(p.tool, p.parameter, p.sent) for p in report.problems if p.kind == JSON_TEXT}


def test_mcp_sdk_decodes_json_text_itself(notes):
    # The SDK's pre-parse decodes text for parameters that cannot take a string.
    assert json_text(probe_server(structured_tools(mcp_server(notes), marked=False))) == set()


def test_fastmcp_rejects_json_text_without_the_marker(notes_fastmcp):
    report = probe_server(structured_tools(fastmcp_server(), marked=False))

    assert json_text(report) == JSON_TEXT_SENT
    steps = next(p for p in report.problems if p.parameter == "steps")
    assert (steps.outcome, steps.error) == ("rejected", "Input should be a valid list [list_type]")


def test_decode_json_text_marker_makes_fastmcp_pass(notes_fastmcp):
    report = probe_server(structured_tools(fastmcp_server(), marked=True))

    assert report.problems == ()


def test_fastmcp_strict_mode_and_the_marker(notes_fastmcp):
    report = probe_server(structured_tools(fastmcp_server(strict=True), marked=True))

    if FASTMCP_MAJOR >= 3:
        # Strict pydantic: the marker parses the text as JSON, where an array is a valid tuple.
        assert report.problems == ()
    else:
        # 2.x checks the advertised schema before any validator: text is not an array.
        assert json_text(report) == JSON_TEXT_SENT
        steps = next(p for p in report.problems if p.parameter == "steps")
        assert steps.error == (
            "Input validation error: '[5]' is not valid under any of the given schemas"
        )


def test_fastmcp_server_passes_after_fix_write_of_mcp005_and_mcp006(notes_fastmcp, tmp_path):
    source = FIXTURES / "shapes_fastmcp.py"
    before = probe_server(load(source).mcp)
    assert {(a.tool, a.parameter) for a in before.found_by(array_without_items.RULE)} == {
        ("move", "loc"),
        ("move", "path"),
    }
    assert json_text(before) == {
        ("move", "loc", "[5, 5]"),
        ("move", "path", "[[5, 5]]"),
        ("move", "steps", "[5]"),
        ("move", "labels", '{"a": "a"}'),
    }

    copy = tmp_path / source.name
    shutil.copy(source, copy)
    result = CliRunner().invoke(main, ["fix", "--write", "--select", "MCP005,MCP006", str(copy)])
    assert result.exit_code == 0, result.output
    fixed = load(copy)

    after = probe_server(fixed.mcp)
    assert (after.problems, after.found_by(array_without_items.RULE)) == ((), ())
    assert fixed.CALLS == []
