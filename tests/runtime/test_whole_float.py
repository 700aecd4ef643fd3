"""`AcceptWholeFloat`: an integer parameter takes `5.0` as `5` on every pydantic-based framework."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

import fastmcp
import pytest
from pydantic import Field, StrictInt, TypeAdapter, ValidationError

from mcp_codemod.runtime import AcceptWholeFloat

from . import sdk

pytestmark = pytest.mark.anyio


def strict_int(x: Annotated[StrictInt, AcceptWholeFloat]) -> str:
    return repr(x)


def field_strict_int(x: Annotated[int, Field(strict=True), AcceptWholeFloat]) -> str:
    return repr(x)


def lax_int(x: Annotated[int, AcceptWholeFloat]) -> str:
    return repr(x)


def optional_int(x: Annotated[int | None, AcceptWholeFloat] = None) -> str:
    return repr(x)


def unmarked_strict_int(x: StrictInt) -> str:
    return repr(x)


MARKED_TOOLS = [strict_int, field_strict_int, lax_int, optional_int]


class Connected:
    """A connected in-process client: `call` returns the tool's text or `error: <message>`."""

    def __init__(self, call: Callable, list_tools: Callable) -> None:
        self.call = call
        self._list_tools = list_tools

    async def parameter_schemas(self) -> dict[str, str]:
        """Each tool's `properties` and `required`, as JSON text."""
        return {
            tool.name: json.dumps([schema["properties"], schema.get("required")])
            for tool in await self._list_tools()
            for schema in [sdk.schema_of(tool)]
        }


@asynccontextmanager
async def mcp_sdk_client(tools: list[Callable]) -> AsyncIterator[Connected]:
    server = sdk.PlainServer("test")
    for fn in tools:
        server.tool()(fn)
    async with sdk.connect(server) as client:

        async def list_tools() -> list[Any]:
            return (await client.list_tools()).tools

        yield Connected(lambda tool, arguments: sdk.call(client, tool, arguments), list_tools)


@asynccontextmanager
async def fastmcp_strict_client(tools: list[Callable]) -> AsyncIterator[Connected]:
    server = fastmcp.FastMCP("test", strict_input_validation=True)
    for fn in tools:
        server.tool(fn)
    async with fastmcp.Client(server) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(tool, arguments, raise_on_error=False)
            text = result.content[0].text
            return f"error: {text}" if result.is_error else text

        yield Connected(call, client.list_tools)


@pytest.fixture(
    params=[
        pytest.param(mcp_sdk_client, id=f"mcp {sdk.MCP_MAJOR}.x"),
        pytest.param(fastmcp_strict_client, id=f"fastmcp {fastmcp.__version__} strict"),
    ]
)
def framework(request: pytest.FixtureRequest) -> Callable:
    return request.param


async def test_whole_float_arrives_as_int(framework: Callable) -> None:
    async with framework(MARKED_TOOLS) as client:
        for tool in MARKED_TOOLS:
            assert await client.call(tool.__name__, {"x": 5.0}) == "5", tool
            assert await client.call(tool.__name__, {"x": 5}) == "5", tool


async def test_strict_int_without_the_marker_rejects_a_whole_float(framework: Callable) -> None:
    async with framework([unmarked_strict_int]) as client:
        assert (await client.call("unmarked_strict_int", {"x": 5.0})).startswith("error:")


async def test_fractional_float_is_rejected_naming_the_value(framework: Callable) -> None:
    async with framework(MARKED_TOOLS) as client:
        for tool in MARKED_TOOLS:
            result = await client.call(tool.__name__, {"x": 5.5})
            assert result.startswith("error:") and "5.5" in result, tool


async def test_boolean_is_rejected_naming_the_value(framework: Callable) -> None:
    async with framework(MARKED_TOOLS) as client:
        for tool in MARKED_TOOLS:
            result = await client.call(tool.__name__, {"x": True})
            assert result.startswith("error:") and "True" in result, tool


async def test_optional_int_still_takes_none(framework: Callable) -> None:
    async with framework([optional_int]) as client:
        assert await client.call("optional_int", {"x": None}) == "None"
        assert await client.call("optional_int", {}) == "None"


async def test_parameter_schema_is_that_of_the_plain_annotation(framework: Callable) -> None:
    def with_marker(
        x: Annotated[StrictInt, AcceptWholeFloat],
        y: Annotated[int | None, Field(ge=0), AcceptWholeFloat] = None,
    ) -> str:
        return ""

    def without_marker(x: StrictInt, y: Annotated[int | None, Field(ge=0)] = None) -> str:
        return ""

    async with framework([with_marker, without_marker]) as client:
        schemas = await client.parameter_schemas()
    assert schemas["with_marker"] == schemas["without_marker"]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("annotation", [StrictInt, Annotated[int, Field(strict=True)], int])
def test_nan_and_infinity_are_rejected_naming_the_value(annotation: Any, strict: bool) -> None:
    # JSON has no nan/inf (they travel as null), so this is checked below the wire.
    adapter = TypeAdapter(Annotated[annotation, AcceptWholeFloat])
    for value, shown in [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")]:
        with pytest.raises(ValidationError, match=f"whole number, got {shown}"):
            adapter.validate_python(value, strict=strict)
    assert adapter.validate_python(5.0, strict=strict) == 5
    assert adapter.validate_json("5.0", strict=strict) == 5
