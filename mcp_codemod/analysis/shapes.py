"""The type model: what a parameter's annotation admits, as a small structured type that rules
ask questions of.

A `Shape` keeps the distinctions a rule may need: which JSON values each node admits (`Kind`),
what a container holds (`args`), how strictly, the run-time markers written on it, the qualified
name it came from, and the few facts about how it was written that the SDKs' handling depends on
(reached through a PEP 695 alias, a `pattern=` that refuses pre-parsed text, why a node is
unknown). The questions the first rules ask are in `analysis/shape_questions.py`; a rule about a
new type distinction queries the shape in its own module (see docs/architecture.md for a worked
example). Nothing here names a rule or a marker: every `mcp_codemod.runtime` name in an
`Annotated` is recorded, so a marker a rule declares is seen without a change here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from enum import Enum

from mcp_codemod.analysis.frameworks import runtime_name
from mcp_codemod.analysis.type_exprs import (
    ANNOTATED,
    LITERAL,
    TCall,
    TConst,
    TName,
    TOpaque,
    TSubscript,
    TUnion,
    TypeExpr,
)


class Kind(str, Enum):
    """The JSON values a node admits, as pydantic describes them in the schema."""

    STR = "str"  # any text: `str`, `constr(...)`, `SecretStr`
    INT = "int"
    BOOL = "bool"
    FLOAT = "float"
    NONE = "none"
    LITERAL = "literal"  # `Literal[...]`: the constants are `Shape.constants`
    LIST = "list"  # list, set, sequence: `args` is (items,), or () when the items are untyped
    TUPLE = "tuple"  # `args` are the prefix items; `variadic` for `tuple[X, ...]` (args (X,))
    DICT = "dict"  # `args` is (keys, values), or () when untyped
    # A model, dataclass or TypedDict of the project: `args` are its fields. A model whose fields
    # are not read (a library's, a `NamedTuple`, a project class deriving one) has none.
    MODEL = "model"
    UNION = "union"  # `args` are the members
    ANY = "any"  # `Any`, `object`, no annotation: a schema node without `type`
    # A type known to the analysis that none of the above describes, whose valid texts are never
    # JSON null, an array or an object: `bytes`, `datetime`, `UUID`, an enum, a plain class
    # (pydantic checks it is an instance); another `typing` construct, with its arguments
    # (`Callable[...]`).
    OTHER = "other"
    UNKNOWN = "unknown"  # what the analysis cannot see through: `opaque` says what


@dataclass(frozen=True)
class Shape:
    kind: Kind
    args: tuple[Shape, ...] = ()
    source: str | None = None  # the qualified name it came from; None for no annotation
    strict: bool = False  # validated in strict mode (`StrictInt`, `Field(strict=True)`)
    variadic: bool = False
    markers: frozenset[str] = frozenset()  # `mcp_codemod.runtime` names in its `Annotated`
    constants: tuple[object, ...] = ()
    # Reached through a PEP 695 `type` alias: pydantic gets a `TypeAliasType`, never `str` itself.
    type_alias: bool = False
    # A `pattern=` in its `Annotated` refuses every text the SDK's pre-parse decodes
    # (`TCall.refuses_pre_parsed`).
    refuses_pre_parsed: bool = False
    opaque: str = ""  # UNKNOWN: what the analysis cannot see through, as messages say it

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

AliasResolver = Callable[[str], "tuple[TypeExpr, bool] | None"]
"""Maps a qualified name to (the aliased type, whether it is a PEP 695 `type` alias), if it is one."""

FieldsResolver = Callable[[str], "tuple[TypeExpr, ...] | None"]
"""Maps a qualified name to the field annotations of the project class it names, if it is one."""

ClassResolver = Callable[[str], "Shape | tuple[TypeExpr, bool] | None"]
"""Maps a qualified name that is neither an alias nor a class with fields of the project to what
it admits, when the caller can read it: a class (an enum, a model, a plain class), or an alias
of a library (its value, as `AliasResolver` gives it); None otherwise."""

MAX_ALIAS_DEPTH = 100


class AliasTooDeep(Exception):
    """An annotation whose aliases nest deeper than MAX_ALIAS_DEPTH (each level costs stack)."""


_STR = {"builtins.str", "pydantic.StrictStr", "pydantic.types.StrictStr"}
_PYDANTIC_TEXT = ("SecretStr", "SecretBytes", "FilePath", "DirectoryPath", "NewPath")
_NAMES = {
    # Classes that accept any text (pydantic's secret strings, bytes, paths, patterns) are text
    # too: `b"null"`, a file named `null` or `[1]`, the pattern `[1]` are valid values, which
    # the SDK's pre-parse turns into None or a list.
    Kind.STR: _STR
    | {
        f"{module}.{name}"
        for module, names in (
            ("pydantic", _PYDANTIC_TEXT),
            ("pydantic.types", _PYDANTIC_TEXT),
            ("builtins", ("bytes", "bytearray")),
            ("pathlib", ("Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath")),
            ("pathlib", ("PureWindowsPath",)),
            ("re", ("Pattern",)),
            ("typing", ("Pattern",)),
        )
        for name in names
    },
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
    # Types of the standard library and pydantic whose valid texts are never JSON null, an array
    # or an object (a date, a number, a URL). A class of the project or of a library read
    # from `sys.path` is answered by the caller (`ClassResolver`).
    Kind.OTHER: {
        f"{module}.{name}"
        for module, names in (
            ("datetime", ("datetime", "date", "time", "timedelta", "timezone")),
            ("uuid", ("UUID",)),
            ("decimal", ("Decimal",)),
            ("fractions", ("Fraction",)),
            ("builtins", ("complex", "range")),
            (
                "ipaddress",
                tuple(
                    f"IPv{v}{kind}" for v in (4, 6) for kind in ("Address", "Network", "Interface")
                ),
            ),
            ("pydantic", ("AnyUrl", "HttpUrl", "AnyHttpUrl", "FileUrl", "EmailStr", "NameEmail")),
            ("pydantic.networks", ("AnyUrl", "HttpUrl", "AnyHttpUrl", "FileUrl", "EmailStr")),
        )
        for name in names
    },
}
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
# Made once: a run meets these names in most parameters.
_NAMED = {
    name: Shape(kind, source=name, strict=".Strict" in name)
    for kind, names in _NAMES.items()
    for name in names
}
_NAMED |= {name: Shape(Kind.LIST, source=name) for name in _SEQUENCES}
_NAMED |= {name: Shape(Kind.DICT, source=name) for name in _MAPPINGS}
_NAMED |= {
    name: Shape(Kind.TUPLE, (Shape(Kind.ANY),), source=name, variadic=True) for name in _TUPLES
}
_NONE = Shape(Kind.NONE)
_CALLS = {
    "pydantic.constr": Kind.STR,
    "pydantic.types.constr": Kind.STR,
    "pydantic.conint": Kind.INT,
    "pydantic.types.conint": Kind.INT,
}
# `Annotated` metadata that makes the value strict when called with `strict=True` (`Strict()`
# is strict by default: `TCall.strict` says it).
_STRICT_MARKERS = {
    "pydantic.Field",
    "pydantic.fields.Field",
    "pydantic.Strict",
    "pydantic.types.Strict",
}
# The names `shape_of` answers for by itself, as a name or as the base of a subscript, without
# asking whether they are an alias or a class: a lookahead along its way skips them
# (`ProjectNames.parse_types_ahead`).
KNOWN_NAMES = frozenset().union(_NAMED, ANNOTATED, _OPTIONAL, _UNION, LITERAL)


def shape_of(
    expr: TypeExpr | None,
    resolve_alias: AliasResolver,
    resolve_fields: FieldsResolver = lambda name: None,
    runtime_copy: str | None = None,
    resolve_class: ClassResolver = lambda name: None,
) -> Shape:
    """The annotation's shape (`UNANNOTATED` for none); raises AliasTooDeep."""
    if expr is None:
        return UNANNOTATED
    return _Shaper(resolve_alias, resolve_fields, runtime_copy, resolve_class).visit(expr, 0)


