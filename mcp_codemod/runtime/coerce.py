"""Client side: turn whole floats back into integers where the tool's input schema says integer.

Some clients keep every JSON number as a float, so a model's `5` goes out as `5.0`, which a
strict server rejects. A caller that relays model-produced arguments fixes them here, before
`tools/call`, from the `inputSchema` the server published.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard, cast

# The JSON-schema types a float can validate as, for choosing among anyOf/oneOf branches.
_NUMERIC = frozenset({"integer", "number"})


def coerce_integer_arguments(
    arguments: Mapping[str, Any], input_schema: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Return a copy of `arguments` with whole floats under integer-typed schemas made `int`.

    Follows `properties`, `additionalProperties`, `items`, `$ref` (cycles stop), `anyOf`/`oneOf`
    (only when exactly one branch can hold the value) and `type` lists such as
    `["integer", "null"]`. Non-whole floats, `number`- and `string`-typed values and booleans are
    left alone. `arguments` is not modified.
    """
    if not isinstance(input_schema, Mapping) or "properties" not in input_schema:
        return dict(arguments)
    return dict(_coerce(arguments, input_schema, input_schema, frozenset()))


def _coerce(value: Any, node: Any, root: Mapping[str, Any], followed: frozenset[str]) -> Any:
    schema = _as_mapping(node)
    if schema is None or not _is_coercible(value):
        return value
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref in followed:
            return value
        return _coerce(value, _resolve(root, ref), root, followed | {ref})
    branches = [*schema.get("anyOf", ()), *schema.get("oneOf", ())]
    if branches:
        wanted = _NUMERIC if isinstance(value, float) else {_kind(value)}
        fitting = [b for b in branches if _types(b, root, followed) & (wanted | {"any"})]
        return _coerce(value, fitting[0], root, followed) if len(fitting) == 1 else value
    types = _types(schema, root, followed)
    if isinstance(value, float):
        integer_only = "integer" in types and "number" not in types
        return int(value) if integer_only and value.is_integer() else value
    # Descending into the value: a $ref seen above may legitimately recur below.
    mapping = _as_mapping(value)
    if mapping is not None:
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        return {
            key: _coerce(item, properties.get(key, extra), root, frozenset())
            for key, item in mapping.items()
        }
    items = schema.get("items")
    return [_coerce(item, items, root, frozenset()) for item in cast("list[Any]", value)]


def _is_coercible(value: Any) -> bool:
    """Whether `value` is a float or holds values that may be."""
    return isinstance(value, float | Mapping | list)


def _as_mapping(value: Any) -> Mapping[str, Any] | None:
    """`value` if it is a JSON object (a schema or an argument), else None."""
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _kind(value: Any) -> str:
    return "object" if isinstance(value, Mapping) else "array"


def _types(node: Any, root: Mapping[str, Any], followed: frozenset[str]) -> set[str]:
    """The JSON types `node` admits; `{"any"}` when it does not say."""
    schema = _as_mapping(node)
    if schema is None:
        return {"any"}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return set() if ref in followed else _types(_resolve(root, ref), root, followed | {ref})
    branches = [*schema.get("anyOf", ()), *schema.get("oneOf", ())]
    if branches:
        return set[str]().union(*(_types(b, root, followed) for b in branches))
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return set(cast("list[str]", declared))
    if "properties" in schema:
        return {"object"}
    if "items" in schema:
        return {"array"}
    return {"any"}


def _resolve(root: Mapping[str, Any], ref: str) -> Any:
    """Follow a local JSON pointer such as `#/$defs/Point`; anything else resolves to None."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for part in ref[1:].split("/")[1:]:
        mapping = _as_mapping(node)
        if mapping is None:
            return None
        node = mapping.get(part.replace("~1", "/").replace("~0", "~"))
    return node


class IntegerCoercingSession:
    """Wraps an mcp client so every `call_tool` goes through `coerce_integer_arguments`.

    Works with mcp 1.x `ClientSession`, mcp 2.x `Client`/`ClientSession` and `fastmcp.Client`:
    anything with `list_tools()` and `call_tool(name, arguments, ...)`. Input schemas come from
    `list_tools` and are cached; a tool name not in the cache triggers one reload. Every other
    attribute is the wrapped session's.

        session = IntegerCoercingSession(session)
        await session.call_tool("goto", {"line": 5.0})  # the server receives {"line": 5}
    """

    def __init__(self, session: Any) -> None:
        self._session = session
        self._schemas: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        if arguments:
            if name not in self._schemas:
                await self._load_schemas()
            arguments = coerce_integer_arguments(arguments, self._schemas.get(name))
        return await self._session.call_tool(name, arguments, *args, **kwargs)

    async def _load_schemas(self) -> None:
        cursor = None
        while True:
            # fastmcp.Client.list_tools takes no cursor, so only a follow-up page passes one.
            page = await self._session.list_tools(**({"cursor": cursor} if cursor else {}))
            # fastmcp.Client returns a plain list of tools; mcp returns a paginated result.
            tools = page if _is_tool_list(page) else page.tools
            for tool in tools:
                self._schemas[tool.name] = _field(tool, "input_schema", "inputSchema")
            cursor = None if _is_tool_list(page) else _field(page, "next_cursor", "nextCursor")
            if not cursor:
                return


def _is_tool_list(page: Any) -> TypeGuard[list[Any]]:
    return isinstance(page, list)


def _field(model: Any, name: str, v1_name: str) -> Any:
    # mcp 2.x renamed the camelCase fields; with fastmcp 4 installed, reading the old name warns.
    return getattr(model, name) if hasattr(model, name) else getattr(model, v1_name, None)
