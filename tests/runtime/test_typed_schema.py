"""`TypedSchema` (the fix of MCP007 and MCP201): every untyped node of a parameter's listed
schema gets the list of every JSON type, a model's lone `$ref` its definition's type, and nothing
else changes: not the rest of the schema, not what any argument arrives as (the probe's record),
on the installed mcp SDK and standalone fastmcp."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Annotated, Any

import fastmcp
import pytest
import sdk
from pydantic import BaseModel

from mcp_codemod.probe.server_probe import ARRIVAL_PROBES, probe_server
from mcp_codemod.runtime import TypedSchema
from mcp_codemod.runtime.guards import JSON_TYPES

pytestmark = pytest.mark.sdk


def servers(marked: bool) -> list:
    if marked:

        def put(
            value: Annotated[Any, TypedSchema],
            rows: Annotated[list[Any] | None, TypedSchema] = None,
            meta: Annotated[dict[str, Any], TypedSchema] = {},  # noqa: B006 - never mutated
        ) -> str:
            return repr((value, rows, meta))

    else:

        def put(value: Any, rows: list[Any] | None = None, meta: dict[str, Any] = {}) -> str:  # noqa: B006
            return repr((value, rows, meta))

    made = [sdk.PlainServer("store"), fastmcp.FastMCP("store")]
    for server in made:
        server.tool()(put)
    return made


def without_types(schema: Any, titles: bool) -> Any:
    """The schema less the marker's type lists (and less titles, when `titles` is False)."""
    if isinstance(schema, list):
        return [without_types(item, titles) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: without_types(value, titles)
        for key, value in schema.items()
        if not (key == "type" and value == JSON_TYPES) and (titles or key != "title")
    }


@pytest.mark.parametrize("index", [0, 1], ids=["mcp-sdk", "fastmcp"])
def test_untyped_nodes_get_every_json_type_and_the_rest_stays(index):
    before = asyncio.run(sdk.listed_input_schema(servers(marked=False)[index]))
    after = asyncio.run(sdk.listed_input_schema(servers(marked=True)[index]))
    assert after["properties"]["value"]["type"] == JSON_TYPES
    assert after["properties"]["rows"]["anyOf"][0]["items"] == {"type": JSON_TYPES}
    # A dictionary's values are left as they were: no client refuses them.
    assert after["properties"]["meta"]["additionalProperties"] is True
    # fastmcp drops a parameter's title once its node has other keywords, as for every typed
    # parameter; a title is a label, not validation.
    titles = index == 0
    assert json.dumps(without_types(after, titles)) == json.dumps(without_types(before, titles))


@pytest.mark.parametrize("index", [0, 1], ids=["mcp-sdk", "fastmcp"])
def test_every_argument_arrives_as_it_did(index):
    before = arrivals(servers(marked=False)[index])
    after = arrivals(servers(marked=True)[index])
    # The probe's JSON-text example is built from the schema (`[null]` for untyped items, `["a"]`
    # once they are typed): the values sent to both are the fixed arrival probes and more.
    common = before.keys() & after.keys()
    assert {sent for _, sent in common} >= {json.dumps(v) for v in ARRIVAL_PROBES}
    for key in common:
        assert after[key].same_outcome(before[key]), key


def arrivals(server) -> dict:
    return {(a.parameter, json.dumps(a.sent)): a for a in probe_server(server).arrivals}


class Point(BaseModel):
    x: int
    y: int = 0


def model_servers(marked: bool) -> list:
    """On the mcp SDK a model is a `$ref` to its definition (fastmcp inlines it)."""
    if marked:

        def route(
            start: Annotated[Point, TypedSchema],
            stops: Annotated[list[Point] | None, TypedSchema] = None,
        ) -> str:
            return repr((start, stops))

    else:

        def route(start: Point, stops: list[Point] | None = None) -> str:
            return repr((start, stops))

    server = sdk.PlainServer("maps")
    server.tool()(route)
    return [server]


