"""`Annotated` markers for tool parameters, and the "admits a string" rule the server guards use."""

from __future__ import annotations

from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, PydanticCustomError, core_schema


def admits_str(annotation: Any) -> bool:
    """Whether a parameter annotated with `annotation` could accept a `str` value.

    `Any` counts (an unannotated parameter is `Any` to the SDKs): the tool asked for anything, and
    what was sent is a string.
    """
    # `type X = ...` (PEP 695, or typing_extensions.TypeAliasType) and NewType hide the real type.
    if type(annotation).__name__ == "TypeAliasType":
        return admits_str(annotation.__value__)
    if hasattr(annotation, "__supertype__"):
        return admits_str(annotation.__supertype__)
    origin = get_origin(annotation)
    if origin is Annotated:
        return admits_str(get_args(annotation)[0])
    if origin is Union or origin is UnionType:
        return any(admits_str(arg) for arg in get_args(annotation))
    if origin is Literal:
        return any(isinstance(arg, str) for arg in get_args(annotation))
    if origin is not None:
        return False
    return annotation is Any or (isinstance(annotation, type) and issubclass(annotation, str))


class NoPreParse:
    """Marks a text parameter whose string arguments must reach the tool as sent.

    `query: Annotated[str | None, NoPreParse] = None`. The marker changes neither validation nor
    the JSON schema: the SDK decodes a string before any validator could see it, so only a guarded
    server (`GuardedFastMCP`, `GuardedMCPServer`, `guard()`, `install()`) can keep the text. It
    states the parameter's contract where the annotation is read, and `mcp-codemod check` treats
    a marked parameter as handled.
    """


class AcceptWholeFloat:
    """Marks an integer parameter that also accepts a whole float: `5.0` arrives as `5`.

    Clients that hold every JSON number as a float send `5.0`, which strict validation
    (`StrictInt`, `Field(strict=True)`, fastmcp `strict_input_validation=True`) rejects. The
    conversion runs before the parameter's own validation, so it works in lax and strict mode and
    leaves the JSON schema as it was. A fractional float, `nan`, `inf` and booleans are rejected.
    """

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_before_validator_function(_whole_float_to_int, handler(source))


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
