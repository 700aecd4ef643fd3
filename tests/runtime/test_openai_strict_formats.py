"""`OpenAIStrictFormats` (MCP104's fix): the formats OpenAI strict mode refuses leave the
parameter's listed schema (its models' definitions too), the supported ones stay, and nothing
else changes: not the rest of the schema, not what any argument arrives as (the probe's
record), on the installed mcp SDK and standalone fastmcp."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import fastmcp
import pytest
import sdk
from pydantic import AnyUrl, BaseModel, EmailStr

from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.runtime import OpenAIStrictFormats
from mcp_codemod.runtime.guards import OPENAI_STRICT_FORMATS

pytestmark = pytest.mark.sdk


class Link(BaseModel):
    href: AnyUrl
    owner: EmailStr


def servers(marked: bool) -> list:
    if marked:

        def fetch(
            url: Annotated[AnyUrl, OpenAIStrictFormats],
            saved: Annotated[list[Path] | None, OpenAIStrictFormats] = None,
            link: Annotated[Link | None, OpenAIStrictFormats] = None,
        ) -> str:
            return repr((url, saved, link))

    else:

        def fetch(url: AnyUrl, saved: list[Path] | None = None, link: Link | None = None) -> str:
            return repr((url, saved, link))

    made = [sdk.PlainServer("web"), fastmcp.FastMCP("web")]
    for server in made:
        server.tool()(fetch)
    return made


def formats(schema: Any) -> list[str]:
    if isinstance(schema, list):
        return [found for item in schema for found in formats(item)]
    if not isinstance(schema, dict):
        return []
    own = [schema["format"]] if isinstance(schema.get("format"), str) else []
    return own + [found for value in schema.values() for found in formats(value)]


def without_formats(schema: Any) -> Any:
    if isinstance(schema, list):
        return [without_formats(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: without_formats(value) for key, value in schema.items() if key != "format"}


@pytest.mark.parametrize("index", [0, 1], ids=["mcp-sdk", "fastmcp"])
def test_only_the_formats_strict_mode_refuses_leave_the_schema(index):
    before = asyncio.run(sdk.listed_input_schema(servers(marked=False)[index]))
    after = asyncio.run(sdk.listed_input_schema(servers(marked=True)[index]))
    assert {"uri", "path"} <= set(formats(before))
    # The model's definition too (inlined by fastmcp, in `$defs` on the mcp SDK); its email
    # format is one strict mode supports, and stays.
    assert formats(after) == ["email"]
    assert set(formats(after)) <= set(OPENAI_STRICT_FORMATS)
    assert json.dumps(without_formats(after)) == json.dumps(without_formats(before))


@pytest.mark.parametrize("index", [0, 1], ids=["mcp-sdk", "fastmcp"])
def test_every_argument_arrives_as_it_did(index):
    before = arrivals(servers(marked=False)[index])
    after = arrivals(servers(marked=True)[index])
    assert before.keys() == after.keys()
    for key, arrival in before.items():
        assert after[key].same_outcome(arrival), key


def arrivals(server) -> dict:
    return {(a.parameter, json.dumps(a.sent)): a for a in probe_server(server).arrivals}
