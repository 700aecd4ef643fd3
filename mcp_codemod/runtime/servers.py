"""Servers whose text parameters receive string arguments exactly as sent.

The mcp SDK (`FastMCP` in 1.x, `MCPServer` in 2.x) JSON-decodes every string argument whose
parameter is not annotated exactly `str` (`FuncMetadata.pre_parse_json`): `"null"` becomes `None`
for `str | None`, `'["a"]'` a list for `str | list[str]`. The guard policy (docs/runtime.md):
a string argument reaches the tool as sent where the parameter's declared type admits text
(`declared_text.declares_text`) or the parameter is marked `NoPreParse`; every other argument
goes through the SDK's own pre-parse. So `list[str]` still gets `["a"]` from `'["a"]'`, and `Any`,
`object` and unannotated parameters keep the SDK's decoding until their author marks them: the
guard changes what a tool receives only where the SDK replaced text the declared type takes.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import version
from types import MethodType
from typing import TYPE_CHECKING, Any, TypeVar, cast

# The SDK's own type variable (in both majors), with its default: `GuardedFastMCP("x")` is a
# `GuardedFastMCP[Any]`, as `FastMCP("x")` is a `FastMCP[Any]`.
from mcp.server.lowlevel.server import LifespanResultT
from pydantic_core import ValidationError

from .declared_text import declares_text
from .guards import marked_no_pre_parse

# `guard` returns the server it is given: `mcp = guard(MCPServer("x"))` keeps its type for the
# project's type checker, whichever class the project's imports chose.
ServerT = TypeVar("ServerT")

# One mcp major is installed. To a type checker the other major's modules are missing (and in
# mcp 2.x `mcp.server.fastmcp` has no names), which is all these comments ignore; `unused-ignore`:
# under the installed major there is nothing to ignore. Each guarded class subclasses its own
# SDK's class, so that it types as that class does.
try:
    from mcp.server.mcpserver import MCPServer  # type: ignore[import-not-found, unused-ignore]
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    from mcp.server.fastmcp import FastMCP  # type: ignore[attr-defined, unused-ignore]
    from mcp.server.fastmcp.utilities.func_metadata import FuncMetadata  # type: ignore[import-not-found, no-redef, unused-ignore]

    _SdkServer = cast("type[Any]", FastMCP)
    # FastMCP is generic from mcp 1.12; servers written for an older mcp run on its plain class.
    if TYPE_CHECKING or hasattr(FastMCP, "__class_getitem__"):
        _FastMCPBase = FastMCP[LifespanResultT]  # type: ignore[misc, unused-ignore]
    else:
        _FastMCPBase = FastMCP

    class GuardedFastMCP(_FastMCPBase):  # type: ignore[misc, valid-type, unused-ignore]
        """`mcp.server.fastmcp.FastMCP` whose text parameters get string arguments as sent."""

        # A type checker sees the SDK's own `__init__`, to which these arguments all go.
        if not TYPE_CHECKING:

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                guard(self)

else:
    _SdkServer = cast("type[Any]", MCPServer)

    class GuardedMCPServer(MCPServer[LifespanResultT]):  # type: ignore[misc, unused-ignore]
        """`mcp.server.mcpserver.MCPServer` whose text parameters get string arguments as sent."""

        # A type checker sees the SDK's own `__init__`, to which these arguments all go.
        if not TYPE_CHECKING:

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                guard(self)


# The class whose `pre_parse_json` the policy replaces (one type: one major is installed).
_FuncMetadata = cast("type[Any]", FuncMetadata)
_upstream_pre_parse_json: Callable[[Any, dict[str, Any]], dict[str, Any]] = (
    _FuncMetadata.pre_parse_json
)


def keeps_text(field: Any) -> bool:
    """Whether a guarded server passes a string argument for this pydantic field as sent."""
    return declares_text(field.annotation) or marked_no_pre_parse(field.annotation, field.metadata)


def _pre_parse_json(self: Any, data: dict[str, Any]) -> dict[str, Any]:
    # Text for a parameter that keeps it is passed as sent; the rest goes through the SDK's own
    # pre-parse, so its behaviour for those parameters stays whatever the installed SDK does.
    fields: dict[str, tuple[str, Any]] = {}
    for name, info in self.arg_model.model_fields.items():
        fields[name] = (name, info)
        if info.alias:
            fields[info.alias] = (name, info)
    kept: dict[str, Any] = {
        key: value
        for key, value in data.items()
        if isinstance(value, str) and key in fields and keeps_text(fields[key][1])
    }
    # An integer sent in place of digit-only text, to a text parameter that refuses it as it
    # is (docs/runtime.md, "What clients send"), arrives as its text.
    for key, value in data.items():
        if type(value) is int and key in fields and keeps_text(fields[key][1]):
            kept[key] = _integer_as_field_text(self.arg_model, fields[key][0], value)
    parsed = _upstream_pre_parse_json(self, {k: v for k, v in data.items() if k not in kept})
    return {key: kept[key] if key in kept else parsed[key] for key in data}


def _integer_as_field_text(model: Any, name: str, number: int) -> int | str:
    """`number` as its decimal text when the field refuses the number and takes the text."""

    def takes(value: Any) -> bool:
        # Assigning to an unvalidated instance runs that one field's validator.
        try:
            model.__pydantic_validator__.validate_assignment(model.model_construct(), name, value)
        except ValidationError:
            return False
        return True

    text = str(number)
    return text if not takes(number) and takes(text) else number


def install() -> None:
    """Apply the policy to every mcp server in the process (class-level patch of the SDK)."""
    # setattr: a patch of the SDK's class, which a type checker rightly refuses as an assignment.
    setattr(_FuncMetadata, "pre_parse_json", _pre_parse_json)  # noqa: B010


def uninstall() -> None:
    """Restore the SDK's own `pre_parse_json`."""
    setattr(_FuncMetadata, "pre_parse_json", _upstream_pre_parse_json)  # noqa: B010


