"""In-process clients over each framework's real tools/list and tools/call paths."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import fastmcp
import sdk


class Connected:
    """A connected in-process client: `call` returns the tool's text or `error: <message>`."""

    def __init__(self, call: Callable, list_tools: Callable) -> None:
        self.call = call
        self._list_tools = list_tools

    async def input_schemas(self) -> dict[str, dict[str, Any]]:
        """Each listed tool's input schema."""
        return {tool.name: sdk.schema_of(tool) for tool in await self._list_tools()}

    async def parameter_schemas(self) -> dict[str, str]:
        """Each tool's `properties` and `required`, as JSON text."""
        return {
            name: json.dumps([schema["properties"], schema.get("required")])
            for name, schema in (await self.input_schemas()).items()
        }


@asynccontextmanager
async def mcp_sdk_client(
    tools: list[Callable], *, guarded: bool = False
) -> AsyncIterator[Connected]:
    server = (sdk.GuardedServer if guarded else sdk.PlainServer)("test")
    for fn in tools:
        server.tool()(fn)
    async with sdk.connect(server) as client:

        async def list_tools() -> list[Any]:
            return (await client.list_tools()).tools

        yield Connected(lambda tool, arguments: sdk.call(client, tool, arguments), list_tools)


@asynccontextmanager
async def fastmcp_client(
    tools: list[Callable], *, strict: bool = False
) -> AsyncIterator[Connected]:
    server = fastmcp.FastMCP("test", strict_input_validation=strict)
    for fn in tools:
        server.tool(fn)
    async with fastmcp.Client(server) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(tool, arguments, raise_on_error=False)
            text = result.content[0].text
            return f"error: {text}" if result.is_error else text

        yield Connected(call, client.list_tools)


def fastmcp_strict_client(tools: list[Callable]) -> Any:
    return fastmcp_client(tools, strict=True)
