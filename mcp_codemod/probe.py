"""`mcp-codemod probe`: a live server's own argument handling, run on values it is known to mangle.

Static analysis cannot see tools registered at run time or shipped by other packages. The probe
imports the server and, for every registered tool and parameter, runs what the framework does to
a tools/call argument before the tool is called: the mcp SDK's JSON pre-parse as the server has it
(so `guard()`, the guarded classes and `install()` count), then the validator pydantic compiled
for that parameter. Each parameter is validated alone, so required parameters need no filler
values, and the tool body is never called. See docs/probe.md for what counts as a problem.

The command line (`mcp_codemod.cli`) imports this module, so at import time it needs only the
standard library: the frameworks and pydantic are imported when a server is probed (a pre-commit
hook's environment has neither). The formatters are in `mcp_codemod.report`.
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from mcp_codemod.project import module_name

TEXT_PROBES = ("null", "[1]", '{"a": 1}')
"""Sent to every parameter that takes them as text: the mcp SDK decodes each into None/list/dict."""

WHOLE_NUMBER = 5
"""Sent as `5.0` to every integer parameter, as clients that hold numbers as float64 do."""

# What a problem is about; the kind also says which fix applies.
TEXT = "text"
"""A string argument for a parameter that takes strings does not arrive as that string."""
WHOLE_FLOAT = "whole-float"
"""`5.0` for an integer parameter does not arrive as `5`."""
JSON_TEXT = "json-text"
"""A structured value sent as its JSON text is rejected or changed."""


class TargetError(Exception):
    """The probe target cannot be imported, or names nothing."""


class NotAServerError(TypeError):
    """The object is not a server the probe knows."""


@dataclass(frozen=True)
class Problem:
    """One argument that does not reach the tool as sent."""

    tool: str
    parameter: str
    kind: str
    """TEXT, WHOLE_FLOAT or JSON_TEXT."""
    sent: Any
    """The argument as the client sends it (a JSON value)."""
    received: Any = None
    """What the tool would receive, when validation accepted the argument."""
    error: str | None = None
    """Why validation rejected the argument; None when it was accepted but changed."""

    @property
    def outcome(self) -> str:
        return "changed" if self.error is None else "rejected"

    def describe(self) -> str:
        return repr(self.received) if self.error is None else f"rejected: {self.error}"


@dataclass(frozen=True)
class ArrayWithoutItems:
    """An array in a tool's input schema without `items`, which VS Code's MCP client refuses."""

    tool: str
    parameter: str
    path: str
    """Where the array is, as a JSON pointer into the tool's input schema."""


@dataclass(frozen=True)
class ProbeReport:
    """What probing one server found."""

    server: str
    framework: str
    tools: tuple[str, ...]
    """The tools that were probed, in registration order."""
    problems: tuple[Problem, ...]
    arrays_without_items: tuple[ArrayWithoutItems, ...] = ()
    not_probed: tuple[tuple[str, str], ...] = ()
    """(tool, reason) for tools whose argument handling the probe cannot reproduce."""

    @property
    def failed(self) -> bool:
        return bool(self.problems or self.arrays_without_items)

    def summary(self) -> str:
        return f"probed {_count(len(self.tools), 'tool')} of {self.server!r}, {self.framework}"


@dataclass(frozen=True)
class _Parameter:
    key: str
    """The argument name clients send: the input schema's property."""
    schema: dict[str, Any]
    definitions: dict[str, Any]
    """The input schema's `$defs`, which `schema` may refer to."""
    prepare: Callable[[Any], Any]
    """What the framework does to the raw argument before validation."""
    validate: Callable[[Any], Any]
    """The parameter's compiled validator: the value the tool gets, or an exception."""


class _NotProbed(Exception):
    """Why the probe cannot reproduce a tool's argument handling."""


def probe_server(server: Any) -> ProbeReport:
    """Probe every registered tool of an mcp `FastMCP` / `MCPServer` or a `fastmcp.FastMCP`."""
    framework, tools, parameters_of = _inspect(server)
    probed: list[str] = []
    problems: list[Problem] = []
    arrays: list[ArrayWithoutItems] = []
    not_probed: list[tuple[str, str]] = []
    for name, tool in tools:
        # The schema is what clients judge, whether or not the arguments can be probed.
        arrays.extend(_arrays_without_items(name, tool.parameters))
        try:
            parameters = parameters_of(tool)
        except _NotProbed as reason:
            not_probed.append((name, str(reason)))
            continue
        probed.append(name)
        for parameter in parameters:
            problems.extend(_probe(name, parameter))
    return ProbeReport(
        str(getattr(server, "name", type(server).__name__)),
        framework,
        tuple(probed),
        tuple(problems),
        tuple(arrays),
        tuple(not_probed),
    )


