"""The argument handling of each framework the probe knows, taken from a live server: mcp 1.x
`FastMCP`, mcp 2.x `MCPServer` (the SDK's JSON pre-parse, then each field's validator) and
`fastmcp.FastMCP` (its function's validator, and fastmcp 2.x's strict schema check).

Imported by the command line: the frameworks, pydantic and asyncio are imported only when a server
is probed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any


class NotAServerError(TypeError):
    """The object is not a server the probe knows."""


@dataclass(frozen=True)
class ProbedParameter:
    """One parameter of a tool, as its framework handles a tools/call argument."""

    key: str
    """The argument name clients send: the input schema's property."""
    schema: dict[str, Any]
    definitions: dict[str, Any]
    """The input schema's `$defs`, which `schema` may refer to."""
    prepare: Callable[[Any], Any]
    """What the framework does to the raw argument before validation."""
    validate: Callable[[Any], Any]
    """The parameter's compiled validator: the value the tool gets, or an exception."""


class NotProbed(Exception):
    """Why the probe cannot reproduce a tool's argument handling."""


# Frameworks. Their classes are looked up in sys.modules: a server's module has imported its
# framework already, and importing the others could fail (mcp 2.x has no mcp.server.fastmcp).


_Inspection = tuple[str, list[tuple[str, Any]], Callable[[Any], list[ProbedParameter]]]
"""The framework's name, the (name, tool) pairs, and how to get a tool's parameters."""


_SERVER_CLASSES = (
    ("fastmcp", "FastMCP", "fastmcp"),
    ("mcp.server.fastmcp", "FastMCP", "mcp 1.x FastMCP"),
    ("mcp.server.mcpserver", "MCPServer", "mcp 2.x MCPServer"),
)


def _framework(value: Any) -> str | None:
    for module, class_name, framework in _SERVER_CLASSES:
        try:
            server_class = getattr(sys.modules.get(module), class_name, None)
        except Exception:  # a framework that does not match the installed mcp: absent
            continue
        if isinstance(server_class, type) and isinstance(value, server_class):
            return framework
    return None


def is_server(value: Any) -> bool:
    """Whether the probe can probe `value`: an mcp FastMCP / MCPServer or a fastmcp.FastMCP."""
    return _framework(value) is not None


def inspect_server(server: Any) -> _Inspection:
    framework = _framework(server)
    if framework == "fastmcp":
        return _inspect_fastmcp(server, sys.modules["fastmcp"])
    if framework is not None:
        manager = server._tool_manager
        # Calls look a tool up through get_tool, which is where guard() installs its policy.
        tools = [(tool.name, manager.get_tool(tool.name)) for tool in manager.list_tools()]
        return framework, tools, _mcp_parameters
    raise NotAServerError(
        f"{type(server).__module__}.{type(server).__qualname__} is not an mcp FastMCP, "
        "an mcp MCPServer or a fastmcp.FastMCP"
    )


def _mcp_parameters(tool: Any) -> list[ProbedParameter]:
    # The SDK runs metadata.pre_parse_json(arguments), then arg_model.model_validate(...)
    # (call_fn_with_arg_validation in 1.x, validate_arguments in 2.x). The pre-parse treats each
    # argument on its own, and each field has its own compiled validator.
    metadata = tool.fn_metadata
    model = metadata.arg_model
    names = {info.alias or name: name for name, info in model.model_fields.items()}
    return [
        ProbedParameter(
            key,
            schema,
            tool.parameters.get("$defs", {}),
            partial(_mcp_pre_parse, metadata, key),
            partial(_mcp_validate_field, model, names[key]),
        )
        for key, schema in tool.parameters.get("properties", {}).items()
    ]


def _mcp_pre_parse(metadata: Any, key: str, value: Any) -> Any:
    return metadata.pre_parse_json({key: value})[key]


def _mcp_validate_field(model: Any, name: str, value: Any) -> Any:
    # Assigning to an unvalidated instance runs that one field's validator, as model_validate would.
    instance = model.__pydantic_validator__.validate_assignment(
        model.model_construct(), name, value
    )
    return getattr(instance, name)


