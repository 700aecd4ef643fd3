"""`DecodeJsonText`: a structured parameter takes its value sent as JSON text, through the real
tools/call path of mcp 1.x / 2.x and standalone fastmcp; text parameters and the schema are left
alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import fastmcp
import pytest
import sdk
from pydantic import BaseModel, TypeAdapter

from mcp_codemod.runtime import DecodeJsonText

from .clients import fastmcp_client, fastmcp_strict_client, mcp_sdk_client

pytestmark = [pytest.mark.anyio, pytest.mark.sdk]

FASTMCP_MAJOR = int(fastmcp.__version__.split(".")[0])


class Region(BaseModel):
    corner: list[int]
    label: str = ""


def numbers(loc: Annotated[list[int] | None, DecodeJsonText] = None) -> str:
    return repr(loc)


def counts(counts: Annotated[dict[str, int], DecodeJsonText]) -> str:
    return repr(counts)


def region(region: Annotated[Region, DecodeJsonText]) -> str:
    return repr(region)


def plain_numbers(loc: list[int] | None = None) -> str:
    return repr(loc)


def text_or_numbers(value: Annotated[str | list[int], DecodeJsonText]) -> str:
    return repr(value)


MARKED = [numbers, counts, region]


@pytest.fixture(
    params=[
        pytest.param(mcp_sdk_client, id=f"mcp {sdk.MCP_MAJOR}.x"),
        pytest.param(fastmcp_client, id=f"fastmcp {fastmcp.__version__}"),
        pytest.param(fastmcp_strict_client, id=f"fastmcp {fastmcp.__version__} strict"),
    ]
)
def framework(request: pytest.FixtureRequest) -> Callable:
    return request.param


def checks_schema_first(framework: Callable) -> bool:
    # fastmcp 2.x's strict mode runs a JSON-schema check in the wire handler, before any
    # validator: a string for an array is refused there (measured on fastmcp 2.14.7).
    return framework is fastmcp_strict_client and FASTMCP_MAJOR == 2


async def test_json_text_of_an_array_or_object_arrives_decoded(framework: Callable) -> None:
    async with framework(MARKED) as client:
        results = [
            await client.call("numbers", {"loc": "[1271, 2106]"}),
            await client.call("counts", {"counts": '{"a": 1}'}),
            await client.call("region", {"region": '{"corner": [1, 2], "label": "x"}'}),
        ]
    if checks_schema_first(framework):
        assert all(result.startswith("error:") for result in results)
    else:
        assert results == [
            "[1271, 2106]",
            "{'a': 1}",
            "Region(corner=[1, 2], label='x')",
        ]


async def test_native_values_arrive_as_before(framework: Callable) -> None:
    async with framework(MARKED) as client:
        assert await client.call("numbers", {"loc": [1271, 2106]}) == "[1271, 2106]"
        assert await client.call("numbers", {}) == "None"
        assert await client.call("counts", {"counts": {"a": 1}}) == "{'a': 1}"
        assert await client.call("region", {"region": {"corner": [1]}}) == (
            "Region(corner=[1], label='')"
        )


async def test_text_that_is_not_an_array_or_object_is_validated_as_sent(
    framework: Callable,
) -> None:
    async with framework(MARKED) as client:
        for text in ["1271", "hello", '"[1]"', "[1, 2"]:
            result = await client.call("numbers", {"loc": text})
            assert result.startswith("error:"), text
        # The decoded value is validated like any other: the elements must be integers.
        assert (await client.call("numbers", {"loc": '["a"]'})).startswith("error:")


async def test_json_null_text_arrives_as_none(framework: Callable) -> None:
    # Some clients send JSON null as the text "null" (docs/runtime.md, "What clients send").
    async with framework(MARKED) as client:
        result = await client.call("numbers", {"loc": "null"})
    if checks_schema_first(framework):
        assert result.startswith("error:")
    else:
        assert result == "None"


async def test_without_the_marker_fastmcp_rejects_json_text() -> None:
    async with fastmcp_client([plain_numbers]) as client:
        assert (await client.call("plain_numbers", {"loc": "[1271, 2106]"})).startswith("error:")


@pytest.mark.parametrize(
    "framework",
    [
        pytest.param(lambda tools: mcp_sdk_client(tools, guarded=True), id="guarded mcp"),
        pytest.param(fastmcp_client, id="fastmcp"),
    ],
)
async def test_parameter_that_admits_a_string_keeps_the_text(framework: Callable) -> None:
    async with framework([text_or_numbers]) as client:
        assert await client.call("text_or_numbers", {"value": "[1, 2]"}) == "'[1, 2]'"
        assert await client.call("text_or_numbers", {"value": [1, 2]}) == "[1, 2]"


async def test_parameter_schema_is_that_of_the_plain_annotation(framework: Callable) -> None:
    def with_marker(
        loc: Annotated[list[int] | None, DecodeJsonText] = None,
        region: Annotated[Region | None, DecodeJsonText] = None,
    ) -> str:
        return ""

    def without_marker(loc: list[int] | None = None, region: Region | None = None) -> str:
        return ""

    async with framework([with_marker, without_marker]) as client:
        schemas = await client.input_schemas()
    marked, plain = schemas["with_marker"], schemas["without_marker"]
    assert marked.get("$defs") == plain.get("$defs")
    assert marked["properties"]["loc"] == plain["properties"]["loc"]
    # pydantic titles a property unless its schema is a model's; it cannot see the model
    # through the marker (docs/runtime.md). fastmcp drops property titles altogether.
    region = dict(marked["properties"]["region"])
    if framework is mcp_sdk_client:
        assert region.pop("title") == "Region"
    assert region == plain["properties"]["region"]


async def test_strict_validation_keeps_native_tuples_and_takes_their_text() -> None:
    def corner(at: Annotated[tuple[int, int], DecodeJsonText]) -> str:
        return repr(at)

    async with fastmcp_strict_client([corner]) as client:
        native = await client.call("corner", {"at": [1, 2]})
        text = await client.call("corner", {"at": "[1, 2]"})
    assert native == "(1, 2)"
    if FASTMCP_MAJOR == 2:
        assert text.startswith("error:")  # the JSON-schema check, before any validator
    else:
        assert text == "(1, 2)"


def test_marker_on_a_text_annotation_changes_nothing() -> None:
    adapter = TypeAdapter(Annotated[str | list[int], DecodeJsonText])
    plain = TypeAdapter(str | list[int])
    assert adapter.json_schema() == plain.json_schema()
    assert adapter.validate_python("[1]") == "[1]"
    assert adapter.validate_python([1]) == [1]


def path_or_none(value: Annotated[Path | None, DecodeJsonText] = None) -> str:
    return repr(value)


async def test_text_the_parameter_takes_as_it_is_is_not_decoded(framework: Callable) -> None:
    # A `Path` takes "null" and '["a"]' as paths: the marker decodes only what it rejects.
    async with framework([path_or_none]) as client:
        null = await client.call("path_or_none", {"value": "null"})
        array = await client.call("path_or_none", {"value": '["a"]'})
    if framework is mcp_sdk_client:
        assert null == "None"  # the SDK's own pre-parse, before any validator
        assert array.startswith("error:")
    elif not checks_schema_first(framework):
        assert (null, array) == (repr(Path("null")), repr(Path('["a"]')))