def _probe(tool: str, parameter: _Parameter) -> Iterator[Problem]:
    # Each probe is (kind, sent, intended): what the client sends, and the value it means. The
    # tool should get what the parameter's own validator makes of the intended value; a value
    # the validator refuses anyway (a string for list[str], text outside a Literal) is not probed.
    probes: list[tuple[str, Any, Any]] = [(TEXT, text, text) for text in TEXT_PROBES]
    integer = _integer_schema(parameter.schema)
    if integer is not None:
        number = _whole_number(integer)
        probes.append((WHOLE_FLOAT, float(number), number))
    structured = _structured_example(parameter)
    if structured is not None:
        probes.append((JSON_TEXT, json.dumps(structured), structured))
    for kind, sent, intended in probes:
        try:
            expected = parameter.validate(intended)
        except Exception:
            continue
        if kind == TEXT and not isinstance(expected, str):
            continue  # text the parameter decodes (DecodeJsonText) is not text it takes
        prepared = sent
        try:
            prepared = parameter.prepare(sent)
            received = parameter.validate(prepared)
        except Exception as error:
            message = _error_message(error)
            if not _same(prepared, sent):
                message += f" (the validator got {prepared!r})"
            yield Problem(tool, parameter.key, kind, sent, error=message)
            continue
        if not _same(received, expected):
            yield Problem(tool, parameter.key, kind, sent, received=received)


def _structured_example(parameter: _Parameter) -> Any:
    """A small array or object the parameter takes, unless it takes text: then its JSON text
    is text, and the TEXT probes cover it."""
    try:
        taken = parameter.validate("[]")
    except Exception:
        taken = None
    if isinstance(taken, str):
        return None
    resolved = _resolve(parameter.schema, parameter.definitions)
    for branch in [resolved, *resolved.get("anyOf", ()), *resolved.get("oneOf", ())]:
        branch = _resolve(branch, parameter.definitions)
        if {"array", "object"} & set(_types(branch)):
            return _example(branch, parameter.definitions, depth=0)
    return None


