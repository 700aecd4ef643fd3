"""`Annotated` markers for tool parameters (what an annotation declares about text, which the
markers and the guarded servers ask: `declared_text`)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Iterator
from types import UnionType
from typing import Annotated, Any, TypeGuard, Union, cast, get_args, get_origin

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, ValidationError, core_schema

from .declared_text import admits_str


def marked_no_pre_parse(annotation: Any, metadata: Iterable[Any] = ()) -> bool:
    """Whether `NoPreParse` is in `metadata` (pydantic's field metadata, where it puts the
    top-level `Annotated` extras) or on the annotation, a member of its union or its alias.
    A marker deeper inside (`list[Annotated[str, NoPreParse]]`) is not about the argument."""
    if any(item is NoPreParse for item in metadata):
        return True
    if type(annotation).__name__ == "TypeAliasType":
        return marked_no_pre_parse(annotation.__value__)
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extras = get_args(annotation)
        return marked_no_pre_parse(inner, extras)
    if origin is Union or origin is UnionType:
        return any(marked_no_pre_parse(arg) for arg in get_args(annotation))
    return False


class NoPreParse:
    """Marks a parameter whose string arguments must reach the tool as sent.

    `query: Annotated[str | None, NoPreParse] = None`, `value: Annotated[Any, NoPreParse]`. The
    marker changes neither validation nor the JSON schema: the SDK decodes a string before any
    validator could see it, so only a guarded server (`GuardedFastMCP`, `GuardedMCPServer`,
    `guard()`, `install()`) can keep the text. A guarded server keeps it anyway for a parameter
    whose type declares text; for one that takes anything (`Any`, `object`, no annotation) the
    marker is what makes it keep the text. `mcp-codemod check` treats a marked parameter as
    handled.
    """


class AcceptWholeFloat:
    """Marks an integer parameter that also accepts a whole float (`5.0`) and, unless it takes
    text, the integer's decimal text (`"5"`): both arrive as `5`.

    Clients that hold every JSON number as a float send `5.0`; others send numbers as text.
    Strict validation (`StrictInt`, `Field(strict=True)`, fastmcp `strict_input_validation=True`)
    rejects both. The conversion runs before the parameter's own validation, so it works in lax
    and strict mode and leaves the JSON schema as it was. A fractional float, `nan`, `inf` and
    booleans are rejected. On a parameter that takes text (`StrictInt | str`) a string is left
    as it is: it is text the parameter takes.
    """

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        convert = _whole_float_to_int if admits_str(source) else _integer_form_to_int
        return core_schema.no_info_before_validator_function(convert, handler(source))


def _whole_float_to_int(value: Any) -> Any:
    # bool is checked first because lax int validation would otherwise take True as 1.
    if isinstance(value, bool):
        raise PydanticCustomError(
            "int_type", "Input should be an integer, not the boolean {value}", {"value": str(value)}
        )
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise PydanticCustomError(
            "int_from_float",
            "Input should be a whole number, got {value}",
            {"value": repr(value)},
        )
    return value


def _integer_form_to_int(value: Any) -> Any:
    # Lax validation takes the text as its integer anyway; strict validation refuses it.
    return _digits_to_int(_whole_float_to_int(value))


DIGITS_PATTERN = "^-?[0-9]+$"


class AcceptDigitText:
    """Marks an integer parameter that also accepts its value as a string of decimal digits.

    Clients that hold JSON numbers as float64 (JavaScript, and many others) round integers
    above 2**53 before the server sees them; sent as text, `"9007199254740993"` keeps every
    digit. The marker advertises the text form in the JSON schema (an `anyOf` of the integer and
    a string of digits) and turns such a string into the integer before the parameter's own
    validation, in lax and strict mode. It changes only what was refused before: lax validation
    already took a digit string as its integer, strict validation refused it.
    """

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_before_validator_function(_digits_to_int, handler(source))

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        _add_digit_text(json_schema)
        return json_schema


def _digits_to_int(value: Any) -> Any:
    if isinstance(value, str) and re.fullmatch(DIGITS_PATTERN[1:-1], value, re.ASCII):
        return int(value)
    return value


_DIGIT_TEXT = {"type": "string", "pattern": DIGITS_PATTERN}
# What describes the parameter as a whole stays on it; the rest describes the integer.
_ANNOTATIONS = ("title", "description", "default", "examples", "deprecated")


def _as_node(value: Any) -> dict[str, Any] | None:
    """`value` if it is a node of a generated JSON schema (an object), else None."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


