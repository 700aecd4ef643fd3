"""Annotations as plain data.

An annotation is converted once from `ast` into a small tree of `TypeExpr` values with every name
resolved to a qualified name, so that a module's facts can be cached and linked with other modules
without keeping syntax trees around. `analysis/shapes.py` then describes what it admits.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TName:
    """A name resolved through the module's imports: `builtins.str`, `typing.Optional`, `pkg.mod.Query`.

    Names that nothing binds are kept as `?name`.
    """

    qualified: str


@dataclass(frozen=True)
class TSubscript:
    base: TypeExpr
    args: tuple[TypeExpr, ...]


@dataclass(frozen=True)
class TUnion:
    members: tuple[TypeExpr, ...]


@dataclass(frozen=True)
class TConst:
    value: str | int | float | bool | None


@dataclass(frozen=True)
class TCall:
    """A call inside an annotation (`Field(...)`, `Strict()`, `conint(...)`): whether it makes
    the value strict, whether its `pattern=` refuses every text the pre-parse changes, and the
    names of the keywords it is given (`description`: pydantic writes it beside the value's
    schema)."""

    function: str
    strict: bool
    refuses_pre_parsed: bool = False
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class TOpaque:
    text: str


TypeExpr = TName | TSubscript | TUnion | TConst | TCall | TOpaque

# The subscripts whose arguments are read differently: metadata after the type, and constants.
ANNOTATED = {"typing.Annotated", "typing_extensions.Annotated"}
LITERAL = {"typing.Literal", "typing_extensions.Literal"}


def type_names(expr: TypeExpr) -> list[str]:
    """The qualified names an annotation uses, in the order they are written."""
    # A stack, not a generator per node: asked of every parameter of every tool.
    names = []
    pending = [expr]
    while pending:
        expr = pending.pop()
        if isinstance(expr, TName):
            names.append(expr.qualified)
        elif isinstance(expr, TSubscript):
            pending.extend(reversed(expr.args))
            pending.append(expr.base)
        elif isinstance(expr, TUnion):
            pending.extend(reversed(expr.members))
    return names
