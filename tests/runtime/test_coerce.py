"""`coerce_integer_arguments` and `IntegerCoercingSession`: the client turns `5.0` back into `5`."""

from __future__ import annotations

import copy
from typing import Any

import fastmcp
import pytest
import sdk
from pydantic import StrictInt

from mcp_codemod.runtime import IntegerCoercingSession, coerce_integer_arguments

pytestmark = pytest.mark.sdk


def schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


INTEGER = {"type": "integer"}


def coerced_value(value: Any, property_schema: Any) -> Any:
    return coerce_integer_arguments({"x": value}, schema(x=property_schema))["x"]


def test_whole_float_under_integer_becomes_int() -> None:
    result = coerced_value(5.0, INTEGER)
    assert result == 5 and type(result) is int


def test_non_whole_float_under_integer_is_left_alone() -> None:
    assert coerced_value(5.5, INTEGER) == 5.5


def test_whole_float_under_number_stays_float() -> None:
    assert type(coerced_value(5.0, {"type": "number"})) is float


def test_string_is_left_alone() -> None:
    assert coerced_value("5.0", INTEGER) == "5.0"
    assert coerced_value("5", {"type": "string"}) == "5"


def test_booleans_are_never_touched() -> None:
    assert coerced_value(True, INTEGER) is True


def test_schema_without_properties_is_a_no_op() -> None:
    assert coerce_integer_arguments({"x": 5.0}, {"type": "object"}) == {"x": 5.0}


def test_missing_schema_is_a_no_op() -> None:
    assert type(coerce_integer_arguments({"x": 5.0}, None)["x"]) is float


def test_properties_without_a_schema_are_left_alone() -> None:
    assert type(coerce_integer_arguments({"y": 5.0}, schema(x=INTEGER))["y"]) is float


def test_nested_object() -> None:
    point = {"type": "object", "properties": {"x": INTEGER, "label": {"type": "number"}}}
    assert coerced_value({"x": 1.0, "label": 2.0}, point) == {"x": 1, "label": 2.0}
    assert type(coerced_value({"x": 1.0}, point)["x"]) is int


def test_additional_properties() -> None:
    counts = {"type": "object", "additionalProperties": INTEGER}
    assert type(coerced_value({"a": 3.0}, counts)["a"]) is int


def test_array_items() -> None:
    lines = {"type": "array", "items": INTEGER}
    assert [type(v) for v in coerced_value([1.0, 2.5, 3], lines)] == [int, float, int]


def test_ref_into_defs() -> None:
    input_schema = {
        "type": "object",
        "properties": {"at": {"$ref": "#/$defs/Point"}},
        "$defs": {"Point": {"type": "object", "properties": {"line": INTEGER}}},
    }
    result = coerce_integer_arguments({"at": {"line": 7.0}}, input_schema)
    assert type(result["at"]["line"]) is int


def test_recursive_ref_follows_the_value_and_ref_cycles_stop() -> None:
    input_schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}, "loop": {"$ref": "#/$defs/A"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "size": INTEGER,
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
            },
            "A": {"$ref": "#/$defs/B"},
            "B": {"$ref": "#/$defs/A"},
        },
    }
    tree = {"size": 1.0, "children": [{"size": 2.0, "children": []}]}
    result = coerce_integer_arguments({"tree": tree, "loop": 3.0}, input_schema)
    assert type(result["tree"]["children"][0]["size"]) is int
    assert type(result["loop"]) is float


def test_any_of_and_one_of_with_a_single_numeric_branch_that_is_integer() -> None:
    for key in ("anyOf", "oneOf"):
        optional_int = {key: [INTEGER, {"type": "null"}]}
        int_or_text = {key: [{"type": "string"}, INTEGER]}
        assert type(coerced_value(5.0, optional_int)) is int, key
        assert type(coerced_value(5.0, int_or_text)) is int, key


def test_any_of_with_a_number_branch_is_left_alone() -> None:
    assert type(coerced_value(5.0, {"anyOf": [INTEGER, {"type": "number"}]})) is float
    assert type(coerced_value(5.0, {"anyOf": [INTEGER, {}]})) is float


def test_any_of_leads_into_the_only_object_branch() -> None:
    optional_point = {"anyOf": [{"type": "object", "properties": {"x": INTEGER}}, {"type": "null"}]}
    assert type(coerced_value({"x": 1.0}, optional_point)["x"]) is int


def test_type_list() -> None:
    assert type(coerced_value(5.0, {"type": ["integer", "null"]})) is int
    assert type(coerced_value(5.0, {"type": ["integer", "number"]})) is float


def test_input_is_not_mutated_and_a_new_dict_is_returned() -> None:
    arguments = {"x": 5.0, "nested": {"x": 6.0}, "items": [7.0]}
    before = copy.deepcopy(arguments)
    input_schema = schema(
        x=INTEGER,
        nested=schema(x=INTEGER),
        items={"type": "array", "items": INTEGER},
    )
    result = coerce_integer_arguments(arguments, input_schema)
    assert result == {"x": 5, "nested": {"x": 6}, "items": [7]}
    assert arguments == before and type(arguments["x"]) is float
    assert coerce_integer_arguments(arguments, None) is not arguments


def goto(line: StrictInt) -> str:
    return repr(line)


@pytest.mark.anyio
async def test_session_wrapper_coerces_calls_to_a_strict_mcp_server() -> None:
    server = sdk.PlainServer("test")
    server.tool()(goto)
    async with sdk.connect(server) as client:
        assert (await sdk.call(client, "goto", {"line": 5.0})).startswith("error:")
        coercing = IntegerCoercingSession(client)
        assert await sdk.call(coercing, "goto", {"line": 5.0}) == "5"
        # Tools added after the schemas were cached are picked up by one reload.
        server.tool(name="goto_later")(goto)
        assert await sdk.call(coercing, "goto_later", {"line": 6.0}) == "6"
        # Everything else is the wrapped session's.
        assert len((await coercing.list_tools()).tools) == 2


@pytest.mark.anyio
async def test_session_wrapper_coerces_calls_through_a_fastmcp_client() -> None:
    server = fastmcp.FastMCP("test", strict_input_validation=True)
    server.tool(goto)
    async with fastmcp.Client(server) as client:
        result = await IntegerCoercingSession(client).call_tool("goto", {"line": 5.0})
        assert result.content[0].text == "5"


class PagedSession:
    """Two pages of tools, the way a paginating server lists them."""

    class Tool:
        def __init__(self, name: str) -> None:
            self.name = name
            self.inputSchema = schema(line=INTEGER)

    class Page:
        def __init__(self, tools: list[Any], next_cursor: str | None) -> None:
            self.tools = tools
            self.nextCursor = next_cursor

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def list_tools(self, cursor: str | None = None) -> Any:
        if cursor is None:
            return self.Page([self.Tool("first")], next_cursor="page-2")
        return self.Page([self.Tool("second")], next_cursor=None)

    async def call_tool(self, name: str, arguments: Any = None) -> None:
        self.sent.append((name, arguments))


@pytest.mark.anyio
async def test_session_wrapper_reads_every_page_of_tools() -> None:
    session = PagedSession()
    await IntegerCoercingSession(session).call_tool("second", {"line": 5.0})
    assert session.sent == [("second", {"line": 5})]
    assert type(session.sent[0][1]["line"]) is int