def _opaque(qualified: str) -> Shape:
    """A name the analysis cannot see through (`?Name`: nothing binds it)."""
    name = qualified.lstrip("?*")
    return Shape(Kind.UNKNOWN, source=qualified, opaque=f"`{name}`, which it cannot resolve")


class _Shaper:
    def __init__(
        self,
        resolve_alias: AliasResolver,
        resolve_fields: FieldsResolver,
        runtime_copy: str | None,
        resolve_class: ClassResolver,
    ) -> None:
        self.resolve_alias = resolve_alias
        self.resolve_fields = resolve_fields
        self.resolve_class = resolve_class
        self.runtime_copy = runtime_copy
        # The aliases and classes met in this annotation; while one is being followed, a
        # placeholder (a recursive alias or model refers to itself).
        self.known: dict[str, Shape] = {}

    def visit(self, expr: TypeExpr, depth: int) -> Shape:
        if depth > MAX_ALIAS_DEPTH:
            raise AliasTooDeep(str(expr))
        if isinstance(expr, TName):
            return self.name(expr.qualified, depth)
        if isinstance(expr, TUnion):
            return Shape(Kind.UNION, tuple(self.visit(m, depth + 1) for m in expr.members))
        if isinstance(expr, TSubscript) and isinstance(expr.base, TName):
            return self.subscript(expr.base.qualified, expr.args, depth)
        if isinstance(expr, TConst):
            if expr.value is None:
                return _NONE
            return Shape(Kind.UNKNOWN, opaque=f"the constant {expr.value!r}")
        if isinstance(expr, TCall):
            return self.call(expr)
        if isinstance(expr, TOpaque):
            return Shape(Kind.UNKNOWN, opaque=f"`{expr.text}`, which it cannot evaluate")
        return Shape(Kind.UNKNOWN, opaque="an expression it cannot evaluate")

    def name(self, qualified: str, depth: int) -> Shape:
        shape = _NAMED.get(qualified) or self.known.get(qualified)
        if shape is not None:
            return shape
        alias = self.resolve_alias(qualified)
        if alias is not None:
            return self.alias(qualified, alias, depth)
        fields = self.resolve_fields(qualified)
        if fields is not None:
            self.known[qualified] = Shape(Kind.MODEL, source=qualified)
            shape = Shape(
                Kind.MODEL, tuple(self.visit(f, depth + 1) for f in fields), source=qualified
            )
            self.known[qualified] = shape
            return shape
        found = self.resolve_class(qualified)
        if isinstance(found, Shape):
            return found
        if found is not None:
            return self.alias(qualified, found, depth)
        return _opaque(qualified)

    def alias(self, qualified: str, alias: tuple[TypeExpr, bool], depth: int) -> Shape:
        value, type_statement = alias
        self.known[qualified] = _opaque(qualified)
        shape = self.visit(value, depth + 1)
        if type_statement:
            shape = replace(shape, type_alias=True)
        self.known[qualified] = shape
        return shape

    def call(self, expr: TCall) -> Shape:
        kind = _CALLS.get(expr.function)
        if kind is not None:
            return Shape(kind, source=expr.function, strict=expr.strict)
        made = expr.function.lstrip("?*")
        return Shape(
            Kind.UNKNOWN,
            source=expr.function,
            strict=expr.strict,
            opaque=f"`{made}(...)`, a type made at run time",
        )

    def subscript(self, base: str, args: tuple[TypeExpr, ...], depth: int) -> Shape:
        if base in ANNOTATED and args:
            return self.annotated(args, depth)
        if base in _OPTIONAL and args:
            return Shape(Kind.UNION, (self.visit(args[0], depth + 1), _NONE))
        if base in _UNION:
            return Shape(Kind.UNION, tuple(self.visit(a, depth + 1) for a in args))
        if base in LITERAL:
            constants = tuple(a.value for a in args if isinstance(a, TConst))
            return Shape(Kind.LITERAL, source=base, constants=constants)
        if base in _SEQUENCES:
            return Shape(Kind.LIST, self.typed(args, depth)[:1], source=base)
        if base in _MAPPINGS:
            typed = self.typed(args, depth)
            return Shape(Kind.DICT, typed if len(typed) == 2 else (), source=base)
        if base in _TUPLES:
            # `tuple[int, ...]` has `items`; `tuple[int, int]` and `tuple[()]` only prefixItems.
            variadic = len(args) == 2 and isinstance(args[1], TConst) and args[1].value is ...
            return Shape(Kind.TUPLE, self.typed(args, depth), source=base, variadic=variadic)
        if base.startswith(("typing.", "collections.abc.")):
            return Shape(Kind.OTHER, self.typed(args, depth), source=base)
        # A generic alias or class (`Page[Item]`): what the unparameterised name admits.
        return self.name(base, depth)

    def typed(self, args: tuple[TypeExpr, ...], depth: int) -> tuple[Shape, ...]:
        """The shapes of a container's type arguments (`...` and other constants left out)."""
        return tuple(self.visit(a, depth + 1) for a in args if not isinstance(a, TConst))

    def annotated(self, args: tuple[TypeExpr, ...], depth: int) -> Shape:
        inner = self.visit(args[0], depth + 1)
        markers = set(inner.markers)
        strict = inner.strict
        refuses = inner.refuses_pre_parsed
        for meta in args[1:]:
            if isinstance(meta, TName):
                module, _, name = runtime_name(meta.qualified, self.runtime_copy).rpartition(".")
                if module.startswith("mcp_codemod.runtime"):
                    markers.add(name)
            elif isinstance(meta, TCall):
                strict = strict or (meta.function in _STRICT_MARKERS and meta.strict)
                refuses = refuses or meta.refuses_pre_parsed
        return replace(inner, strict=strict, markers=frozenset(markers), refuses_pre_parsed=refuses)