def without_ref_types(schema: Any) -> Any:
    if isinstance(schema, list):
        return [without_ref_types(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: without_ref_types(value)
        for key, value in schema.items()
        if not (key == "type" and "$ref" in schema)
    }


def test_a_models_ref_gets_its_definitions_type_and_the_rest_stays():
    (before_server,), (after_server,) = model_servers(marked=False), model_servers(marked=True)
    before, after = (
        asyncio.run(sdk.listed_input_schema(before_server)),
        asyncio.run(sdk.listed_input_schema(after_server)),
    )
    assert before["properties"]["start"] == {"$ref": "#/$defs/Point"}
    assert after["properties"]["start"] == {"$ref": "#/$defs/Point", "type": ["object"]}
    assert after["properties"]["stops"]["anyOf"][0]["items"]["type"] == ["object"]
    assert json.dumps(without_ref_types(after)) == json.dumps(before)
    before_arrivals, after_arrivals = arrivals(before_server), arrivals(after_server)
    assert before_arrivals.keys() == after_arrivals.keys()
    for key, arrival in before_arrivals.items():
        assert after_arrivals[key].same_outcome(arrival), key


def test_fastmcp_reads_a_lone_string_as_the_description_and_a_marker_beside_it_drops_it():
    # Why MCP007 offers no marker beside it (`ToolParameter.fix_site`): the fix must not change
    # what the schema says.
    def plain(files: Annotated[list, "The files."]) -> str:
        return repr(files)

    def marked(files: Annotated[list, "The files.", TypedSchema]) -> str:
        return repr(files)

    schemas = []
    for function in (plain, marked):
        server = fastmcp.FastMCP("files")
        server.tool(name="put")(function)
        schemas.append(asyncio.run(sdk.listed_input_schema(server))["properties"]["files"])
    assert schemas[0].get("description") == "The files."
    assert "description" not in schemas[1]


FILES_TOOL = """\
from typing import Annotated

from pydantic import Field
from {module} import FastMCP

mcp = FastMCP("files")


@mcp.tool()
def put(files: {annotation}) -> str:
    return repr(files)
"""

EITHER_FRAMEWORK = """\
from typing import Annotated

try:
    from fastmcp import FastMCP
except ImportError:
    from mcp.server.fastmcp import FastMCP

mcp = FastMCP("files")


@mcp.tool()
def put(files: Annotated[list, "The files."]) -> str:
    return repr(files)
"""


@pytest.mark.parametrize(
    ("source", "fixed_annotation"),
    [
        # standalone fastmcp reads the lone string as `Field(description=...)`: spelled so, the
        # description stays beside the marker
        (
            FILES_TOOL.format(module="fastmcp", annotation='Annotated[list, "The files."]'),
            'Annotated[list, Field(description="The files."), TypedSchema]',
        ),
        (
            FILES_TOOL.format(
                module="fastmcp", annotation='Annotated[list, Field(description="The files.")]'
            ),
            'Annotated[list, Field(description="The files."), TypedSchema]',
        ),
        # the mcp SDK reads no description from a string: the marker goes beside it
        (
            FILES_TOOL.format(
                module="mcp.server.fastmcp", annotation='Annotated[list, "The files."]'
            ),
            'Annotated[list, "The files.", TypedSchema]',
        ),
        # either, chosen where it runs: a description under one would be a new one under the other
        (EITHER_FRAMEWORK, None),
    ],
)
def test_a_marker_keeps_the_description_fastmcp_reads_from_a_lone_string(
    tmp_path, source, fixed_annotation
):
    from click.testing import CliRunner

    from mcp_codemod.cli import main

    server = tmp_path / "server.py"
    server.write_text(source, encoding="utf-8")
    check = CliRunner().invoke(main, ["check", "--no-cache", "--select", "MCP007", str(server)])
    assert "MCP007" in check.output
    assert ("MCP007 [*]" in check.output) is (fixed_annotation is not None), check.output
    CliRunner().invoke(main, ["fix", "--write", "--no-cache", "--select", "MCP007", str(server)])
    fixed = server.read_text(encoding="utf-8")
    if fixed_annotation is None:
        assert fixed == source
    else:
        assert f"def put(files: {fixed_annotation}) -> str:" in fixed, fixed


def test_the_fixed_fastmcp_tool_keeps_its_description_and_takes_a_list_sent_as_text(
    tmp_path, monkeypatch
):
    # The default fix on such a parameter (MCP006's and MCP007's markers): the listed description
    # is the one before, and the list a client sends as its JSON text arrives as the list.
    import importlib

    from click.testing import CliRunner

    from mcp_codemod.cli import main

    source = FILES_TOOL.replace("from pydantic import Field\n", "").format(
        module="fastmcp", annotation='Annotated[list, "The files."]'
    )
    (tmp_path / "lone_description.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = importlib.import_module("lone_description").mcp
    CliRunner().invoke(
        main, ["fix", "--write", "--no-cache", str(tmp_path / "lone_description.py")]
    )
    del sys.modules["lone_description"]
    after = importlib.import_module("lone_description").mcp
    del sys.modules["lone_description"]

    described = [
        asyncio.run(sdk.listed_input_schema(s))["properties"]["files"] for s in (before, after)
    ]
    assert described[0]["description"] == described[1]["description"] == "The files."
    sent_as_text = {("put", "files")}
    assert {(p.tool, p.parameter) for p in probe_server(before).problems} == sent_as_text
    assert not probe_server(after).problems