def guard(server: ServerT) -> ServerT:
    """Apply the policy to one server: its tools registered so far and any added later.

    Takes an mcp `FastMCP` (1.x) or `MCPServer` (2.x) and returns it. A standalone
    `fastmcp.FastMCP` is returned untouched, because fastmcp does not pre-parse. Idempotent.
    """
    if _is_standalone_fastmcp(server):
        return server
    if not isinstance(server, _SdkServer):
        raise TypeError(
            f"guard() takes an mcp {_SdkServer.__name__} or a fastmcp.FastMCP, "
            f"not {type(server).__name__}"
        )
    sdk_server: Any = server
    manager: Any = sdk_server._tool_manager
    # Every way of registering a tool ends in manager._tools, and every call looks the tool up
    # through manager.get_tool, so guarding at lookup covers tools registered at any time.
    # An instance attribute `get_tool` is this wrapper: the SDK only defines it on the class.
    if "get_tool" not in vars(manager):
        lookup = manager.get_tool

        def get_tool(name: str) -> Any:
            tool = lookup(name)
            if tool is not None and "pre_parse_json" not in vars(tool.fn_metadata):
                # FuncMetadata is a pydantic model that refuses unknown attributes.
                object.__setattr__(
                    tool.fn_metadata,
                    "pre_parse_json",
                    MethodType(_pre_parse_json, tool.fn_metadata),
                )
            return tool

        manager.get_tool = get_tool
    return server


def _is_standalone_fastmcp(server: Any) -> bool:
    # Read from the server's own classes, never from the `fastmcp` module: a fastmcp that does
    # not match the installed mcp can fail to import, or raise on `fastmcp.FastMCP`, and that
    # must not break a server that only uses the SDK.
    return any(
        cls.__name__ == "FastMCP" and cls.__module__.partition(".")[0] == "fastmcp"
        for cls in type(server).__mro__
    )


# Each guarded class exists only under its own mcp major version.
_CLASS_REQUIREMENT = {
    "GuardedFastMCP": "mcp<2 (mcp.server.fastmcp.FastMCP)",
    "GuardedMCPServer": "mcp>=2 (mcp.server.mcpserver.MCPServer)",
}


def __getattr__(name: str) -> Any:
    if name in _CLASS_REQUIREMENT:
        raise ImportError(
            f"{name} needs {_CLASS_REQUIREMENT[name]}; the installed mcp is {version('mcp')}"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
