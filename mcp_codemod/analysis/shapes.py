"""The type model: what a parameter's annotation admits, as a small structured type that rules
ask questions of.

`types.classify` answers the fixed questions the first rules needed (how a string is treated,
how an integer is validated) in buckets; a `Shape` keeps the distinctions a new rule may need
instead: which JSON values each node admits (`Kind`), what a container holds (`args`), how
strictly, the run-time markers written on it, and the qualified name it came from. A rule about a
new type distinction queries the shape in its own module (see docs/architecture.md for a worked
example); nothing here names a rule or a marker: every `mcp_codemod.runtime` name in an
`Annotated` is recorded, so a marker a rule declares is seen without a change here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from mcp_codemod.analysis.frameworks import runtime_name
from mcp_codemod.analysis.types import (
    ANNOTATED,
    LITERAL,
    MAX_ALIAS_DEPTH,
    AliasResolver,
    AliasTooDeep,
    FieldsResolver,
    TCall,
    TConst,
    TName,
    TSubscript,
    TUnion,
    TypeExpr,
    is_strict_marker,
)


class Kind(str, Enum):
    """The JSON values a node admits, as pydantic describes them in the schema."""

    STR = "str"
    INT = "int"
    BOOL = "bool"
    FLOAT = "float"
    NONE = "none"
    LITERAL = "literal"  # `Literal[...]`: the constants are `Shape.constants`
    LIST = "list"  # list, set, sequence: `args` is (items,), or () when the items are untyped
    TUPLE = "tuple"  # `args` are the prefix items; `variadic` for `tuple[X, ...]` (args (X,))
    DICT = "dict"  # `args` is (keys, values), or () when untyped
    MODEL = "model"  # a model, dataclass or TypedDict of the project: `args` are its fields
    UNION = "union"  # `args` are the members
    ANY = "any"  # `Any`, `object`, no annotation: a schema node without `type`
    OTHER = "other"  # a type known to the analysis that none of the above describes (bytes)
    UNKNOWN = "unknown"  # a name the analysis cannot see through


@dataclass(frozen=True)
class Shape:
    kind: Kind
    args: tuple[Shape, ...] = ()
    source: str | None = None  # the qualified name it came from; None for no annotation
    strict: bool = False  # validated in strict mode (`StrictInt`, `Field(strict=True)`)
    variadic: bool = False
    markers: frozenset[str] = frozenset()  # `mcp_codemod.runtime` names in its `Annotated`
    constants: tuple[object, ...] = ()

    def walk(self) -> Iterator[Shape]:
        """This shape and every shape inside it, a project class's fields once each."""
        seen: set[str] = set()
        pending = [self]
        while pending:
            shape = pending.pop()
            if shape.kind is Kind.MODEL and shape.source is not None:
                if shape.source in seen:
                    continue
                seen.add(shape.source)
            yield shape
            pending.extend(reversed(shape.args))

    def members(self) -> tuple[Shape, ...]:
        """The union's members (through nested unions), or the shape itself."""
        if self.kind is not Kind.UNION:
            return (self,)
        return tuple(m for arg in self.args for m in arg.members())


UNANNOTATED = Shape(Kind.ANY)

_NAMES = {
    Kind.STR: {"builtins.str", "pydantic.StrictStr", "pydantic.types.StrictStr"},
    Kind.INT: {"builtins.int"}
    | {
        f"{module}.{name}"
        for module in ("pydantic", "pydantic.types")
        for name in ("PositiveInt", "NegativeInt", "NonNegativeInt", "NonPositiveInt", "StrictInt")
    },
    Kind.BOOL: {"builtins.bool", "pydantic.StrictBool", "pydantic.types.StrictBool"},
    Kind.FLOAT: {"builtins.float", "pydantic.StrictFloat", "pydantic.types.StrictFloat"},
    Kind.NONE: {"builtins.None", "types.NoneType"},
    Kind.ANY: {"typing.Any", "typing_extensions.Any", "builtins.object"},
    Kind.OTHER: {"builtins.bytes"},
}
_KIND_OF_NAME = {name: kind for kind, names in _NAMES.items() for name in names}
_STRICT_NAMES = {name for name in _KIND_OF_NAME if ".Strict" in name}
_OPTIONAL = {"typing.Optional", "typing_extensions.Optional"}
_UNION = {"typing.Union", "typing_extensions.Union"}
_SEQUENCES = {f"builtins.{name}" for name in ("list", "set", "frozenset")} | {
    f"{module}.{name}"
    for module in ("typing", "typing_extensions", "collections.abc")
    for name in (
        "List",
        "Set",
        "FrozenSet",
        "Sequence",
        "MutableSequence",
        "AbstractSet",
        "MutableSet",
        "Iterable",
    )
}
_MAPPINGS = {"builtins.dict"} | {
    f"{module}.{name}"
    for module in ("typing", "typing_extensions", "collections.abc")
    for name in ("Dict", "Mapping", "MutableMapping")
}
_TUPLES = {"builtins.tuple", "typing.Tuple", "typing_extensions.Tuple"}
_CALLS = {
    "pydantic.constr": Kind.STR,
    "pydantic.types.constr": Kind.STR,
    "pydantic.conint": Kind.INT,
    "pydantic.types.conint": Kind.INT,
}


