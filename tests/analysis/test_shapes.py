"""The type model: what an annotation admits, as the structured `Shape` rules query."""

from __future__ import annotations

import ast

import pytest

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.scan.scanner import scan_module
from mcp_codemod.analysis.shapes import UNANNOTATED, ClassResolver, Kind, Shape, shape_of
from mcp_codemod.analysis.type_exprs import TName

PRELUDE = """\
from collections.abc import Callable, Sequence
from datetime import date
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, Union
from pydantic import Field, SecretStr, StrictBool, StrictInt, conint
from mcp_codemod.runtime import NoPreParse, TypedSchema
from lib import LibAlias, LibEnum, LibModel
Rows = list[Any]
Tree = list["Tree"]
Loop = Union[int, "Loop"]
"""


def shape(annotation: str | None, resolve_class: ClassResolver = lambda name: None) -> Shape:
    written = "x" if annotation is None else f"x: {annotation}"
    source = f"{PRELUDE}def tool({written}): ...\n"
    module: ModuleFacts = scan_module(source, ast.parse(source), "m", "m.py", False)
    [parameter] = module.functions["tool"].parameters

    def resolve(name):
        alias = module.aliases.get(name.rpartition(".")[2])
        return (alias.value, alias.type_statement) if alias else None

    return shape_of(parameter.annotation, resolve, resolve_class=resolve_class)


def kinds(shape: Shape) -> list[str]:
    return [s.kind.value for s in shape.walk()]


@pytest.mark.parametrize(
    ("annotation", "walked"),
    [
        ("str", ["str"]),
        ("int", ["int"]),
        ("bool", ["bool"]),  # not lumped with the other non-text types
        ("StrictBool", ["bool"]),
        ("float", ["float"]),
        ("SecretStr", ["str"]),  # any text, as itself
        ("date", ["other"]),  # texts, but never JSON null, an array or an object
        ("Any", ["any"]),
        ("object", ["any"]),
        ("list", ["list"]),  # items untyped: no args
        ("list[Any]", ["list", "any"]),
        ("List[int]", ["list", "int"]),
        ("Sequence[str]", ["list", "str"]),
        ("dict", ["dict"]),
        ("dict[str, Any]", ["dict", "str", "any"]),
        ("Dict[str, int]", ["dict", "str", "int"]),
        ("tuple[int, str]", ["tuple", "int", "str"]),
        ("Optional[list[Any]]", ["union", "list", "any", "none"]),
        ("int | None", ["union", "int", "none"]),
        ("Literal['a', 'b']", ["literal"]),
        ("Rows", ["list", "any"]),  # through the alias
        ("Rows[int]", ["list", "any"]),  # a generic alias: what the unparameterised one admits
        ("Callable[[int], Tuple[int, int]]", ["other", "unknown", "tuple", "int", "int"]),
        ("Undefined", ["unknown"]),
    ],
)
def test_what_each_annotation_admits(annotation, walked):
    assert kinds(shape(annotation)) == walked


def test_no_annotation_is_any_without_a_source():
    assert shape(None) is UNANNOTATED
    assert shape(None).kind is Kind.ANY and shape("Any").source == "typing.Any"


def test_strictness_variadic_tuples_and_literal_constants():
    assert shape("StrictInt").strict and not shape("int").strict
    assert shape("Annotated[int, Field(strict=True)]").strict
    assert shape("conint(strict=True)").strict
    assert shape("tuple[int, ...]").variadic and not shape("tuple[int, int]").variadic
    assert shape("Literal['a', 1]").constants == ("a", 1)


def test_every_runtime_marker_is_recorded_by_name():
    assert shape("Annotated[Any, TypedSchema, NoPreParse]").markers == {"TypedSchema", "NoPreParse"}
    assert shape("list[Annotated[Any, TypedSchema]]").args[0].markers == {"TypedSchema"}


def test_a_recursive_alias_ends():
    assert kinds(shape("Tree"))[0] == "list"


def test_what_the_analysis_cannot_see_through_says_why():
    assert shape("Undefined").opaque == "`Undefined`, which it cannot resolve"
    assert shape("conlist(int)").opaque == "`conlist(...)`, a type made at run time"
    assert shape("'str |'").opaque == "`str |`, which it cannot evaluate"
    # A recursive alias that is its own member.
    assert shape("Loop").args[1].opaque == "`m.Loop`, which it cannot resolve"


def test_a_pattern_that_refuses_pre_parsed_text_is_recorded():
    assert shape("Annotated[str | None, Field(pattern='^[0-9]+$')]").refuses_pre_parsed
    assert not shape("Annotated[str | None, Field(pattern='^[a-z]+$')]").refuses_pre_parsed


def test_classes_and_library_aliases_are_what_the_caller_reads():
    answers = {
        "lib.LibEnum": Shape(Kind.OTHER, source="lib.LibEnum"),
        "lib.LibModel": Shape(Kind.MODEL, source="lib.LibModel"),
        "lib.LibAlias": (TName("typing.Any"), False),  # `LibAlias = Any` in the library
    }
    assert shape("LibEnum | None", answers.get).args[0] == answers["lib.LibEnum"]
    assert shape("list[LibModel]", answers.get).args[0] == answers["lib.LibModel"]
    assert shape("LibAlias", answers.get).kind is Kind.ANY
    assert shape("LibEnum").kind is Kind.UNKNOWN  # nothing read
