"""The nodes of a tool's listed input schema, through the local `$ref`s it uses, each with its
JSON pointer: what the probe's schema checks walk."""

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


def pointer(name: str) -> str:
    """A property name as a JSON pointer segment."""
    return name.replace("~", "~0").replace("/", "~1")


def types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)