def _is_list(value: Any) -> TypeGuard[list[Any]]:
    return isinstance(value, list)


def _add_digit_text(schema: dict[str, Any]) -> None:
    members = schema.get("anyOf")
    if _is_list(members):
        for index, member in enumerate(members):
            node = _as_node(member)
            if node is not None and node.get("type") == "integer":
                members.insert(index + 1, dict(_DIGIT_TEXT))
                return
        return
    if schema.get("type") == "integer":
        integer = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
        for key in integer:
            del schema[key]
        schema["anyOf"] = [integer, dict(_DIGIT_TEXT)]


class _JsonSchemaMarker:
    """A marker that rewrites its parameter's generated JSON schema (`rewrite`) and leaves
    validation as it was."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return _own_node(handler(source))

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        cls.rewrite(json_schema, handler)
        return json_schema

    @staticmethod
    def rewrite(json_schema: JsonSchemaValue, handler: GetJsonSchemaHandler) -> None:
        raise NotImplementedError


class ArrayItemsSchema(_JsonSchemaMarker):
    """Marks a parameter whose JSON schema must give every array an `items` schema.

    pydantic describes a fixed-length tuple (`tuple[int, int]`) with `prefixItems` and no `items`,
    and VS Code's MCP client refuses a tool with such an array ("tool parameters array type must
    have items"). The marker walks the parameter's whole generated schema, including the `$defs`
    it refers to (a tuple inside a model), and gives each array without `items` the union of its
    prefix item schemas. The array's length bounds already allow no extra items, so the schema
    admits exactly what it did; validation is not touched.
    """

    @staticmethod
    def rewrite(json_schema: JsonSchemaValue, handler: GetJsonSchemaHandler) -> None:
        for node in _nodes(json_schema, handler, set()):
            kind = node.get("type")
            is_array = kind == "array" or (isinstance(kind, list) and "array" in kind)
            if is_array and "items" not in node:
                node["items"] = _union(node.get("prefixItems", []))


def _own_node(schema: CoreSchema) -> CoreSchema:
    """A copy of the schema's top node, for pydantic to attach this parameter's JSON hook to.

    A model's schema (a recursive one is returned as is) is shared with every other use of the
    model, and pydantic records an annotation's JSON hook in the metadata of the schema it
    annotates: on the shared node, the hook would apply to unmarked parameters too.
    """
    metadata = {
        key: list(value) if _is_list(value) else value
        for key, value in schema.get("metadata", {}).items()
    }
    return cast("CoreSchema", {**schema, "metadata": metadata})


# The keywords whose values are schemas (or lists or maps of schemas), so that data such as
# `default`, `const` or `examples` is never mistaken for a schema and rewritten.
_SUBSCHEMA = (
    *("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then"),
    *("else", "unevaluatedItems", "unevaluatedProperties"),
)
_SUBSCHEMA_LISTS = ("prefixItems", "anyOf", "oneOf", "allOf")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs")


def _nodes(
    schema: Any, handler: GetJsonSchemaHandler, seen_refs: set[str]
) -> Iterator[dict[str, Any]]:
    """Every node of a generated schema, through the `$defs` it refers to, each before its
    children (which a caller may add to)."""
    node = _as_node(schema)
    if node is None:
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and ref not in seen_refs:
        seen_refs.add(ref)
        try:
            definition = handler.resolve_ref_schema({"$ref": ref})
        except LookupError:
            # A recursive model still being generated: a marker on the parameter that uses the
            # model walks its definition once it is complete.
            definition = None
        yield from _nodes(definition, handler, seen_refs)
    yield node
    children = [node.get(key) for key in _SUBSCHEMA]
    children += [item for key in _SUBSCHEMA_LISTS for item in node.get(key, ())]
    children += [item for key in _SUBSCHEMA_MAPS for item in node.get(key, {}).values()]
    for child in children:
        yield from _nodes(child, handler, seen_refs)


def _union(schemas: list[Any]) -> dict[str, Any]:
    distinct: list[Any] = []
    for schema in schemas:
        if schema not in distinct:
            distinct.append(schema)
    if len(distinct) == 1:
        return copy.deepcopy(distinct[0])
    # No prefix items (an empty tuple, whose maxItems is 0): any schema is as exact as another.
    return {"anyOf": copy.deepcopy(distinct)} if distinct else {}


JSON_TYPES = ["string", "number", "boolean", "object", "array", "null"]
"""Every JSON value's type; `integer` is left out, as `number` admits integers."""


