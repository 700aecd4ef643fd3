"""What an annotation declares about text: the rule the guarded servers use (`declares_text`: a
string argument reaches the tool as sent), and the markers' (`admits_str`: a string is a value the
parameter takes)."""

from __future__ import annotations

import re
from enum import Enum
from pathlib import PurePath
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import SecretBytes, SecretStr


def admits_str(annotation: Any) -> bool:
    """Whether a parameter annotated with `annotation` could accept a `str` value: it declares
    text (`declares_text`) or takes anything (`Any`, `object`, no annotation)."""
    return _admits(annotation) is not _Admits.OTHER


def declares_text(annotation: Any) -> bool:
    """Whether the annotation names a text type: `str` or a subclass (a `str` enum), a class
    that takes any text (`bytes`, `bytearray`, a `pathlib` path, `re.Pattern`, pydantic's
    secrets), a `Literal` with a string, or a union with one of them, through `Annotated`,
    aliases and `NewType`.

    A union with `Any` in it does not: it takes anything, and only its author can say whether a
    string that looks like JSON is meant as text.
    """
    return _admits(annotation) is _Admits.TEXT


class _Admits(Enum):
    # In order of precedence in a union: `str | Any` takes anything, `str | None` text.
    ANYTHING = "anything"
    TEXT = "text"
    OTHER = "other"


def _admits(annotation: Any) -> _Admits:
    # `type X = ...` (PEP 695, or typing_extensions.TypeAliasType) and NewType hide the real type.
    if type(annotation).__name__ == "TypeAliasType":
        return _admits(annotation.__value__)
    if hasattr(annotation, "__supertype__"):
        return _admits(annotation.__supertype__)
    if isinstance(annotation, TypeVar):
        # pydantic validates an unbound TypeVar as its bound, its constraints, or anything.
        if annotation.__bound__ is not None:
            return _admits(annotation.__bound__)
        if annotation.__constraints__:
            return _admits(Union[annotation.__constraints__])  # noqa: UP007 - a tuple of types
        return _Admits.ANYTHING
    origin = get_origin(annotation)
    if origin is Annotated:
        return _admits(get_args(annotation)[0])
    if origin is Union or origin is UnionType:
        members = [_admits(arg) for arg in get_args(annotation)]
        return next((kind for kind in _Admits if kind in members), _Admits.OTHER)
    if origin is Literal:
        text = any(isinstance(arg, str) for arg in get_args(annotation))
        return _Admits.TEXT if text else _Admits.OTHER
    if origin is not None:
        # `re.Pattern[str]`: a pattern, whatever its parameter.
        return _Admits.TEXT if origin in TEXT_CLASSES else _Admits.OTHER
    if annotation is Any or annotation is object:
        return _Admits.ANYTHING
    if isinstance(annotation, type) and issubclass(annotation, TEXT_CLASSES):
        return _Admits.TEXT
    return _Admits.OTHER


# Classes whose values may be any text: `b"null"`, a file named `null` or `[1]`, the pattern
# `[1]`, a secret `null` are valid values, which the SDK's pre-parse turns into None or a list.
TEXT_CLASSES = (str, bytes, bytearray, PurePath, re.Pattern, SecretStr, SecretBytes)
