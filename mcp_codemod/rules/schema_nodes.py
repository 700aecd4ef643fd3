"""The nodes of a tool's listed input schema, through the local `$ref`s it uses, each with its
JSON pointer: what the rules' probe checks (`SchemaCheck`) and the probe's strict-mode reading
walk."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# The keywords whose values are schemas: `default`, `const`, `examples` hold data.
_SUBSCHEMA = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then")
_SUBSCHEMA += ("else", "unevaluatedItems", "unevaluatedProperties")
_SUBSCHEMA_LISTS = ("prefixItems", "anyOf", "oneOf", "allOf")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")


def schema_nodes(
    schema: Any, path: str, definitions: dict[str, Any], seen: set[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, node) for the node and every node below it; a definition it refers to comes
    under its own pointer (`/$defs/Region/...`), once per `seen`."""
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref not in seen:
        seen.add(ref)
        name = ref.removeprefix("#/$defs/")
        yield from schema_nodes(definitions.get(name), f"/$defs/{name}", definitions, seen)
    yield path, schema
    for key in _SUBSCHEMA:
        yield from schema_nodes(schema.get(key), f"{path}/{key}", definitions, seen)
    for key in _SUBSCHEMA_LISTS:
        for index, child in enumerate(schema.get(key, ())):
            yield from schema_nodes(child, f"{path}/{key}/{index}", definitions, seen)
    for key in _SUBSCHEMA_MAPS:
        for name, child in schema.get(key, {}).items():
            yield from schema_nodes(child, f"{path}/{key}/{pointer(name)}", definitions, seen)


def parameter_nodes(input_schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(parameter, pointer, node) for every node of each parameter's schema (`schema_nodes`)."""
    definitions = input_schema.get("$defs", {})
    for key, schema in input_schema.get("properties", {}).items():
        for path, node in schema_nodes(schema, f"/properties/{pointer(key)}", definitions, set()):
            yield key, path, node


def nodes_typed_by_clients(
    input_schema: dict[str, Any],
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(parameter, pointer, node) for each parameter's schema, its union members and its array
    items, recursively: where clients look for a type (not a dictionary's values, not `$defs`)."""
    for key, schema in input_schema.get("properties", {}).items():
        for path, node in _typed_by_clients(schema, f"/properties/{pointer(key)}"):
            yield key, path, node


def _typed_by_clients(schema: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(schema, dict):
        return
    yield path, schema
    if isinstance(schema.get("items"), dict):
        yield from _typed_by_clients(schema["items"], f"{path}/items")
    for key in ("prefixItems", "anyOf", "oneOf"):
        for index, child in enumerate(schema.get(key, ())):
            yield from _typed_by_clients(child, f"{path}/{key}/{index}")


def pointer(name: str) -> str:
    """A property name as a JSON pointer segment."""
    return name.replace("~", "~0").replace("/", "~1")


def types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)
