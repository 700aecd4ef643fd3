"""What an annotation admits, as the SDKs see it (measured on mcp 1.28.1 and 2.3.0; the runtime
tests call the real SDKs to hold these to it)."""

import ast

import pytest

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.scanner import scan_module
from mcp_codemod.analysis.types import Integer, Text, classify

PRELUDE = """\
from typing import Annotated, Any, Literal, Optional, Union
import typing as t
from pydantic import Field, Strict, StrictInt, StrictStr, conint, constr
from mcp_codemod.runtime import NoPreParse, AcceptWholeFloat, ArrayItemsSchema
Alias = Annotated[str | None, Field()]
ExactAlias = str
"""


def facts_of(annotation: str):
    source = f"{PRELUDE}def tool(x: {annotation}): ...\n"
    module: ModuleFacts = scan_module(source, ast.parse(source), "m", "m.py", False)
    [parameter] = module.functions["tool"].parameters

    def resolve(name):
        alias = module.aliases.get(name.rpartition(".")[2])
        return (alias.value, alias.type_statement) if alias else None

    return classify(parameter.annotation, resolve)


@pytest.mark.parametrize(
    ("annotation", "text"),
    [
        ("str", Text.EXACT_STR),
        ("Annotated[str, Field(description='d')]", Text.EXACT_STR),
        ("StrictStr", Text.EXACT_STR),
        ("constr(max_length=3)", Text.EXACT_STR),
        ("ExactAlias", Text.EXACT_STR),
        ("str | None", Text.ADMITS_STR),
        ("None | str", Text.ADMITS_STR),
        ("Optional[str]", Text.ADMITS_STR),
        ("t.Optional[str]", Text.ADMITS_STR),
        ("Union[str, None]", Text.ADMITS_STR),
        ("Union[str, int]", Text.ADMITS_STR),
        ("Annotated[str | None, Field()]", Text.ADMITS_STR),
        ("str | list[str]", Text.ADMITS_STR),
        ("Literal['a', 'null']", Text.ADMITS_STR),
        ("Literal['[]', 'b']", Text.ADMITS_STR),
        ("'str | None'", Text.ADMITS_STR),
        ("Alias", Text.ADMITS_STR),
        ("Any", Text.ANY),
        ("object", Text.ANY),
        ("int", Text.NO_STR),
        ("list[str]", Text.NO_STR),
        ("dict[str, Any] | None", Text.NO_STR),
        ("Literal[1, 2]", Text.NO_STR),
        # Members that do not decode to null, an array or an object pass the pre-parse intact.
        ("Literal['ASC', 'DESC'] | None", Text.NO_STR),
        ("Literal['1', 'true']", Text.NO_STR),
        ("SomeModel | None", Text.UNKNOWN),
    ],
)
def test_text(annotation, text):
    assert facts_of(annotation).text is text


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
        ("Annotated[int, Strict()]", Integer.STRICT),
        ("Annotated[int, Field(strict=True)]", Integer.STRICT),
        ("conint(strict=True)", Integer.STRICT),
        ("bool", Integer.NONE),
        ("float", Integer.NONE),
        ("str", Integer.NONE),
    ],
)
def test_integer(annotation, integer):
    assert facts_of(annotation).integer is integer


@pytest.mark.parametrize(
    ("annotation", "fixed_tuple", "structured"),
    [
        ("tuple[int, int]", True, True),
        ("t.Tuple[float, str]", True, True),
        ("tuple[()]", True, True),
        ("tuple[int, ...]", False, True),
        ("tuple", False, True),
        ("list[tuple[int, int]]", True, True),
        ("dict[str, tuple[int, int]] | None", True, True),
        ("Optional[tuple[int, int]]", True, True),
        ("Annotated[tuple[int, int], ArrayItemsSchema]", False, True),
        ("list[Annotated[tuple[int, int], ArrayItemsSchema]]", False, True),
        ("list[int] | None", False, True),
        ("t.Sequence[str]", False, True),
        ("dict", False, True),
        ("int", False, False),
        ("str | None", False, False),
        ("Any", False, False),
    ],
)
def test_fixed_tuple_and_structured(annotation, fixed_tuple, structured):
    facts = facts_of(annotation)
    assert (facts.fixed_tuple, facts.structured) == (fixed_tuple, structured)


def test_markers_are_seen_through_imports():
    assert facts_of("Annotated[str | None, NoPreParse]").markers == {"NoPreParse"}
    assert facts_of("Annotated[StrictInt, AcceptWholeFloat]").markers == {"AcceptWholeFloat"}
    # A name that merely looks like a marker is not one.
    assert facts_of("Annotated[str | None, OtherNoPreParse]").markers == frozenset()
