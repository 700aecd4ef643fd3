"""What OpenAI strict mode makes of a tool's listed input schema, read as the OpenAI Agents SDK
converts it (`ensure_strict_json_schema`, with open objects refused as for every MCP tool with
properties): the objects and `$ref`s it cannot convert (it then sends the tool non-strict), a
tool without arguments (an open object too), the optional arguments whose default strict mode
never gives (every property becomes required), and the formats the OpenAI API refuses in a
strict schema. The live counterpart of mcp-codemod's OpenAI strict-mode rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp_codemod.probe.results import StrictModeProblem
from mcp_codemod.rules.schema_nodes import pointer, schema_nodes, types

# What a problem is (`StrictModeProblem.kind`).
OPEN_OBJECT = "open-object"
UNCONVERTED_REF = "unconverted-ref"
NO_ARGUMENTS = "no-arguments"
UNUSED_DEFAULT = "unused-default"
REFUSED_FORMAT = "refused-format"


# The keywords the Agents SDK merges into a `$ref`'s target when it inlines it
# (`_REF_NON_CONSTRAINING_SIBLINGS`); any other keyword beside a `$ref` stops the conversion.
_BESIDE_REF = frozenset(
    (
        *("$anchor", "$comment", "$defs", "$schema", "contentEncoding", "contentMediaType"),
        *("contentSchema", "default", "definitions", "deprecated", "description", "examples"),
        *("readOnly", "title", "writeOnly"),
    )
)
_ABSENT = object()


def strict_mode_problems(tool: str, input_schema: dict[str, Any]) -> Iterator[StrictModeProblem]:
    # Imported here: the runtime imports pydantic, which importing the probe must not.
    from mcp_codemod.runtime.guards import OPENAI_STRICT_FORMATS

    properties = input_schema.get("properties") or {}
    if not properties and input_schema.get("additionalProperties") is not False:
        yield StrictModeProblem(tool, "", NO_ARGUMENTS, "")
    definitions = input_schema.get("$defs", {})
    required = set(input_schema.get("required") or ())
    for key, schema in properties.items():
        path = f"/properties/{pointer(key)}"
        for kind, where in _unconverted(schema, path, definitions, set()):
            yield StrictModeProblem(tool, key, kind, where)
        for where, node in schema_nodes(schema, path, definitions, set()):
            if isinstance(node.get("format"), str) and node["format"] not in OPENAI_STRICT_FORMATS:
                yield StrictModeProblem(tool, key, REFUSED_FORMAT, where, node["format"])
        if key not in required and isinstance(schema, dict):
            default = schema.get("default", _ABSENT)
            if default is None and _admits_null(schema):
                continue  # the model sends null, which is the default
            shown = "a value its factory makes" if default is _ABSENT else repr(default)
            yield StrictModeProblem(tool, key, UNUSED_DEFAULT, path, shown)


def _unconverted(
    schema: Any, path: str, definitions: dict[str, Any], seen: set[str]
) -> Iterator[tuple[str, str]]:
    """Where the Agents SDK stops converting the schema: an open object, a `$ref` alone (or
    with a keyword it does not merge). A `$ref` with only merged keywords beside it is inlined,
    and its target judged."""
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        beside = set(schema) - {"$ref"}
        if schema.get("default", _ABSENT) is None:
            beside.discard("default")  # dropped before the `$ref` is judged
        if not beside or beside - _BESIDE_REF or not ref.startswith("#/$defs/"):
            yield UNCONVERTED_REF, path
            return
        name = ref.removeprefix("#/$defs/")
        if ref not in seen:
            seen.add(ref)
            yield from _unconverted(definitions.get(name), f"/$defs/{name}", definitions, seen)
        return
    if "object" in types(schema):
        extra = schema.get("additionalProperties", _ABSENT)
        declared = bool(schema.get("properties"))
        if (extra is not _ABSENT and extra is not False) or (not declared and extra is not False):
            yield OPEN_OBJECT, path
    for name, child in (schema.get("properties") or {}).items():
        yield from _unconverted(child, f"{path}/properties/{pointer(name)}", definitions, seen)
    if isinstance(schema.get("items"), dict):
        yield from _unconverted(schema["items"], f"{path}/items", definitions, seen)
    for key in ("anyOf", "oneOf", "allOf"):
        for index, child in enumerate(schema.get(key) or ()):
            yield from _unconverted(child, f"{path}/{key}/{index}", definitions, seen)


def _admits_null(schema: dict[str, Any]) -> bool:
    if "null" in types(schema) or not any(key in schema for key in ("type", "$ref", "anyOf")):
        return True
    return any(_admits_null(member) for member in schema.get("anyOf") or ())