def _resolve(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return definitions.get(ref.removeprefix("#/$defs/"), {})
    return schema


_EXAMPLE_DEPTH = 8
"""Recursive models end in None here; the validator then refuses the example, and it is skipped."""


def _example(schema: dict[str, Any], definitions: dict[str, Any], depth: int) -> Any:
    schema = _resolve(schema, definitions)
    if depth > _EXAMPLE_DEPTH:
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    branches = [b for b in (*schema.get("anyOf", ()), *schema.get("oneOf", ())) if b]
    non_null = [b for b in branches if _types(_resolve(b, definitions)) != ["null"]]
    if non_null:
        return _example(non_null[0], definitions, depth + 1)
    kinds = [kind for kind in _types(schema) if kind != "null"]
    kind = kinds[0] if kinds else None
    if kind == "array":
        if "prefixItems" in schema:
            return [_example(item, definitions, depth + 1) for item in schema["prefixItems"]]
        count = min(max(schema.get("minItems", 1), 1), schema.get("maxItems", 1))
        return [_example(schema.get("items", {}), definitions, depth + 1)] * count
    if kind == "object":
        properties = schema.get("properties", {})
        if not properties and isinstance(schema.get("additionalProperties"), dict):
            return {"a": _example(schema["additionalProperties"], definitions, depth + 1)}
        return {
            name: _example(properties[name], definitions, depth + 1)
            for name in schema.get("required", ())
            if name in properties
        }
    if kind in ("integer", "number"):
        return _whole_number(schema)
    if kind == "string":
        return "a" * max(schema.get("minLength", 1), 1)
    if kind == "boolean":
        return True
    return None


def _arrays_without_items(tool: str, input_schema: dict[str, Any]) -> Iterator[ArrayWithoutItems]:
    definitions = input_schema.get("$defs", {})
    for key, schema in input_schema.get("properties", {}).items():
        yield from (
            ArrayWithoutItems(tool, key, path)
            for path in _array_paths(schema, f"/properties/{_pointer(key)}", definitions, set())
        )


# The keywords whose values are schemas: `default`, `const`, `examples` hold data.
_SUBSCHEMA = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then")
_SUBSCHEMA += ("else", "unevaluatedItems", "unevaluatedProperties")
_SUBSCHEMA_LISTS = ("prefixItems", "anyOf", "oneOf", "allOf")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")


def _array_paths(
    schema: Any, path: str, definitions: dict[str, Any], seen: set[str]
) -> Iterator[str]:
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref not in seen:
        seen.add(ref)
        name = ref.removeprefix("#/$defs/")
        yield from _array_paths(definitions.get(name), f"/$defs/{name}", definitions, seen)
    if "array" in _types(schema) and "items" not in schema:
        yield path
    for key in _SUBSCHEMA:
        yield from _array_paths(schema.get(key), f"{path}/{key}", definitions, seen)
    for key in _SUBSCHEMA_LISTS:
        for index, child in enumerate(schema.get(key, ())):
            yield from _array_paths(child, f"{path}/{key}/{index}", definitions, seen)
    for key in _SUBSCHEMA_MAPS:
        for name, child in schema.get(key, {}).items():
            yield from _array_paths(child, f"{path}/{key}/{_pointer(name)}", definitions, seen)


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _error_message(error: Exception) -> str:
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        first = error.errors(include_url=False)[0]
        return f"{first['msg']} [{first['type']}]"
    if isinstance(error, _SchemaRefused):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _integer_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The branch of a property's schema that takes integers, unless it takes any number."""
    branches = [schema, *schema.get("anyOf", ()), *schema.get("oneOf", ())]
    typed = [(branch, kind) for branch in branches for kind in _types(branch)]
    if any(kind == "number" for _, kind in typed):
        return None
    return next((branch for branch, kind in typed if kind == "integer"), None)


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _whole_number(schema: dict[str, Any]) -> int:
    # Within the parameter's bounds, so that `Field(ge=10)` is probed with 10.0, not refused 5.0.
    number = WHOLE_NUMBER
    if "minimum" in schema:
        number = max(number, math.ceil(schema["minimum"]))
    if "exclusiveMinimum" in schema:
        number = max(number, math.floor(schema["exclusiveMinimum"]) + 1)
    if "maximum" in schema:
        number = min(number, math.floor(schema["maximum"]))
    if "exclusiveMaximum" in schema:
        number = min(number, math.ceil(schema["exclusiveMaximum"]) - 1)
    return number


# Frameworks. Their classes are looked up in sys.modules: a server's module has imported its
# framework already, and importing the others could fail (mcp 2.x has no mcp.server.fastmcp).


_Inspection = tuple[str, list[tuple[str, Any]], Callable[[Any], list[_Parameter]]]
"""The framework's name, the (name, tool) pairs, and how to get a tool's parameters."""


_SERVER_CLASSES = (
    ("fastmcp", "FastMCP", "fastmcp"),
    ("mcp.server.fastmcp", "FastMCP", "mcp 1.x FastMCP"),
    ("mcp.server.mcpserver", "MCPServer", "mcp 2.x MCPServer"),
)


def _framework(value: Any) -> str | None:
    for module, class_name, framework in _SERVER_CLASSES:
        server_class = getattr(sys.modules.get(module), class_name, None)
        if isinstance(server_class, type) and isinstance(value, server_class):
            return framework
    return None


def is_server(value: Any) -> bool:
    """Whether the probe can probe `value`: an mcp FastMCP / MCPServer or a fastmcp.FastMCP."""
    return _framework(value) is not None


def _inspect(server: Any) -> _Inspection:
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


def _mcp_parameters(tool: Any) -> list[_Parameter]:
    # The SDK runs metadata.pre_parse_json(arguments), then arg_model.model_validate(...)
    # (call_fn_with_arg_validation in 1.x, validate_arguments in 2.x). The pre-parse treats each
    # argument on its own, and each field has its own compiled validator.
    metadata = tool.fn_metadata
    model = metadata.arg_model
    names = {info.alias or name: name for name, info in model.model_fields.items()}
    return [
        _Parameter(
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

    def parameters_of(tool: Any) -> list[_Parameter]:
        if not isinstance(tool, FunctionTool):
            raise _NotProbed(f"a {type(tool).__name__}, not a FunctionTool")
        return _fastmcp_parameters(tool, strict and not schema_strict, schema_strict)

    return framework, tools, parameters_of


async def _fastmcp_tools(server: Any) -> list[tuple[str, Any]]:
    if hasattr(server, "get_tools"):  # fastmcp 2.x: keyed by the name clients call
        return list((await server.get_tools()).items())
    return [(tool.name, tool) for tool in await server.list_tools()]


def _fastmcp_parameters(tool: Any, strict: bool, schema_checked: bool) -> list[_Parameter]:
    # fastmcp validates with a TypeAdapter built from the function (FunctionTool.run). Its call
    # schema calls the function; each parameter's own schema inside it does not.
    from fastmcp.server.dependencies import without_injected_parameters
    from fastmcp.utilities.types import get_cached_typeadapter
    from pydantic_core import SchemaValidator

    core = get_cached_typeadapter(without_injected_parameters(tool.fn)).core_schema
    call = core["schema"] if core["type"] == "definitions" else core
    if call["type"] != "call" or call["arguments_schema"]["type"] != "arguments":
        raise _NotProbed(f"its validator is a {call['type']!r} schema, not a function call")
    schemas = {}
    for argument in call["arguments_schema"]["arguments_schema"]:
        alias = argument.get("alias")
        schemas[alias if isinstance(alias, str) else argument["name"]] = argument["schema"]
    parameters = []
    definitions = tool.parameters.get("$defs", {})
    for key, schema in tool.parameters.get("properties", {}).items():
        if key not in schemas:
            raise _NotProbed(f"its input schema has {key!r}, which its function does not take")
        part = dict(core, schema=schemas[key]) if core["type"] == "definitions" else schemas[key]
        validate = partial(_fastmcp_validate, SchemaValidator(part), strict)
        prepare = _unchanged
        if schema_checked:
            prepare = partial(_schema_check, {**schema, "$defs": definitions})
        parameters.append(_Parameter(key, schema, definitions, prepare, validate))
    return parameters


def _unchanged(value: Any) -> Any:
    return value


class _SchemaRefused(Exception):
    """The server's JSON-schema check refused the argument before validation."""


def _schema_check(schema: dict[str, Any], value: Any) -> Any:
    # As the mcp low-level server that fastmcp 2.x's strict mode turns on: jsonschema.validate
    # against the advertised input schema (Draft 2020-12, where 5.0 is an integer).
    import jsonschema

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(value)
    )
    if error is not None:
        raise _SchemaRefused(f"Input validation error: {error.message}")
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


# Loading a target.


def load_target(target: str) -> Any:
    """The object named by `path/to/server.py[:attr]` or `package.module[:attr]`; without
    `:attr`, the one server defined or imported at the module's top level."""
    where, colon, attribute = target.rpartition(":")
    if not colon:
        where, attribute = target, ""
    if not where or (colon and not attribute):
        raise TargetError(f"{target!r} is not MODULE[:ATTRIBUTE] or PATH.py[:ATTRIBUTE]")
    if where.endswith(".py") or "/" in where or "\\" in where:
        module, name = _load_file(Path(where))
    else:
        module, name = _import(where), where
    if not attribute:
        return _only_server(module, where)
    found = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise TargetError(f"module {name} has no attribute {attribute!r}") from None
    return found


def _load_file(path: Path) -> tuple[Any, str]:
    if not path.is_file():
        raise TargetError(f"{path}: no such file")
    name, root, _ = module_name(path)
    # The package root makes relative imports work; the file's own directory, the sibling
    # imports of a script that is run directly.
    for directory in (str(path.resolve().parent), str(root)):
        if directory not in sys.path:
            sys.path.insert(0, directory)
    if not path.stem.isidentifier():
        # `server.orig.py`, `my-server.py`: no import statement can name it, so it is loaded
        # from its path, under its package (for relative imports) and an identifier of its own.
        stem = "".join(c if c.isalnum() else "_" for c in path.stem)
        name = f"{module_name(path.parent / '__init__.py')[0]}.{stem}".lstrip(".")
        return _load_path(path, name), name
    module = _import(name)
    if Path(getattr(module, "__file__", "") or "").resolve() != path.resolve():
        raise TargetError(f"{path}: the module name {name!r} is taken by {module.__file__}")
    return module, name


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit) as error:
        raise TargetError(f"cannot import {name}: {type(error).__name__}: {error}") from error


def _load_path(path: Path, name: str) -> Any:
    import importlib.util

    loaded = sys.modules.get(name)
    if (
        loaded is not None
        and Path(getattr(loaded, "__file__", "") or "").resolve() == path.resolve()
    ):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file always has a source loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        del sys.modules[name]
        raise TargetError(f"cannot import {path}: {type(error).__name__}: {error}") from error
    return module


def _only_server(module: Any, where: str) -> Any:
    servers: dict[int, tuple[str, Any]] = {}
    for attribute, value in vars(module).items():
        if is_server(value):
            servers.setdefault(id(value), (attribute, value))
    if len(servers) == 1:
        return next(iter(servers.values()))[1]
    if not servers:
        raise TargetError(
            f"{where} has no server at its top level (an mcp FastMCP, an mcp MCPServer or a "
            f"fastmcp.FastMCP); name one as {where}:ATTRIBUTE"
        )
    names = [attribute for attribute, _ in servers.values()]
    raise TargetError(
        f"{where} has {len(names)} servers ({', '.join(names)}); name one as {where}:{names[0]}"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