class TypedSchema(_JsonSchemaMarker):
    """Marks a parameter whose JSON schema must give every node a `type`.

    `Any`, `object`, a bare `list` or `list[Any]` give schema nodes without `type` (`{}`), and
    on the mcp SDK a model is a `$ref` to its definition, without a `type` of its own. Gemini
    CLI's MCP client (up to 0.7) drops a tool with such a node; the OpenAI API refuses `{}` in
    strict mode. The marker gives each such node of the parameter's schema (the parameter, its
    union members, its array items) the explicit list of every JSON type, which admits exactly
    the values `{}` admits, and a `$ref` the type of its definition, which the definition
    requires anyway; validation is not touched. Nodes inside a model's definition, and
    dictionary values, are left alone: no client refuses them.

    Not for a model parameter with a description, a title or a default beside its `$ref`: the
    OpenAI Agents SDK inlines and converts such a `$ref`, and refuses one with a `type` beside
    it (`mcp-codemod check` does not add the marker there).
    """

    @staticmethod
    def rewrite(json_schema: JsonSchemaValue, handler: GetJsonSchemaHandler) -> None:
        _add_types(json_schema, handler)


# A node with one of these says what it admits without `type`.
_TYPING_KEYWORDS = ("type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "not")


def _add_types(value: Any, handler: GetJsonSchemaHandler) -> None:
    schema = _as_node(value)
    if schema is None:
        return
    if isinstance(schema.get("$ref"), str) and "type" not in schema:
        try:
            kind = handler.resolve_ref_schema({"$ref": schema["$ref"]}).get("type")
        except LookupError:  # a recursive model still being generated
            kind = None
        # As a list: pydantic removes from beside a field's `$ref` a keyword equal to the
        # definition's, and `["object"]` admits what `"object"` does.
        if isinstance(kind, str):
            schema["type"] = [kind]
    elif not any(key in schema for key in _TYPING_KEYWORDS):
        schema["type"] = list(JSON_TYPES)
    children = [schema.get("items"), *schema.get("prefixItems", ())]
    children += [*schema.get("anyOf", ()), *schema.get("oneOf", ())]
    for child in children:
        _add_types(child, handler)


OPENAI_STRICT_FORMATS = (
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
)
"""The `format` values OpenAI strict mode supports (its Structured Outputs guide, "Supported
properties")."""


class OpenAIStrictFormats(_JsonSchemaMarker):
    """Marks a parameter whose JSON schema keeps only the `format` values OpenAI strict mode
    supports.

    pydantic describes a URL (`AnyUrl`, `HttpUrl`) with `format: uri`, a path with `path`, a
    secret with `password`; the OpenAI API refuses a strict tool schema with a format outside
    its list ("'uri' is not a valid format"), and with it the whole request. The marker removes
    such formats from the parameter's schema, including the `$defs` it refers to. A format only
    describes: the parameter's pydantic validator does not read the schema, and the schema
    checks the SDKs run (fastmcp 2.x strict mode) do not assert formats; validation is not
    touched.
    """

    @staticmethod
    def rewrite(json_schema: JsonSchemaValue, handler: GetJsonSchemaHandler) -> None:
        for node in _nodes(json_schema, handler, set()):
            if "format" in node and node["format"] not in OPENAI_STRICT_FORMATS:
                del node["format"]


class DecodeJsonText:
    """Marks a structured or nullable parameter that also accepts its value sent as JSON text.

    Some clients send an array or object argument as its JSON text (`'[1271, 2106]'` for
    `list[int]`), and JSON null as the text `"null"`. The mcp SDK decodes such text itself, but
    the standalone fastmcp rejects it. With the marker, a string that the parameter rejects as
    it is and that is the JSON text of an array, an object or null is decoded and then
    validated as the parameter's value; any other string, and every other value, is validated
    as it is. A parameter that admits a string (`str | list[int]`) is left alone, since its
    text is text. The JSON schema is unchanged.
    """

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        if admits_str(source):
            return schema
        return core_schema.lax_or_strict_schema(
            # Lax: a value the parameter takes as it is stays as it is; decoding into Python
            # values loses nothing.
            lax_schema=core_schema.no_info_wrap_validator_function(_decode_json_text, schema),
            # Strict: a function validator would hand the parameter Python values, and strict
            # Python validation refuses a list for a tuple, also for an argument that is not
            # text at all. Choosing the branch instead keeps non-text input as it arrived, and
            # parses JSON text as JSON, where an array is a valid tuple, once the parameter
            # has refused the text as it is (a `Path` takes "null").
            strict_schema=core_schema.tagged_union_schema(
                {
                    "text": core_schema.union_schema(
                        [schema, core_schema.json_schema(schema)], mode="left_to_right"
                    ),
                    "value": schema,
                },
                discriminator=_json_text_or_value,
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # The schema of the parameter's own type, not of the branches above.
        if schema["type"] == "lax-or-strict":
            branches = cast("core_schema.TaggedUnionSchema", schema["strict_schema"])["choices"]
            return handler(branches["value"])
        return handler(schema)


_NOT_JSON_TEXT = object()


def _json_value(value: Any) -> Any:
    """The array, object or null that `value` is the JSON text of, else `_NOT_JSON_TEXT`."""
    if not isinstance(value, str):
        return _NOT_JSON_TEXT
    try:
        decoded = json.loads(value)
    except (ValueError, RecursionError):
        return _NOT_JSON_TEXT
    return decoded if _is_array_object_or_null(decoded) else _NOT_JSON_TEXT


def _is_array_object_or_null(decoded: Any) -> bool:
    # A function of its own: a type checker keeps `decoded` the `Any` that json.loads gives.
    return decoded is None or isinstance(decoded, list | dict)


def _decode_json_text(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> Any:
    decoded = _json_value(value)
    if decoded is _NOT_JSON_TEXT:
        return handler(value)
    try:
        return handler(value)
    except ValidationError:
        return handler(decoded)


def _json_text_or_value(value: Any) -> str:
    return "value" if _json_value(value) is _NOT_JSON_TEXT else "text"


class AcceptNumberAsText:
    """Marks a text parameter that also accepts an integer sent in place of its digits: `12345`
    arrives as `"12345"`.

    A client whose model sees no type for the parameter (Claude Code shows it an `Optional[str]`
    schema, an `anyOf` of string and null, as `{}`) sends digit-only text as a JSON number,
    which text validation rejects. With the marker, an integer the parameter rejects as it is
    is validated as its decimal text; every value the parameter takes as it is (`str | int`
    takes the integer) is left alone, booleans and floats included. The JSON schema is
    unchanged.
    """

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_wrap_validator_function(_number_as_text, handler(source))


def _number_as_text(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError as error:
        if not isinstance(value, int) or isinstance(value, bool):
            raise
        refused = error
    try:
        return handler(str(value))
    except ValidationError:
        raise refused from None
