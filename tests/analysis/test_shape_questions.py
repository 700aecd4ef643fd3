"""What the SDKs do with an argument, asked of the annotation's shape (measured on mcp 1.28.1 and
2.3.0; the runtime tests call the real SDKs to hold these to it)."""

import ast
import sys

import pytest

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.scan.scanner import scan_module
from mcp_codemod.analysis.shape_questions import (
    Integer,
    Text,
    has_fixed_tuple,
    integer_validation,
    is_structured,
    markers,
    text_treatment,
    unknown_reason,
)
from mcp_codemod.analysis.shapes import Shape, shape_of

PRELUDE = """\
from typing import Annotated, Any, Iterable, Literal, Optional, Union
import typing as t
import typing_extensions as te
from datetime import date
from pydantic import (
    Field, SecretStr, Strict, StrictBool, StrictInt, StrictStr, StringConstraints, conint, constr
)
from mcp_codemod.runtime import NoPreParse, AcceptWholeFloat, ArrayItemsSchema
Alias = Annotated[str | None, Field()]
ExactAlias = str
Pair = tuple[int, int]
"""


def shape(annotation: str, prelude: str = PRELUDE) -> Shape:
    source = f"{prelude}def tool(x: {annotation}): ...\n"
    module: ModuleFacts = scan_module(source, ast.parse(source), "m", "m.py", False)
    [parameter] = module.functions["tool"].parameters

    def resolve(name):
        alias = module.aliases.get(name.rpartition(".")[2])
        return (alias.value, alias.type_statement) if alias else None

    return shape_of(parameter.annotation, resolve)


@pytest.mark.parametrize(
    ("annotation", "text"),
    [
        ("str", Text.EXACT_STR),
        ("Annotated[str, Field(description='d')]", Text.EXACT_STR),
        ("StrictStr", Text.EXACT_STR),
        ("constr(max_length=3)", Text.EXACT_STR),
        ("ExactAlias", Text.EXACT_STR),
        # The pattern keeps pre-parsed text out, but the SDK never pre-parses for `str` anyway.
        ("Annotated[str, Field(pattern='^[0-9]+$')]", Text.EXACT_STR),
        ("str | None", Text.ADMITS_STR),
        ("None | str", Text.ADMITS_STR),
        ("Optional[str]", Text.ADMITS_STR),
        ("t.Optional[str]", Text.ADMITS_STR),
        ("Union[str, None]", Text.ADMITS_STR),
        ("Union[str, int]", Text.ADMITS_STR),
        ("Union[str]", Text.ADMITS_STR),
        ("Annotated[str | None, Field()]", Text.ADMITS_STR),
        ("str | list[str]", Text.ADMITS_STR),
        ("Literal['a', 'null']", Text.ADMITS_STR),
        ("Literal['[]', 'b']", Text.ADMITS_STR),
        ("'str | None'", Text.ADMITS_STR),
        ("Alias", Text.ADMITS_STR),
        ("SecretStr", Text.ADMITS_STR),
        ("Annotated[str | None, Field(pattern='[a-z]+')]", Text.ADMITS_STR),  # not anchored
        ("Any", Text.ANY),
        ("object", Text.ANY),
        ("Any | None", Text.ANY),
        ("int", Text.NO_STR),
        ("StrictBool", Text.NO_STR),
        ("date | None", Text.NO_STR),
        ("list[str]", Text.NO_STR),
        ("dict[str, Any] | None", Text.NO_STR),
        ("Literal[1, 2]", Text.NO_STR),
        # Members that do not decode to null, an array or an object pass the pre-parse intact.
        ("Literal['ASC', 'DESC'] | None", Text.NO_STR),
        ("Literal['1', 'true']", Text.NO_STR),
        # A pattern that refuses every text the pre-parse decodes: as a `Literal` of words.
        ("Annotated[str | None, Field(pattern='^[0-9]+$')]", Text.NO_STR),
        ("Annotated[Optional[str], StringConstraints(pattern=r'^\\d+$')]", Text.NO_STR),
        ("Optional[Annotated[str, Field(pattern='^[0-9]+$')]]", Text.NO_STR),
        ("SomeModel | None", Text.UNKNOWN),
        ("SomeModel | str", Text.ADMITS_STR),  # the text it admits is pre-parsed either way
        ("conlist(int)", Text.UNKNOWN),
    ],
)
def test_how_a_string_argument_is_treated(annotation, text):
    assert text_treatment(shape(annotation)) is text


@pytest.mark.skipif(sys.version_info < (3, 12), reason="`type X = ...` needs Python 3.12 to parse")
def test_a_pep_695_alias_is_never_str_itself():
    prelude = f"{PRELUDE}type Exact = str\nPlain = Exact\ntype Words = Annotated[str, Field(pattern='^[0-9]+$')]\n"
    assert text_treatment(shape("Exact", prelude)) is Text.ADMITS_STR
    assert text_treatment(shape("Plain", prelude)) is Text.ADMITS_STR
    assert text_treatment(shape("Annotated[Exact, Field()]", prelude)) is Text.ADMITS_STR
    # Not `str` itself, so pre-parsed; but the pattern keeps the decoded texts out.
    assert text_treatment(shape("Words", prelude)) is Text.NO_STR


