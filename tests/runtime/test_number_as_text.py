"""Digit-only text sent as a number (Claude Code shows the model an `Optional[str]` schema as
`{}`, anthropics/claude-code#90123): a text parameter that rejects the integer takes it as its
text, under the mcp SDK's guarded servers and with the `AcceptNumberAsText` marker on every
framework; a parameter that takes the integer as it is keeps it, and the schema is unchanged."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Literal

import fastmcp
import pytest
import sdk

from mcp_codemod.runtime import AcceptNumberAsText, guard, install, uninstall

from .clients import fastmcp_client, fastmcp_strict_client, mcp_sdk_client

pytestmark = [pytest.mark.anyio, pytest.mark.sdk]


def account(account: str | None = None) -> str:
    return repr(account)


def code(code: Literal["1", "2"] | None = None) -> str:
    return repr(code)


def page(page: int | str | None = None) -> str:
    return repr(page)


def when(when: str | datetime | None = None) -> str:
    return repr(when)


def marked_account(account: Annotated[str | None, AcceptNumberAsText] = None) -> str:
    return repr(account)


def marked_page(page: Annotated[int | str | None, AcceptNumberAsText] = None) -> str:
    return repr(page)


def marked_names(names: Annotated[str | list[str], AcceptNumberAsText]) -> str:
    return repr(names)


@pytest.fixture(params=["guarded class", "guard(plain server)", "install()"])
def guarded(request: pytest.FixtureRequest) -> Callable:
    if request.param == "install()":
        install()
        request.addfinalizer(uninstall)

    def connect(tools: list[Callable]):
        if request.param == "guarded class":
            return mcp_sdk_client(tools, guarded=True)
        server = sdk.PlainServer("test")
        for fn in tools:
            server.tool()(fn)
        return sdk.connect(guard(server) if request.param == "guard(plain server)" else server)

    return connect


async def call(client, tool: str, arguments: dict) -> str:
    if hasattr(client, "call"):
        return await client.call(tool, arguments)
    return await sdk.call(client, tool, arguments)


async def test_guarded_text_parameter_takes_an_integer_as_its_text(guarded: Callable) -> None:
    async with guarded([account, code]) as client:
        assert await call(client, "account", {"account": 4608023173}) == "'4608023173'"
        assert await call(client, "code", {"code": 2}) == "'2'"
        assert await call(client, "account", {"account": "4608023173"}) == "'4608023173'"
        assert await call(client, "account", {"account": None}) == "None"


async def test_guarded_parameter_that_takes_the_integer_keeps_it(guarded: Callable) -> None:
    async with guarded([page, when]) as client:
        assert await call(client, "page", {"page": 5}) == "5"
        received = await call(client, "when", {"when": 1700000000})
        assert received.startswith("datetime.datetime(2023"), received


async def test_guarded_rejection_is_unchanged_where_the_text_is_refused_too(
    guarded: Callable,
) -> None:
    async with guarded([code, account]) as client:
        assert (await call(client, "code", {"code": 3})).startswith("error:")
        assert (await call(client, "account", {"account": True})).startswith("error:")
        assert (await call(client, "account", {"account": 5.0})).startswith("error:")


async def test_unguarded_mcp_server_rejects_the_integer() -> None:
    async with mcp_sdk_client([account]) as client:
        assert (await client.call("account", {"account": 4608023173})).startswith("error:")


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
    # fastmcp 2.x's strict mode checks the advertised schema before any validator.
    major = int(fastmcp.__version__.split(".")[0])
    return framework is fastmcp_strict_client and major == 2


async def test_marker_takes_an_integer_as_its_text(framework: Callable) -> None:
    async with framework([marked_account, marked_names]) as client:
        received = await client.call("marked_account", {"account": 4608023173})
        names = await client.call("marked_names", {"names": 7})
        assert await client.call("marked_account", {"account": "12"}) == "'12'"
        assert await client.call("marked_names", {"names": ["a"]}) == "['a']"
    if checks_schema_first(framework):
        assert received.startswith("error:") and names.startswith("error:")
    else:
        assert (received, names) == ("'4608023173'", "'7'")


async def test_marker_leaves_what_the_parameter_takes(framework: Callable) -> None:
    async with framework([marked_page, marked_account]) as client:
        assert await client.call("marked_page", {"page": 5}) == "5"
        assert await client.call("marked_page", {"page": "5"}) == "'5'"
        assert (await client.call("marked_account", {"account": True})).startswith("error:")
        assert (await client.call("marked_account", {"account": 1.5})).startswith("error:")


async def test_without_the_marker_fastmcp_rejects_the_integer() -> None:
    async with fastmcp_client([account]) as client:
        assert (await client.call("account", {"account": 4608023173})).startswith("error:")


async def test_marker_leaves_the_schema_as_it_was(framework: Callable) -> None:
    def with_marker(account: Annotated[str | None, AcceptNumberAsText] = None) -> str:
        return ""

    def without_marker(account: str | None = None) -> str:
        return ""

    async with framework([with_marker, without_marker]) as client:
        schemas = await client.parameter_schemas()
    assert schemas["with_marker"] == schemas["without_marker"]
