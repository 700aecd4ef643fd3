"""Annotations as plain data, and what an annotation admits.

An annotation is converted once from `ast` into a small tree of `TypeExpr` values with every name
resolved to a qualified name, so that a module's facts can be cached and linked with other modules
without keeping syntax trees around. `classify` then answers the questions the rules ask.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from mcp_codemod.analysis.frameworks import runtime_name


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


class Text(Enum):
    """How a parameter treats a string argument."""

    EXACT_STR = "exact-str"  # the field annotation is `str` itself: never pre-parsed
    ADMITS_STR = "admits-str"  # a str is valid, but the annotation is not exactly `str`
    ANY = "any"  # `Any`, `object` or no annotation
    NO_STR = "no-str"
    UNKNOWN = "unknown"  # a name the analyzer cannot see through


class Integer(Enum):
    NONE = "none"
    LAX = "lax"
    STRICT = "strict"


@dataclass(frozen=True)
class AnnotationFacts:
    text: Text
    integer: Integer
    markers: frozenset[str] = field(default_factory=frozenset)
    fixed_tuple: bool = False
    """A fixed-length tuple somewhere in it, not marked ArrayItemsSchema: pydantic gives it an
    array schema with `prefixItems` and no `items`."""
    structured: bool = False
    """A list, dict, set or tuple (an array or object in the JSON schema) at the top or in a
    union branch."""
    unknown: str = ""
    """For `Text.UNKNOWN`: what the analysis could not resolve (`pkg.Name`, a text it cannot
    evaluate), for the message that lists the parameter as unchecked."""


# The answers without markers or tuples, made once: `classify` gives one for every name it
# meets (a frozen dataclass costs a microsecond to build, and a run classifies thousands).
_EXACT_FACTS = AnnotationFacts(Text.EXACT_STR, Integer.NONE)
_ADMITS_FACTS = AnnotationFacts(Text.ADMITS_STR, Integer.NONE)
_ANY_FACTS = AnnotationFacts(Text.ANY, Integer.NONE)
_NO_STR_FACTS = AnnotationFacts(Text.NO_STR, Integer.NONE)
_STRUCTURED_FACTS = AnnotationFacts(Text.NO_STR, Integer.NONE, structured=True)
_LAX_FACTS = AnnotationFacts(Text.NO_STR, Integer.LAX)
_STRICT_FACTS = AnnotationFacts(Text.NO_STR, Integer.STRICT)


def unknown(what: str) -> AnnotationFacts:
    return AnnotationFacts(Text.UNKNOWN, Integer.NONE, unknown=what)


NO_PRE_PARSE = "NoPreParse"
ACCEPT_WHOLE_FLOAT = "AcceptWholeFloat"
ARRAY_ITEMS_SCHEMA = "ArrayItemsSchema"
DECODE_JSON_TEXT = "DecodeJsonText"
MARKERS = (NO_PRE_PARSE, ACCEPT_WHOLE_FLOAT, ARRAY_ITEMS_SCHEMA, DECODE_JSON_TEXT)

ANNOTATED = {"typing.Annotated", "typing_extensions.Annotated"}
_OPTIONAL = {"typing.Optional", "typing_extensions.Optional"}
_UNION = {"typing.Union", "typing_extensions.Union"}
LITERAL = {"typing.Literal", "typing_extensions.Literal"}
_ANY = {"typing.Any", "typing_extensions.Any", "builtins.object"}
_NONE = {"builtins.None", "types.NoneType"}
_EXACT_STR = {"builtins.str", "pydantic.StrictStr", "pydantic.types.StrictStr"}
_STR_CONSTRAINERS = {"pydantic.constr", "pydantic.types.constr"}
_LAX_INT = {"builtins.int"} | {
    f"{module}.{name}"
    for module in ("pydantic", "pydantic.types")
    for name in ("PositiveInt", "NegativeInt", "NonNegativeInt", "NonPositiveInt")
}
_STRICT_INT = {"pydantic.StrictInt", "pydantic.types.StrictInt"}
_INT_CONSTRAINERS = {"pydantic.conint", "pydantic.types.conint"}
_KNOWN_NON_STR = {
    f"builtins.{name}"
    for name in ("int", "float", "bool", "bytes", "list", "dict", "set", "tuple", "frozenset")
} | {
    f"typing.{name}"
    for name in ("List", "Dict", "Set", "Tuple", "FrozenSet", "Sequence", "Mapping", "Iterable")
}
# Types of the standard library and pydantic whose valid texts are never JSON null, an array or
# an object, so the pre-parse changes nothing they accept (a date, a path, a number, a URL): as
# good as `int` for MCP001. A class of the project or of a library read from `sys.path` is
# answered by the linker (`ClassResolver`).
_NON_TEXT_CLASSES = {
    f"{module}.{name}"
    for module, names in (
        ("datetime", ("datetime", "date", "time", "timedelta", "timezone")),
        ("pathlib", ("Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath")),
        ("uuid", ("UUID",)),
        ("decimal", ("Decimal",)),
        ("fractions", ("Fraction",)),
        ("builtins", ("complex", "bytearray", "range")),
        (
            "ipaddress",
            tuple(f"IPv{v}{kind}" for v in (4, 6) for kind in ("Address", "Network", "Interface")),
        ),
        ("pydantic", ("AnyUrl", "HttpUrl", "AnyHttpUrl", "FileUrl", "EmailStr", "NameEmail")),
        ("pydantic.networks", ("AnyUrl", "HttpUrl", "AnyHttpUrl", "FileUrl", "EmailStr")),
    )
    for name in names
}
# Classes that accept any text as themselves (pydantic's secret strings): as `str | None`.
_TEXT_CLASSES = {
    f"{module}.{name}" for module in ("pydantic", "pydantic.types") for name in ("SecretStr",)
}
_TUPLE = {"builtins.tuple", "typing.Tuple", "typing_extensions.Tuple"}
_STRUCTURED = {f"builtins.{name}" for name in ("list", "dict", "set", "tuple", "frozenset")} | {
    f"{module}.{name}"
    for module in ("typing", "typing_extensions", "collections.abc")
    for name in (
        "List",
        "Dict",
        "Set",
        "Tuple",
        "FrozenSet",
        "Sequence",
        "MutableSequence",
        "Mapping",
        "MutableMapping",
        "AbstractSet",
        "MutableSet",
    )
}
# The names the classifier answers for by themselves, as a name or as the base of a subscript,
# without asking whether they are an alias or a project class: a lookahead along its way skips
# them (`ProjectNames.parse_types_ahead`).
KNOWN_NAMES = frozenset().union(
    ANNOTATED,
    _OPTIONAL,
    _UNION,
    LITERAL,
    _ANY,
    _NONE,
    _EXACT_STR,
    _LAX_INT,
    _STRICT_INT,
    _KNOWN_NON_STR,
    _STRUCTURED,
    _NON_TEXT_CLASSES,
    _TEXT_CLASSES,
)
_STRICT_MARKERS = {
    "pydantic.Field",
    "pydantic.fields.Field",
    "pydantic.Strict",
    "pydantic.types.Strict",
}


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


def marker_name(qualified: str, runtime_copy: str | None = None) -> str | None:
    """`NoPreParse` for `mcp_codemod.runtime.NoPreParse` (any runtime submodule, or the
    project's `runtime_copy` of it), else None."""
    module, _, name = runtime_name(qualified, runtime_copy).rpartition(".")
    if name in MARKERS and module.startswith("mcp_codemod.runtime"):
        return name
    return None


def is_strict_marker(call: TCall) -> bool:
    return call.function in _STRICT_MARKERS and call.strict


AliasResolver = Callable[[str], "tuple[TypeExpr, bool] | None"]
"""Maps a qualified name to (the aliased type, whether it is a PEP 695 `type` alias), if it is one."""


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


MAX_ALIAS_DEPTH = 100


class AliasTooDeep(Exception):
    """An annotation whose aliases nest deeper than MAX_ALIAS_DEPTH (each level costs stack)."""


FieldsResolver = Callable[[str], "tuple[TypeExpr, ...] | None"]
"""Maps a qualified name to the field annotations of the project class it names, if it is one."""

ClassResolver = Callable[[str], "AnnotationFacts | tuple[TypeExpr, bool] | None"]
"""Maps a qualified name that is neither an alias nor a class with fields of the project to what
it admits, when the caller can read it: a class (an enum, a model, a plain class), or an alias
of a library (its value, as `AliasResolver` gives it); None otherwise."""


def classify(
    expr: TypeExpr | None,
    resolve_alias: AliasResolver,
    resolve_fields: FieldsResolver = lambda name: None,
    runtime_copy: str | None = None,
    resolve_class: ClassResolver = lambda name: None,
) -> AnnotationFacts:
    """What the annotation admits; raises AliasTooDeep."""
    if expr is None:
        return _ANY_FACTS
    return _Classifier(resolve_alias, resolve_fields, runtime_copy, resolve_class).top(expr)


class _Classifier:
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
        self.seen: set[str] = set()
        self.depth = 0

    def top(self, expr: TypeExpr) -> AnnotationFacts:
        # pydantic strips `Annotated` before the SDK compares the field annotation with `str`,
        # so only a bare `str` (possibly annotated) stays exact; everything else is "admits".
        return self.visit(expr, exact_allowed=True)

    def visit(self, expr: TypeExpr, exact_allowed: bool) -> AnnotationFacts:
        if isinstance(expr, TName):
            return self.name(expr.qualified, exact_allowed)
        if isinstance(expr, TConst):
            if expr.value is None:
                return _NO_STR_FACTS
            return unknown(f"the constant {expr.value!r}")
        if isinstance(expr, TUnion):
            return self.union(expr.members)
        if isinstance(expr, TCall):
            return self.call(expr, exact_allowed)
        if isinstance(expr, TSubscript) and isinstance(expr.base, TName):
            return self.subscript(expr.base.qualified, expr.args, exact_allowed)
        if isinstance(expr, TOpaque):
            return unknown(f"`{expr.text}`, which it cannot evaluate")
        return unknown("an expression it cannot evaluate")

    def name(self, qualified: str, exact_allowed: bool) -> AnnotationFacts:
        if qualified in _EXACT_STR:
            return _EXACT_FACTS if exact_allowed else _ADMITS_FACTS
        if qualified in _ANY:
            return _ANY_FACTS
        if qualified in _NONE:
            return _NO_STR_FACTS
        if qualified in _LAX_INT:
            return _LAX_FACTS
        if qualified in _STRICT_INT:
            return _STRICT_FACTS
        if qualified in _STRUCTURED:
            return _STRUCTURED_FACTS
        if qualified in _KNOWN_NON_STR or qualified in _NON_TEXT_CLASSES:
            return _NO_STR_FACTS
        if qualified in _TEXT_CLASSES:
            return _ADMITS_FACTS
        if qualified not in self.seen:
            alias = self.resolve_alias(qualified)
            if alias is not None:
                self.seen.add(qualified)
                value, is_type_statement = alias
                self.depth += 1
                if self.depth > MAX_ALIAS_DEPTH:
                    raise AliasTooDeep(qualified)
                # A PEP 695 alias reaches pydantic as a TypeAliasType, which is never `str` itself.
                facts = self.visit(value, exact_allowed and not is_type_statement)
                self.depth -= 1
                return facts
            fields = self.resolve_fields(qualified)
            if fields is not None:
                # A model, dataclass or TypedDict of the project: an object in the schema, with
                # its fields' schemas in its definition. Nested models cost stack as aliases do.
                self.seen.add(qualified)
                self.depth += 1
                if self.depth > MAX_ALIAS_DEPTH:
                    raise AliasTooDeep(qualified)
                nested = any(self.visit(f, exact_allowed=False).fixed_tuple for f in fields)
                self.depth -= 1
                return AnnotationFacts(
                    Text.NO_STR, Integer.NONE, fixed_tuple=nested, structured=True
                )
            found = self.resolve_class(qualified)
            if isinstance(found, AnnotationFacts):
                return found
            if found is not None:
                self.seen.add(qualified)
                value, is_type_statement = found
                self.depth += 1
                if self.depth > MAX_ALIAS_DEPTH:
                    raise AliasTooDeep(qualified)
                facts = self.visit(value, exact_allowed and not is_type_statement)
                self.depth -= 1
                return facts
        return unknown(_unresolved_name(qualified))

    def call(self, expr: TCall, exact_allowed: bool) -> AnnotationFacts:
        if expr.function in _STR_CONSTRAINERS:
            return self.name("builtins.str", exact_allowed)
        if expr.function in _INT_CONSTRAINERS:
            return _STRICT_FACTS if expr.strict else _LAX_FACTS
        return unknown(
            f"`{_unresolved_name(expr.function, quoted=False)}(...)`, a type made at run time"
        )

    def subscript(
        self, base: str, args: tuple[TypeExpr, ...], exact_allowed: bool
    ) -> AnnotationFacts:
        if base in ANNOTATED and args:
            inner = self.visit(args[0], exact_allowed)
            markers = set(inner.markers)
            own: set[str] = set()
            integer = inner.integer
            text = inner.text
            for meta in args[1:]:
                if isinstance(meta, TName) and (
                    marker := marker_name(meta.qualified, self.runtime_copy)
                ):
                    own.add(marker)
                elif isinstance(meta, TCall) and is_strict_marker(meta) and integer is Integer.LAX:
                    integer = Integer.STRICT
                if isinstance(meta, TCall) and meta.refuses_pre_parsed and text is Text.ADMITS_STR:
                    # As a `Literal` of plain words: no text it takes is one the SDK decodes.
                    text = Text.NO_STR
            return AnnotationFacts(
                text,
                integer,
                frozenset(markers | own),
                # The marker walks the whole schema below it, so it covers nested tuples too.
                fixed_tuple=inner.fixed_tuple and ARRAY_ITEMS_SCHEMA not in own,
                structured=inner.structured,
                unknown=inner.unknown if text is Text.UNKNOWN else "",
            )
        if base in _OPTIONAL and args:
            return self.union((args[0], TConst(None)))
        if base in _UNION:
            return self.union(args)
        if base in LITERAL:
            if any(isinstance(a, TConst) and _pre_parse_changes(a.value) for a in args):
                return _ADMITS_FACTS
            return _NO_STR_FACTS
        if base in _KNOWN_NON_STR or base.startswith(("collections.abc.", "typing.")):
            # `tuple[int, ...]` has `items`; `tuple[int, int]` and `tuple[()]` only prefixItems.
            variadic = len(args) == 2 and isinstance(args[1], TConst) and args[1].value is ...
            nested = any(
                self.visit(arg, exact_allowed=False).fixed_tuple
                for arg in args
                if not isinstance(arg, TConst)
            )
            return AnnotationFacts(
                Text.NO_STR,
                Integer.NONE,
                fixed_tuple=(base in _TUPLE and not variadic) or nested,
                structured=base in _STRUCTURED,
            )
        return self.name(base, exact_allowed)

    def union(self, members: tuple[TypeExpr, ...]) -> AnnotationFacts:
        parts = [self.visit(m, exact_allowed=False) for m in members]
        # Lists, not sets: an enum member's hash is computed in Python.
        texts = [p.text for p in parts]
        if Text.ANY in texts:
            text = Text.ANY
        elif Text.ADMITS_STR in texts or Text.EXACT_STR in texts:
            text = Text.ADMITS_STR
        elif Text.UNKNOWN in texts:
            text = Text.UNKNOWN
        else:
            text = Text.NO_STR
        integers = [p.integer for p in parts]
        integer = next((i for i in (Integer.STRICT, Integer.LAX) if i in integers), Integer.NONE)
        markers = frozenset().union(*(p.markers for p in parts))
        return AnnotationFacts(
            text,
            integer,
            markers,
            fixed_tuple=any(p.fixed_tuple for p in parts),
            structured=any(p.structured for p in parts),
            unknown=next((p.unknown for p in parts if p.text is Text.UNKNOWN), "")
            if text is Text.UNKNOWN
            else "",
        )


def _unresolved_name(qualified: str, quoted: bool = True) -> str:
    """`pkg.Name`, or `Name` for a name nothing binds (`?Name`)."""
    name = qualified.lstrip("?*")
    return f"`{name}`, which it cannot resolve" if quoted else name
