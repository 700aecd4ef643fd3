"""`probe --legacy-clients`: what clients no longer current drop in the live schemas, the
counterpart of the MCP2 rules: a `$ref` alone where Gemini CLI up to 0.7.0 looks for a type. On
each of their cases, served by the installed SDK, the probe finds exactly what `check` reports;
the default probe and the pytest helper pass such a server."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from click.testing import CliRunner
from pydantic import BaseModel, Field

from mcp_codemod.cli import main
from mcp_codemod.engine.checker import check_files
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import RULES, legacy_gemini_ref, select_rules, untyped_schema_node
from mcp_codemod.runtime import TypedSchema
from mcp_codemod.testing import assert_tools_keep_arguments

from .servers import for_installed_sdk, load_server

pytestmark = pytest.mark.sdk

CASES = [
    pytest.param(rule, index, case.source, id=f"{rule.code}-{index}")
    for rule in RULES
    if rule.code.startswith("MCP2")
    for index, case in enumerate(rule.cases)
]


@pytest.mark.parametrize(("rule", "index", "source"), CASES)
def test_the_probe_finds_what_check_reports_on_each_case(tmp_path, rule, index, source):
    path, server = load_server(source, tmp_path)
    probed = {
        (ref.tool, ref.parameter) for ref in probe_server(server).found_by(legacy_gemini_ref.RULE)
    }
    checked = {
        (f.tool, f.parameter)
        for f in check_files([path], select_rules(["MCP2"], []), jobs=1).findings
        if f.code == rule.code
    }
    assert probed == checked


class Point(BaseModel):
    x: int


def model_tools(server: Any, *, marked: bool) -> Any:
    if marked:

        def route(
            start: Annotated[Point, TypedSchema],
            stops: Annotated[list[Point] | None, TypedSchema] = None,
            end: Annotated[Point, Field(description="Where to stop")] = Point(x=0),  # noqa: B008
        ) -> str:
            raise RuntimeError("a probe ran the body of route")

    else:

        def route(
            start: Point,
            stops: list[Point] | None = None,
            end: Annotated[Point, Field(description="Where to stop")] = Point(x=0),  # noqa: B008
        ) -> str:
            raise RuntimeError("a probe ran the body of route")

    server.tool()(route)
    return server


def test_a_models_ref_alone_is_reported_where_it_is_and_is_no_node_without_type(
    notes, notes_fastmcp
):
    report = probe_server(model_tools(type(notes.mcp)("maps"), marked=False))
    # `end` has a description beside its `$ref`: MCP201 leaves it, and so does the probe.
    assert {(r.tool, r.parameter, r.path) for r in report.found_by(legacy_gemini_ref.RULE)} == {
        ("route", "start", "/properties/start"),
        ("route", "stops", "/properties/stops/anyOf/0/items"),
    }
    assert report.found_by(untyped_schema_node.RULE) == () and not report.failed
    assert (
        probe_server(model_tools(type(notes.mcp)("maps"), marked=True)).found_by(
            legacy_gemini_ref.RULE
        )
        == ()
    )
    # fastmcp inlines the model: an object with its properties.
    assert (
        probe_server(model_tools(type(notes_fastmcp.mcp)("maps"), marked=False)).found_by(
            legacy_gemini_ref.RULE
        )
        == ()
    )


def test_the_helper_passes_a_models_ref_alone(notes):
    assert_tools_keep_arguments(model_tools(type(notes.mcp)("maps"), marked=False))


def test_the_command_reports_them_only_when_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "maps.py").write_text(
        for_installed_sdk(
            """\
from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel

mcp = FastMCP("maps")


class Point(BaseModel):
    x: int


@mcp.tool()
def route(start: Point) -> str:
    return ""
"""
        ),
        encoding="utf-8",
    )
    plain = CliRunner().invoke(main, ["probe", "maps.py:mcp"])
    assert plain.exit_code == 0, plain.output
    assert plain.output.startswith("Every argument arrives as sent")
    asked = CliRunner().invoke(main, ["probe", "--legacy-clients", "maps.py:mcp"])
    assert asked.exit_code == 1, asked.output
    header, row, summary = asked.output.splitlines()
    assert header == "TOOL   PARAMETER  $REF ALONE (Gemini CLI up to 0.7.0 drops the tool)"
    assert row == "route  start      /properties/start"
    assert summary.startswith("1 lone `$ref` in 1 tool (probed 1 tool of 'maps'")
    as_json = CliRunner().invoke(
        main, ["probe", "--legacy-clients", "--output-format", "json", "maps.py:mcp"]
    )
    (entry,) = json.loads(as_json.output)
    assert entry["kind"] == "lone-ref" and entry["outcome"] == "schema"
    assert entry["parameter"] == "start" and entry["schema_path"] == "/properties/start"
