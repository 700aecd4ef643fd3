"""`AcceptDigitText` (MCP003's fix): an integer ID is also taken as its digits, so a client that
holds numbers as float64 can send every digit; nothing that was taken before changes, as the
probe shows on mcp 1.x / 2.x and standalone fastmcp (lax and strict)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import fastmcp
import pytest
import sdk

from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.runtime import AcceptDigitText

pytestmark = pytest.mark.sdk

BIG = "9007199254740993"  # 2**53 + 1: a float64 holds 9007199254740992


def servers(marked: bool) -> list:
    if marked:

        def delete_message(message_id: Annotated[int, AcceptDigitText]) -> str:
            return repr(message_id)

    else:

        def delete_message(message_id: int) -> str:
            return repr(message_id)

    made = [
        sdk.PlainServer("chat"),
        fastmcp.FastMCP("chat"),
        fastmcp.FastMCP("chat", strict_input_validation=True),
    ]
    for server in made:
        server.tool()(delete_message)
    return made


def arrivals(server, sent) -> dict:
    """What each value sent arrives as, by the probe (the server's own argument handling)."""
    from mcp_codemod.probe import server_probe

    original = server_probe.ARRIVAL_PROBES
    server_probe.ARRIVAL_PROBES = (*original, *sent)
    try:
        report = probe_server(server)
    finally:
        server_probe.ARRIVAL_PROBES = original
    return {json.dumps(a.sent): a for a in report.arrivals}


SENT = (BIG, "-12", "0012", " 12", "12a", "1.5", 5.0, 2**63, True, [], {})


@pytest.mark.parametrize("index", [0, 1, 2], ids=["mcp-sdk", "fastmcp", "fastmcp-strict"])
def test_only_arguments_refused_before_arrive_differently_and_digits_arrive_whole(index):
    before = arrivals(servers(marked=False)[index], SENT)
    after = arrivals(servers(marked=True)[index], SENT)
    assert before.keys() == after.keys()
    for key, was in before.items():
        now = after[key]
        assert was.error is not None or now.same_outcome(was), (key, was, now)
    assert after[json.dumps(BIG)].received == int(BIG)
    assert type(after[json.dumps(BIG)].received) is int


async def listed_schema(server) -> dict:
    if isinstance(server, fastmcp.FastMCP):
        async with fastmcp.Client(server) as client:
            (tool,) = await client.list_tools()
    else:
        (tool,) = await server.list_tools()
    return sdk.schema_of(tool)["properties"]["message_id"]


@pytest.mark.parametrize("index", [0, 1, 2], ids=["mcp-sdk", "fastmcp", "fastmcp-strict"])
def test_the_listed_schema_offers_the_digits_beside_the_integer(index):
    schema = asyncio.run(listed_schema(servers(marked=True)[index]))
    assert schema["anyOf"] == [{"type": "integer"}, {"type": "string", "pattern": "^-?[0-9]+$"}]
