"""`ArrayItemsSchema`: every array in a parameter's listed input schema has `items`; validation
and the rest of the schema stay as they were, on mcp 1.x / 2.x and standalone fastmcp."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import fastmcp
import pytest
import sdk
from pydantic import BaseModel

from mcp_codemod.runtime import ArrayItemsSchema

from .clients import fastmcp_client, fastmcp_strict_client, mcp_sdk_client

pytestmark = [pytest.mark.anyio, pytest.mark.sdk]


class Inner(BaseModel):
    pair: tuple[int, str]


class Region(BaseModel):
    corner: tuple[int, int]
    inner: Inner | None = None


class Tree(BaseModel):
    pair: tuple[int, str]
    kids: list[Tree] = []


def marked_point(loc: Annotated[tuple[int, int], ArrayItemsSchema]) -> str:
    return repr(loc)


def plain_point(loc: tuple[int, int]) -> str:
    return repr(loc)


def marked_region(region: Annotated[Region, ArrayItemsSchema]) -> str:
    return repr(region)


def plain_region(region: Region) -> str:
    return repr(region)


def marked_optional_pair(pair: Annotated[tuple[float, str] | None, ArrayItemsSchema] = None) -> str:
    return repr(pair)


def plain_optional_pair(pair: tuple[float, str] | None = None) -> str:
    return repr(pair)


def marked_tree(tree: Annotated[Tree, ArrayItemsSchema]) -> str:
    return repr(tree)


def plain_tree(tree: Tree) -> str:
    return repr(tree)


# (marked tool, plain tool, arguments to call both with)
CASES = [
    (marked_point, plain_point, [[1, 2], [1, 2, 3], [1], ["a", 2], [1.0, 2], "[1, 2]"]),
    (
        marked_region,
        plain_region,
        [
            {"corner": [1, 2]},
            {"corner": [1, 2], "inner": {"pair": [3, "x"]}},
            {"corner": [1, 2], "inner": {"pair": ["x", 3]}},
            {"corner": [1, 2, 3]},
        ],
    ),
    (marked_optional_pair, plain_optional_pair, [[1.5, "a"], None, [1.5], ["a", "a"]]),
]
MARKED = [marked for marked, _, _ in CASES]
PLAIN = [plain for _, plain, _ in CASES]


@pytest.fixture(
    params=[
        pytest.param(mcp_sdk_client, id=f"mcp {sdk.MCP_MAJOR}.x"),
        pytest.param(fastmcp_client, id=f"fastmcp {fastmcp.__version__}"),
        pytest.param(fastmcp_strict_client, id=f"fastmcp {fastmcp.__version__} strict"),
    ]
)
def framework(request: pytest.FixtureRequest) -> Callable:
    return request.param


def arrays(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema node of type array, wherever it sits (properties, anyOf, $defs, ...)."""
    if isinstance(schema, dict):
        if schema.get("type") == "array":
            yield schema
        for value in schema.values():
            yield from arrays(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from arrays(value)


def without_prefix_items_union(schema: Any) -> Any:
    """The schema with `items` removed where it sits beside `prefixItems`."""
    if isinstance(schema, list):
        return [without_prefix_items_union(value) for value in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: without_prefix_items_union(value)
        for key, value in schema.items()
        if not (key == "items" and "prefixItems" in schema)
    }


def untitled(schema: dict[str, Any]) -> dict[str, Any]:
    # mcp titles the whole schema after the function (`marked_pointArguments`).
    return {key: value for key, value in schema.items() if key != "title"}


async def test_listed_schema_has_items_for_every_fixed_length_tuple(framework: Callable) -> None:
    async with framework(MARKED) as client:
        schemas = await client.input_schemas()
    for tool in MARKED:
        assert all("items" in array for array in arrays(schemas[tool.__name__])), tool
    assert schemas["marked_point"]["properties"]["loc"]["items"] == {"type": "integer"}
    # The tuples inside the model, in `$defs` (mcp) or inlined (fastmcp): the union of the
    # prefix items, or the one schema when they are all equal.
    region_items = {
        (json.dumps(array["prefixItems"]), json.dumps(array["items"]))
        for array in arrays(schemas["marked_region"])
    }
    assert region_items == {
        ('[{"type": "integer"}, {"type": "integer"}]', '{"type": "integer"}'),
        (
            '[{"type": "integer"}, {"type": "string"}]',
            '{"anyOf": [{"type": "integer"}, {"type": "string"}]}',
        ),
    }
    (optional_pair,) = arrays(schemas["marked_optional_pair"])
    assert optional_pair["items"] == {"anyOf": [{"type": "number"}, {"type": "string"}]}


async def test_unmarked_tuples_have_no_items(framework: Callable) -> None:
    # What the marker is for: VS Code refuses these tools.
    async with framework(PLAIN) as client:
        schemas = await client.input_schemas()
    for tool in PLAIN:
        assert [array for array in arrays(schemas[tool.__name__]) if "items" not in array], tool


async def test_schema_is_otherwise_that_of_the_plain_annotation(framework: Callable) -> None:
    async with framework(MARKED) as client:
        marked = await client.input_schemas()
    async with framework(PLAIN) as client:
        plain = await client.input_schemas()
    for marked_tool, plain_tool, _ in CASES:
        assert without_prefix_items_union(untitled(marked[marked_tool.__name__])) == untitled(
            plain[plain_tool.__name__]
        ), marked_tool


async def test_validation_is_that_of_the_plain_annotation(framework: Callable) -> None:
    outcomes = set()
    async with framework(MARKED + PLAIN) as client:
        for marked_tool, plain_tool, values in CASES:
            (name,) = marked_tool.__code__.co_varnames[:1]
            for value in values:
                marked = await client.call(marked_tool.__name__, {name: value})
                plain = await client.call(plain_tool.__name__, {name: value})
                rejected = plain.startswith("error:")
                outcomes.add((marked_tool, rejected))
                if rejected:
                    assert marked.startswith("error:"), (marked_tool, value)
                else:
                    assert marked == plain, (marked_tool, value)
    # Each case has arguments that are accepted and arguments that are rejected.
    assert len(outcomes) == 2 * len(CASES)


async def test_recursive_model_and_other_uses_of_it() -> None:
    # On the mcp SDK: fastmcp 2.14.7 cannot list a tool with a recursive model at all (it
    # inlines the definitions: "Circular reference detected"), marked or not.
    async with mcp_sdk_client([marked_tree]) as client:
        marked = (await client.input_schemas())["marked_tree"]
        accepted = await client.call("marked_tree", {"tree": {"pair": [1, "a"], "kids": []}})
        rejected = await client.call("marked_tree", {"tree": {"pair": ["a", 1]}})
    # Registered after the marked tool: pydantic keeps one schema per model, and the marker
    # must not leave its hook there for every other use of the model.
    async with mcp_sdk_client([plain_tree]) as client:
        plain = (await client.input_schemas())["plain_tree"]
    pair = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert marked["$defs"]["Tree"]["properties"]["pair"]["items"] == pair
    assert "items" not in plain["$defs"]["Tree"]["properties"]["pair"]
    assert (accepted, rejected.startswith("error:")) == ("Tree(pair=(1, 'a'), kids=[])", True)