@pytest.mark.parametrize(
    ("annotation", "integer"),
    [
        ("int", Integer.LAX),
        ("int | None", Integer.LAX),
        ("Annotated[int, Field(ge=0)]", Integer.LAX),
        ("conint(ge=0)", Integer.LAX),
        ("Annotated[int, Strict(False)]", Integer.LAX),
        ("StrictInt", Integer.STRICT),
        ("StrictInt | None", Integer.STRICT),
        ("int | StrictInt", Integer.STRICT),
        ("Annotated[int, Strict()]", Integer.STRICT),
        ("Annotated[int, Field(strict=True)]", Integer.STRICT),
        ("Annotated[int | None, Strict()]", Integer.STRICT),  # strict around the union
        ("conint(strict=True)", Integer.STRICT),
        ("bool", Integer.NONE),
        ("float", Integer.NONE),
        ("str", Integer.NONE),
        ("list[int]", Integer.NONE),
        ("Literal[1, 2]", Integer.NONE),
        ("Annotated[str, Strict()]", Integer.NONE),
    ],
)
def test_how_an_integer_argument_is_validated(annotation, integer):
    assert integer_validation(shape(annotation)) is integer


@pytest.mark.parametrize(
    ("annotation", "fixed_tuple", "structured"),
    [
        ("tuple[int, int]", True, True),
        ("t.Tuple[float, str]", True, True),
        ("te.Tuple[float, str]", True, True),
        ("tuple[()]", True, True),
        ("Pair", True, True),
        ("tuple[int, ...]", False, True),
        ("tuple", False, True),
        ("list[tuple[int, int]]", True, True),
        ("te.List[tuple[int, int]]", True, True),
        ("dict[str, tuple[int, int]] | None", True, True),
        ("Optional[tuple[int, int]]", True, True),
        ("t.Callable[[int], tuple[int, int]]", True, False),
        ("Annotated[tuple[int, int], ArrayItemsSchema]", False, True),
        ("list[Annotated[tuple[int, int], ArrayItemsSchema]]", False, True),
        ("Annotated[list[Pair] | None, ArrayItemsSchema]", False, True),
        # The marker covers the member it is on, not its sibling.
        ("Annotated[Pair, ArrayItemsSchema] | list[Pair]", True, True),
        ("list[int] | None", False, True),
        ("t.Sequence[str]", False, True),
        ("dict", False, True),
        # Validated lazily: pydantic takes a text as an iterable of its characters.
        ("Iterable[int]", False, False),
        ("int", False, False),
        ("str | None", False, False),
        ("Any", False, False),
    ],
)
def test_fixed_tuples_and_structured_values(annotation, fixed_tuple, structured):
    found = shape(annotation)
    assert has_fixed_tuple(found, covered_by="ArrayItemsSchema") is fixed_tuple
    assert is_structured(found) is structured


def test_markers_are_the_values_and_its_union_members():
    assert markers(shape("Annotated[str | None, NoPreParse]")) == {"NoPreParse"}
    assert markers(shape("Annotated[str, NoPreParse] | None")) == {"NoPreParse"}
    assert markers(shape("Annotated[StrictInt, AcceptWholeFloat]")) == {"AcceptWholeFloat"}
    # Inside a container they mark the items, not the value.
    assert markers(shape("list[Annotated[str, NoPreParse]]")) == frozenset()
    # A name that merely looks like a marker is not one.
    assert markers(shape("Annotated[str | None, OtherNoPreParse]")) == frozenset()


@pytest.mark.parametrize(
    ("annotation", "reason"),
    [
        ("SomeModel", "`SomeModel`, which it cannot resolve"),
        ("int | SomeModel | Other", "`SomeModel`, which it cannot resolve"),
        ("Optional[Annotated[Undefined, Field()]]", "`Undefined`, which it cannot resolve"),
        ("conlist(int)", "`conlist(...)`, a type made at run time"),
        ("'str |'", "`str |`, which it cannot evaluate"),
        ("Literal['a'] | 'x'", "`x`, which it cannot resolve"),
    ],
)
def test_what_the_analysis_could_not_see_through(annotation, reason):
    found = shape(annotation)
    assert text_treatment(found) is Text.UNKNOWN
    assert unknown_reason(found) == reason


def test_a_name_used_twice_is_the_same_type_both_times():
    assert text_treatment(shape("Union[Alias, list[Alias]]")) is Text.ADMITS_STR
    assert text_treatment(shape("Union[list[Pair], Pair]")) is Text.NO_STR
