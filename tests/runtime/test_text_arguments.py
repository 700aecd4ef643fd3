"""Under the guarded servers, text parameters get string arguments exactly as sent, and every other
parameter, `Any` and unannotated ones included unless marked, what the SDK gives it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional, TypeVar

import fastmcp
import pytest
from pydantic import Field
from sdk import OTHER_GUARDED_CLASS, GuardedServer, PlainServer, Tool, call, connect, input_schemas

import mcp_codemod.runtime as runtime
from mcp_codemod.runtime import NoPreParse, guard, install, uninstall
from mcp_codemod.runtime.declared_text import admits_str, declares_text
from mcp_codemod.runtime.guards import marked_no_pre_parse

pytestmark = [pytest.mark.anyio, pytest.mark.sdk]


def str_or_none(x: str | None = None) -> str:
    return repr(x)


def optional_str(x: Optional[str] = None) -> str:  # noqa: UP045 - the spelling under test
    return repr(x)


def described_str_or_none(x: Annotated[str | None, Field(description="text")] = None) -> str:
    return repr(x)


def marked_str_or_none(
    x: Annotated[str | None, Field(description="text"), NoPreParse] = None,
) -> str:
    return repr(x)


def str_or_list(x: str | list[str]) -> str:
    return repr(x)


def any_value(x: Any) -> str:
    return repr(x)


def unannotated(x) -> str:  # type: ignore[no-untyped-def]
    return repr(x)


def marked_any(x: Annotated[Any, NoPreParse]) -> str:
    return repr(x)


def marked_any_or_none(x: Annotated[Any, NoPreParse] | None = None) -> str:
    return repr(x)


def str_or_any(x: str | Any) -> str:
    return repr(x)


def anything_else(**kwargs: Any) -> str:
    return repr(kwargs)


def literal_a_or_null(x: Literal["a", "null"]) -> str:
    return repr(x)


def marked_literal_a_or_null(x: Annotated[Literal["a", "null"], NoPreParse]) -> str:
    return repr(x)


def list_of_str(x: list[str]) -> str:
    return repr(x)


def dict_or_none(x: dict[str, Any] | None = None) -> str:
    return repr(x)


TEXT_TOOLS = [
    str_or_none,
    optional_str,
    described_str_or_none,
    marked_str_or_none,
    str_or_list,
    marked_any,
    marked_any_or_none,
]
# Parameters that take anything: the guard leaves them to the SDK until their author marks them.
ANYTHING_TOOLS = [any_value, unannotated, str_or_any]
OTHER_TOOLS = [
    literal_a_or_null,
    marked_literal_a_or_null,
    list_of_str,
    dict_or_none,
    anything_else,
]
JSON_LOOKING_TEXT = ["null", "[1, 2]", '{"a": 1}', '["a"]', "true", "123"]


def with_tools(server: Any) -> Any:
    for fn in TEXT_TOOLS + ANYTHING_TOOLS + OTHER_TOOLS:
        server.tool()(fn)
    return server


@pytest.fixture(params=["guarded class", "guard(plain server)", "install()"])
def make_server(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """Builds a server under one of the three ways of applying the policy."""
    if request.param == "install()":
        install()
        request.addfinalizer(uninstall)

    def make(**kwargs: Any) -> Any:
        if request.param == "guarded class":
            return GuardedServer("test", **kwargs)
        server = PlainServer("test", **kwargs)
        return guard(server) if request.param == "guard(plain server)" else server

    return make


async def test_unguarded_server_decodes_json_looking_text() -> None:
    async with connect(with_tools(PlainServer("plain"))) as client:
        assert await call(client, "str_or_none", {"x": "null"}) == "None"
        assert (await call(client, "str_or_none", {"x": '["a"]'})).startswith("error:")
        assert await call(client, "str_or_list", {"x": '["a"]'}) == "['a']"
        assert (await call(client, "literal_a_or_null", {"x": "null"})).startswith("error:")


async def test_text_parameters_receive_json_looking_text_as_sent(make_server: Callable) -> None:
    async with connect(with_tools(make_server())) as client:
        for tool in TEXT_TOOLS:
            for text in JSON_LOOKING_TEXT:
                assert await call(client, tool.__name__, {"x": text}) == repr(text), tool
        assert await call(client, "literal_a_or_null", {"x": "null"}) == "'null'"
        assert await call(client, "literal_a_or_null", {"x": "a"}) == "'a'"


async def test_parameters_that_take_anything_keep_the_sdk_decoding(make_server: Callable) -> None:
    async with connect(with_tools(make_server())) as plain_or_guarded:
        for tool in ANYTHING_TOOLS:
            assert await call(plain_or_guarded, tool.__name__, {"x": "null"}) == "None", tool
            assert await call(plain_or_guarded, tool.__name__, {"x": "[1]"}) == "[1]", tool
            assert await call(plain_or_guarded, tool.__name__, {"x": "hello"}) == "'hello'", tool
        received = await call(plain_or_guarded, "anything_else", {"kwargs": '{"a": 1}'})
        assert received == "{'kwargs': {'a': 1}}"


async def test_non_string_arguments_to_text_parameters_are_unchanged(
    make_server: Callable,
) -> None:
    async with connect(with_tools(make_server())) as client:
        assert await call(client, "str_or_none", {"x": None}) == "None"
        assert await call(client, "str_or_list", {"x": ["a"]}) == "['a']"
        assert await call(client, "any_value", {"x": [1, 2]}) == "[1, 2]"


async def test_parameters_that_cannot_take_text_still_get_json_decoded(
    make_server: Callable,
) -> None:
    async with connect(with_tools(make_server())) as client:
        assert await call(client, "list_of_str", {"x": '["a"]'}) == "['a']"
        assert await call(client, "dict_or_none", {"x": '{"a": 1}'}) == "{'a': 1}"
        assert await call(client, "dict_or_none", {"x": "null"}) == "None"


async def test_tools_registered_any_way_are_guarded(make_server: Callable) -> None:
    def via_from_function(x: str | None = None) -> str:
        return repr(x)

    def via_decorator(x: str | None = None) -> str:
        return repr(x)

    def via_add_tool(x: str | None = None) -> str:
        return repr(x)

    # The Tool.from_function tool exists before guard() runs; the other two are added after.
    server = make_server(tools=[Tool.from_function(via_from_function)])
    server.tool()(via_decorator)
    server.add_tool(via_add_tool)
    async with connect(server) as client:
        for tool in ("via_from_function", "via_decorator", "via_add_tool"):
            assert await call(client, tool, {"x": "null"}) == "'null'", tool


async def test_input_schemas_match_the_unguarded_server(make_server: Callable) -> None:
    async with connect(with_tools(make_server())) as client:
        guarded = await input_schemas(client)
    uninstall()  # the install() variant patches every server, the reference one included
    async with connect(with_tools(PlainServer("test"))) as client:
        plain = await input_schemas(client)
    assert guarded == plain


async def test_guarded_class_takes_subclassing_and_constructor_arguments() -> None:
    class MyServer(GuardedServer):
        def __init__(self) -> None:
            super().__init__("mine", instructions="Use the tools.")
            self.tool()(str_or_none)

    server = MyServer()
    assert (server.name, server.instructions) == ("mine", "Use the tools.")
    async with connect(server) as client:
        assert await call(client, "str_or_none", {"x": "null"}) == "'null'"


async def test_guard_returns_the_server_and_is_idempotent() -> None:
    server = with_tools(PlainServer("test"))
    assert guard(guard(server)) is server
    async with connect(server) as client:
        assert await call(client, "str_or_none", {"x": '["a"]'}) == repr('["a"]')
        assert await call(client, "list_of_str", {"x": '["a"]'}) == "['a']"


def test_guard_returns_a_standalone_fastmcp_server_untouched() -> None:
    server = fastmcp.FastMCP("test")
    before = dict(vars(server))
    assert guard(server) is server
    assert vars(server) == before


def test_guard_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="guard\\(\\) takes"):
        guard(object())


async def test_uninstall_restores_the_sdk_decoding_and_both_are_idempotent(
    request: pytest.FixtureRequest,
) -> None:
    request.addfinalizer(uninstall)
    install()
    install()
    async with connect(with_tools(PlainServer("test"))) as client:
        assert await call(client, "str_or_none", {"x": "null"}) == "'null'"
    uninstall()
    uninstall()
    async with connect(with_tools(PlainServer("test"))) as client:
        assert await call(client, "str_or_none", {"x": "null"}) == "None"


def test_guarded_class_of_the_other_mcp_major_fails_to_import_clearly() -> None:
    with pytest.raises(ImportError, match=f"{OTHER_GUARDED_CLASS} needs mcp.*installed mcp is"):
        getattr(runtime, OTHER_GUARDED_CLASS)


async def test_marker_alone_changes_nothing_on_an_unguarded_server() -> None:
    # Only the server can keep the text; a marker that "repaired" decoded values would have to
    # re-encode them, changing what the client sent.
    async with connect(with_tools(PlainServer("plain"))) as client:
        assert await call(client, "marked_str_or_none", {"x": "null"}) == "None"
        assert await call(client, "marked_str_or_none", {"x": "hello"}) == "'hello'"


async def test_marker_does_not_change_the_input_schema() -> None:
    server = PlainServer("test")
    server.tool()(described_str_or_none)
    server.tool()(marked_str_or_none)
    async with connect(server) as client:
        schemas = await input_schemas(client)
    unmarked = schemas["described_str_or_none"].replace("described_str_or_none", "NAME")
    assert schemas["marked_str_or_none"].replace("marked_str_or_none", "NAME") == unmarked


@pytest.mark.parametrize(
    "annotation",
    [
        str,
        str | None,
        Optional[str],  # noqa: UP045
        Annotated[str | None, Field(description="d")],
        str | list[str],
        Literal["a", "null"],
        Annotated[str, "meta"] | int,
    ],
)
def test_annotations_that_declare_text(annotation: Any) -> None:
    assert declares_text(annotation)
    assert admits_str(annotation)


@pytest.mark.parametrize("annotation", [Any, object, str | Any, Optional[Any], TypeVar("T")])  # noqa: UP045
def test_annotations_that_take_anything_admit_a_string_but_do_not_declare_text(
    annotation: Any,
) -> None:
    assert admits_str(annotation)
    assert not declares_text(annotation)


def test_a_marker_counts_on_the_annotation_its_union_members_and_field_metadata() -> None:
    assert marked_no_pre_parse(Any, [NoPreParse])
    assert marked_no_pre_parse(Annotated[Any, NoPreParse] | None)
    assert not marked_no_pre_parse(list[Annotated[str, NoPreParse]])
    assert not marked_no_pre_parse(Any, ["other metadata"])


def test_type_aliases_and_new_types_are_seen_through() -> None:
    from typing import NewType

    from typing_extensions import TypeAliasType

    assert declares_text(TypeAliasType("Query", str | None))
    assert declares_text(NewType("UserName", str))
    assert declares_text(TypeVar("Name", bound=str))
    assert not admits_str(TypeAliasType("Ids", list[int]))


@pytest.mark.parametrize(
    "annotation",
    [list[str], dict | None, int, int | None, Literal[1, 2], Annotated[list[str], "meta"]],
)
def test_annotations_that_do_not_admit_a_string(annotation: Any) -> None:
    assert not admits_str(annotation)