def shape_of(
    expr: TypeExpr | None,
    resolve_alias: AliasResolver,
    resolve_fields: FieldsResolver = lambda name: None,
    runtime_copy: str | None = None,
) -> Shape:
    """The annotation's shape (`UNANNOTATED` for none); raises AliasTooDeep as `classify` does."""
    if expr is None:
        return UNANNOTATED
    return _Shaper(resolve_alias, resolve_fields, runtime_copy).visit(expr, 0)


class _Shaper:
    def __init__(
        self, resolve_alias: AliasResolver, resolve_fields: FieldsResolver, runtime_copy: str | None
    ) -> None:
        self.resolve_alias = resolve_alias
        self.resolve_fields = resolve_fields
        self.runtime_copy = runtime_copy
        self.models: dict[str, Shape] = {}

    def visit(self, expr: TypeExpr, depth: int) -> Shape:
        if depth > MAX_ALIAS_DEPTH:
            raise AliasTooDeep(str(expr))
        if isinstance(expr, TName):
            return self.name(expr.qualified, depth)
        if isinstance(expr, TConst):
            return Shape(Kind.NONE) if expr.value is None else Shape(Kind.UNKNOWN)
        if isinstance(expr, TUnion):
            return Shape(Kind.UNION, tuple(self.visit(m, depth + 1) for m in expr.members))
        if isinstance(expr, TCall):
            kind = _CALLS.get(expr.function, Kind.UNKNOWN)
            return Shape(kind, source=expr.function, strict=expr.strict)
        if isinstance(expr, TSubscript) and isinstance(expr.base, TName):
            return self.subscript(expr.base.qualified, expr.args, depth)
        return Shape(Kind.UNKNOWN)

    def name(self, qualified: str, depth: int) -> Shape:
        kind = _KIND_OF_NAME.get(qualified)
        if kind is not None:
            return Shape(kind, source=qualified, strict=qualified in _STRICT_NAMES)
        if qualified in _SEQUENCES:
            return Shape(Kind.LIST, source=qualified)
        if qualified in _MAPPINGS:
            return Shape(Kind.DICT, source=qualified)
        if qualified in _TUPLES:
            return Shape(Kind.TUPLE, (Shape(Kind.ANY),), source=qualified, variadic=True)
        if qualified in self.models:
            return self.models[qualified]
        alias = self.resolve_alias(qualified)
        if alias is not None:
            # Placeholder first: a recursive alias refers to itself.
            self.models[qualified] = Shape(Kind.UNKNOWN, source=qualified)
            shape = self.models[qualified] = self.visit(alias[0], depth + 1)
            return shape
        fields = self.resolve_fields(qualified)
        if fields is not None:
            self.models[qualified] = Shape(Kind.MODEL, source=qualified)
            shape = Shape(
                Kind.MODEL, tuple(self.visit(f, depth + 1) for f in fields), source=qualified
            )
            self.models[qualified] = shape
            return shape
        return Shape(Kind.UNKNOWN, source=qualified)

    def subscript(self, base: str, args: tuple[TypeExpr, ...], depth: int) -> Shape:
        if base in ANNOTATED and args:
            inner = self.visit(args[0], depth + 1)
            markers = set(inner.markers)
            strict = inner.strict
            for meta in args[1:]:
                if isinstance(meta, TName):
                    module, _, name = runtime_name(meta.qualified, self.runtime_copy).rpartition(
                        "."
                    )
                    if module.startswith("mcp_codemod.runtime"):
                        markers.add(name)
                elif isinstance(meta, TCall) and is_strict_marker(meta):
                    strict = True
            return Shape(
                inner.kind,
                inner.args,
                inner.source,
                strict,
                inner.variadic,
                frozenset(markers),
                inner.constants,
            )
        if base in _OPTIONAL and args:
            return Shape(Kind.UNION, (self.visit(args[0], depth + 1), Shape(Kind.NONE)))
        if base in _UNION:
            return Shape(Kind.UNION, tuple(self.visit(a, depth + 1) for a in args))
        if base in LITERAL:
            constants = tuple(a.value for a in args if isinstance(a, TConst))
            return Shape(Kind.LITERAL, source=base, constants=constants)
        typed = tuple(self.visit(a, depth + 1) for a in args if not isinstance(a, TConst))
        if base in _SEQUENCES:
            return Shape(Kind.LIST, typed[:1], source=base)
        if base in _MAPPINGS:
            return Shape(Kind.DICT, typed[:2] if len(typed) == 2 else (), source=base)
        if base in _TUPLES:
            variadic = len(args) == 2 and isinstance(args[1], TConst) and args[1].value is ...
            return Shape(Kind.TUPLE, typed, source=base, variadic=variadic)
        return Shape(Kind.UNKNOWN, source=base)
