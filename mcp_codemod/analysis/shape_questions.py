"""The questions the first rules ask of a parameter's `Shape`: how the SDK treats a string
argument, how an integer is validated, which markers the value carries, whether it holds a
fixed-length tuple (an array without `items`), whether it is an array or object in the schema,
and, when the analysis cannot tell, why.

Each is a small function of the shape, held to what the SDKs do by tests/analysis and the
runtime tests. A rule that needs another distinction asks the shape in its own module.
"""

from __future__ import annotations

import json
from enum import Enum

from mcp_codemod.analysis.shapes import Kind, Shape


class Text(Enum):
    """How a parameter treats a string argument."""

    EXACT_STR = "exact-str"  # the field annotation is `str` itself: never pre-parsed
    ADMITS_STR = "admits-str"  # a str is valid, but the annotation is not exactly `str`
    ANY = "any"  # `Any`, `object` or no annotation
    NO_STR = "no-str"  # no text it takes is one the pre-parse changes
    UNKNOWN = "unknown"  # a name the analyzer cannot see through


class Integer(Enum):
    """How a parameter validates an integer argument."""

    NONE = "none"  # it takes no integer as such
    LAX = "lax"
    STRICT = "strict"


# pydantic strips `Annotated` before the SDK compares the field annotation with `str`: these
# reach the comparison as `str` itself.
_EXACT_STR = frozenset(
    (
        "builtins.str",
        "pydantic.StrictStr",
        "pydantic.types.StrictStr",
        "pydantic.constr",
        "pydantic.types.constr",
    )
)
# pydantic validates an iterable lazily: it takes a text up front (as an iterable of characters).
_LAZY = frozenset(
    f"{module}.Iterable" for module in ("typing", "typing_extensions", "collections.abc")
)
# The enums' members, bound once: every question runs for every parameter of every tool, and
# looking a member up on its class costs more than the rest of a question on Python 3.11.
_STR, _INT, _LITERAL, _UNION, _ANY, _UNKNOWN, _TUPLE = (
    Kind.STR,
    Kind.INT,
    Kind.LITERAL,
    Kind.UNION,
    Kind.ANY,
    Kind.UNKNOWN,
    Kind.TUPLE,
)
_STRUCTURED = (Kind.LIST, Kind.TUPLE, Kind.DICT, Kind.MODEL)  # a tuple: a member's hash is Python's
_EXACT, _ADMITS, _ANY_TEXT, _NO_STR, _UNKNOWN_TEXT = (
    Text.EXACT_STR,
    Text.ADMITS_STR,
    Text.ANY,
    Text.NO_STR,
    Text.UNKNOWN,
)
_NO_INTEGER, _LAX, _STRICT = Integer.NONE, Integer.LAX, Integer.STRICT


def text_treatment(shape: Shape) -> Text:
    """How the SDK treats a string argument: it never pre-parses one for a bare `str` at the top
    (possibly annotated; not through a PEP 695 alias, not in a union)."""
    if shape.kind is _STR and shape.source in _EXACT_STR and not shape.type_alias:
        return _EXACT
    return _text(shape)


def _text(shape: Shape) -> Text:
    kind = shape.kind
    if kind is _STR:
        text = _ADMITS
    elif kind is _LITERAL:
        changed = any(_pre_parse_changes(constant) for constant in shape.constants)
        text = _ADMITS if changed else _NO_STR
    elif kind is _UNION:
        # Lists, not sets: an enum member's hash is computed in Python.
        texts = [_text(member) for member in shape.args]
        if _ANY_TEXT in texts:
            return _ANY_TEXT
        if _ADMITS not in texts:
            return _UNKNOWN_TEXT if _UNKNOWN_TEXT in texts else _NO_STR
        text = _ADMITS
    elif kind is _ANY:
        return _ANY_TEXT
    elif kind is _UNKNOWN:
        return _UNKNOWN_TEXT
    else:
        return _NO_STR
    # As a `Literal` of plain words: no text it takes is one the SDK decodes.
    return _NO_STR if shape.refuses_pre_parsed else text


def _pre_parse_changes(value: object) -> bool:
    """Whether the SDK's pre-parse replaces this string: only when it decodes to JSON null, an
    array or an object (numbers and booleans are put back as the string)."""
    if not isinstance(value, str):
        return False
    try:
        decoded = json.loads(value)
    except (ValueError, RecursionError):
        return False
    return decoded is None or isinstance(decoded, list | dict)


def integer_validation(shape: Shape, strict: bool = False) -> Integer:
    """How an integer argument is validated: at the top or as a union member, strictly where
    the member or anything around it up to the top says so (`Annotated[int | None, Strict()]`)."""
    kind = shape.kind
    if kind is _INT:
        return _STRICT if strict or shape.strict else _LAX
    if kind is not _UNION:
        return _NO_INTEGER
    strict = strict or shape.strict
    answers = [integer_validation(member, strict) for member in shape.args]
    if _STRICT in answers:
        return _STRICT
    return _LAX if _LAX in answers else _NO_INTEGER


def markers(shape: Shape) -> frozenset[str]:
    """The run-time markers on the value: in its `Annotated`, or a union member's."""
    if shape.kind is not _UNION:
        return shape.markers
    return shape.markers.union(*(markers(member) for member in shape.args))


def has_fixed_tuple(shape: Shape, covered_by: str) -> bool:
    """Whether a fixed-length tuple anywhere in it (items, values, members, a project model's
    fields) gets an array schema with `prefixItems` and no `items` from pydantic, unless a node
    around it carries the marker `covered_by`, which walks the whole schema below it."""
    if not shape.args:  # most parameters: nothing to walk
        return shape.kind is _TUPLE and not shape.variadic and covered_by not in shape.markers
    seen: set[int] = set()  # a shape met twice (an alias, a model) has the same answer
    pending = [shape]
    while pending:
        node = pending.pop()
        if covered_by in node.markers or id(node) in seen:
            continue
        seen.add(id(node))
        if node.kind is _TUPLE and not node.variadic:
            return True
        pending.extend(node.args)
    return False


def is_structured(shape: Shape) -> bool:
    """Whether the value is an array or an object in the JSON schema that validation refuses a
    text for (a list, dict, set, tuple or model; not a lazily validated `Iterable`), at the top
    or as a union member."""
    if shape.kind is _UNION:
        return any(is_structured(member) for member in shape.args)
    return shape.kind in _STRUCTURED and shape.source not in _LAZY


def unknown_reason(shape: Shape) -> str:
    """For a value whose treatment of text is `Text.UNKNOWN`: what the analysis could not see
    through, as the message that lists the parameter unchecked says it (the first such member
    of a union)."""
    if shape.kind is _UNION:
        for member in shape.args:
            if _text(member) is _UNKNOWN_TEXT:
                return unknown_reason(member)
    return shape.opaque