def _inspect_fastmcp(server: Any, fastmcp: Any) -> _Inspection:
    from fastmcp.tools import FunctionTool

    strict = bool(server.strict_input_validation)
    framework = f"fastmcp {fastmcp.__version__}" + (" (strict input validation)" if strict else "")
    # fastmcp 2.x's strict mode is a JSON-schema check of the advertised schema in the wire
    # handler, and pydantic stays lax; later versions validate with pydantic in strict mode.
    schema_strict = strict and int(fastmcp.__version__.split(".")[0]) < 3
    tools = _run(partial(_fastmcp_tools, server))

    def parameters_of(tool: Any) -> list[ProbedParameter]:
        if not isinstance(tool, FunctionTool):
            raise NotProbed(f"a {type(tool).__name__}, not a FunctionTool")
        return _fastmcp_parameters(tool, strict and not schema_strict, schema_strict)

    return framework, tools, parameters_of


async def _fastmcp_tools(server: Any) -> list[tuple[str, Any]]:
    if hasattr(server, "get_tools"):  # fastmcp 2.x: keyed by the name clients call
        return list((await server.get_tools()).items())
    return [(tool.name, tool) for tool in await server.list_tools()]


def _fastmcp_parameters(tool: Any, strict: bool, schema_checked: bool) -> list[ProbedParameter]:
    # fastmcp validates with a TypeAdapter built from the function (FunctionTool.run). Its call
    # schema calls the function; each parameter's own schema inside it does not.
    from fastmcp.server.dependencies import without_injected_parameters
    from fastmcp.utilities.types import get_cached_typeadapter
    from pydantic_core import SchemaValidator

    core = get_cached_typeadapter(without_injected_parameters(tool.fn)).core_schema
    call = core["schema"] if core["type"] == "definitions" else core
    if call["type"] != "call" or call["arguments_schema"]["type"] != "arguments":
        raise NotProbed(f"its validator is a {call['type']!r} schema, not a function call")
    schemas = {}
    for argument in call["arguments_schema"]["arguments_schema"]:
        alias = argument.get("alias")
        schemas[alias if isinstance(alias, str) else argument["name"]] = argument["schema"]
    parameters = []
    definitions = tool.parameters.get("$defs", {})
    for key, schema in tool.parameters.get("properties", {}).items():
        if key not in schemas:
            raise NotProbed(f"its input schema has {key!r}, which its function does not take")
        part = dict(core, schema=schemas[key]) if core["type"] == "definitions" else schemas[key]
        validate = partial(_fastmcp_validate, SchemaValidator(part), strict)
        prepare = _unchanged
        if schema_checked:
            prepare = partial(_schema_check, {**schema, "$defs": definitions})
        parameters.append(ProbedParameter(key, schema, definitions, prepare, validate))
    return parameters


def _unchanged(value: Any) -> Any:
    return value


class SchemaRefused(Exception):
    """The server's JSON-schema check refused the argument before validation."""


def _schema_check(schema: dict[str, Any], value: Any) -> Any:
    # As the mcp low-level server that fastmcp 2.x's strict mode turns on: jsonschema.validate
    # against the advertised input schema (Draft 2020-12, where 5.0 is an integer).
    import jsonschema

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(value)
    )
    if error is not None:
        raise SchemaRefused(f"Input validation error: {error.message}")
    return value


def _fastmcp_validate(validator: Any, strict: bool, value: Any) -> Any:
    # As fastmcp 4.x's function_tool._validate_input: a strict server validates JSON data as
    # JSON in strict mode; otherwise Python validation keeps the parameters' own strictness.
    from pydantic_core import to_json

    if strict:
        return validator.validate_json(to_json(value), strict=True)
    return validator.validate_python(value)


def _run(coroutine_function: Callable[[], Any]) -> Any:
    # Imported here: the CLI loads this module for every command, and only `probe` runs loops.
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine_function())
    # Called from async code, such as an async test: its loop is busy running the caller.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine_function()).result()
