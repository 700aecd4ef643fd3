"""`AcceptWholeFloat`: an integer parameter takes `5.0` as `5` on every pydantic-based framework."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any

import fastmcp
import pytest
import sdk
from pydantic import Field, StrictInt, TypeAdapter, ValidationError

from mcp_codemod.runtime import AcceptWholeFloat

from .clients import fastmcp_strict_client, mcp_sdk_client

pytestmark = [pytest.mark.anyio, pytest.mark.sdk]


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


def strict_int_or_text(x: Annotated[StrictInt | str, AcceptWholeFloat]) -> str:
    return repr(x)


async def test_integer_sent_as_text_arrives_as_int(framework: Callable) -> None:
    # Claude Code sends numbers as their text (anthropics/claude-code#32524).
    if framework is fastmcp_strict_client and fastmcp.__version__.startswith("2."):
        pytest.skip("fastmcp 2.x's strict mode refuses the text in its schema check, first")
    async with framework(MARKED_TOOLS) as client:
        for tool in MARKED_TOOLS:
            assert await client.call(tool.__name__, {"x": "5"}) == "5", tool
            assert await client.call(tool.__name__, {"x": "-12"}) == "-12", tool
            assert (await client.call(tool.__name__, {"x": "5.5"})).startswith("error:"), tool
            assert (await client.call(tool.__name__, {"x": "five"})).startswith("error:"), tool


async def test_strict_int_without_the_marker_rejects_the_text(framework: Callable) -> None:
    async with framework([unmarked_strict_int]) as client:
        assert (await client.call("unmarked_strict_int", {"x": "5"})).startswith("error:")


async def test_parameter_that_takes_text_keeps_the_text(framework: Callable) -> None:
    async with framework([strict_int_or_text]) as client:
        assert await client.call("strict_int_or_text", {"x": "5"}) == "'5'"
        assert await client.call("strict_int_or_text", {"x": 5.0}) == "5"
