"""Parameters and their annotations as `TypeExpr` data, with the names in them qualified."""

from __future__ import annotations

import ast

from mcp_codemod.analysis.facts import Parameter, ServerKind
from mcp_codemod.analysis.scan.fix_sites import FixSites
from mcp_codemod.analysis.scan.pattern_constraints import keeps_out_pre_parsed_text
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.scope import Names, Scope, SymbolKind
from mcp_codemod.analysis.scan.syntax import keyword
from mcp_codemod.analysis.type_exprs import (
    LITERAL,
    TCall,
    TConst,
    TName,
    TOpaque,
    TSubscript,
    TUnion,
    TypeExpr,
)


class Annotations:
    def __init__(self, text: SourceText, names: Names, fix_sites: FixSites) -> None:
        self.text = text
        self.names = names
        self.fix_sites = fix_sites
        self.shared = SharedTypes()

    def parameters(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, skip_first: bool
    ) -> tuple[Parameter, ...]:
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
        defaults += arguments.defaults
        pairs = list(zip(positional, defaults, strict=True))
        if skip_first and positional:
            pairs = pairs[1:]
        # The SDKs make `*args` and `**kwargs` required arguments named `args` and `kwargs`, and
        # pre-parse them as any other (docs/architecture.md, "Variadic parameters").
        if arguments.vararg is not None:
            pairs.append((arguments.vararg, None))
        pairs += list(zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True))
        if arguments.kwarg is not None:
            pairs.append((arguments.kwarg, None))
        parameters = []
        text = self.text
        for arg, default in pairs:
            strict = type(default) is ast.Call and self.is_strict_field(default, scope)
            value = self.default_value(default, scope) if default is not None else None
            field = self.field_keywords(default, scope) if type(default) is ast.Call else ()
            annotation = arg.annotation
            if annotation is None:  # no type, text, site nor alias to find
                parameters.append(
                    Parameter(
                        arg.arg, text.start(arg), None, None, None, strict, None, value, field
                    )
                )
                continue
            type_expr = self.type_expr(annotation, scope)
            if _is_context(type_expr):
                continue
            alias = None
            if type(annotation) is ast.Name:
                symbol = scope.lookup(annotation.id)
                # An alias here, or an import (which may be an alias in another module: the
                # linker decides): what `type_expr` made of the name, if it has a qualified one.
                if symbol is not None and symbol.kind in (SymbolKind.ALIAS, SymbolKind.IMPORT):
                    alias = type_expr.qualified if type(type_expr) is TName else None
            parameters.append(
                Parameter(
                    arg.arg,
                    text.start(arg),
                    type_expr,
                    text.text(annotation),
                    self.fix_sites.site(annotation, scope),
                    strict,
                    alias,
                    value,
                    field,
                )
            )
        return tuple(parameters)

    def default_value(self, default: ast.expr, scope: Scope) -> str | None:
        """What a missing argument takes (`Parameter.default`): the default itself, or the one
        a pydantic `Field` declares."""
        if type(default) is not ast.Call or self.names.qualify(default.func, scope) not in _FIELDS:
            return self.text.text(default)
        value = default.args[0] if default.args else keyword(default, "default")
        if value is not None:
            required = type(value) is ast.Constant and value.value is Ellipsis
            return None if required else self.text.text(value)
        factory = keyword(default, "default_factory")
        return f"{self.text.text(factory)}()" if factory is not None else None

    def field_keywords(self, call: ast.Call, scope: Scope) -> tuple[str, ...]:
        if self.names.qualify(call.func, scope) not in _FIELDS:
            return ()
        return tuple(k.arg for k in call.keywords if k.arg is not None)

    def is_strict_field(self, node: ast.expr, scope: Scope) -> bool:
        expr = self.type_expr(node, scope) if isinstance(node, ast.Call) else None
        return isinstance(expr, TCall) and expr.strict and expr.function.endswith("Field")

    def type_expr(self, node: ast.expr, scope: Scope) -> TypeExpr:
        shared = self.shared
        kind = type(node)  # parsed nodes are of the exact classes
        if kind is ast.Name or kind is ast.Attribute:  # the most common: tested first
            qualified = self.names.qualify(node, scope)
            if qualified is not None and qualified[0] == "?" and kind is ast.Name:
                qualified = _imported_binding(node, scope) or qualified
            return shared.name(qualified) if qualified else shared.opaque(self.text.text(node))
        if kind is ast.Constant:
            if isinstance(node.value, str):
                try:
                    inner = ast.parse(node.value.strip(), mode="eval").body
                except SyntaxError:
                    return shared.opaque(node.value)
                return self.type_expr(inner, scope)
            return shared.constant(node.value)
        if kind is ast.BinOp and type(node.op) is ast.BitOr:
            # `a | b | c` nests to the left, a level per member: a loop down that side, so a
            # union of thousands of members (which CPython compiles) does not recurse as deep.
            sides = []
            while type(node) is ast.BinOp and type(node.op) is ast.BitOr:
                sides.append(node.right)
                node = node.left
            sides.append(node)
            members: list[TypeExpr] = []
            for side in reversed(sides):
                expr = self.type_expr(side, scope)
                members.extend(expr.members if isinstance(expr, TUnion) else (expr,))
            return shared.union(tuple(members))
        if kind is ast.Subscript:
            base = self.type_expr(node.value, scope)
            elements = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
            if type(base) is TName and base.qualified in LITERAL:
                args = tuple(
                    shared.constant(e.value)
                    if isinstance(e, ast.Constant)
                    else shared.opaque(self.text.text(e))
                    for e in elements
                )
            else:
                args = tuple([self.type_expr(e, scope) for e in elements])
            return shared.subscript(base, args)
        if kind is ast.Call:
            function = self.names.qualify(node.func, scope) or self.text.text(node.func)
            refuses = function in _PATTERN_CONSTRAINTS and _refuses_pre_parsed(node)
            names = tuple(k.arg for k in node.keywords if k.arg is not None)
            return shared.call(function, _is_strict_call(node, function), refuses, names)
        return shared.opaque(self.text.text(node))


class SharedTypes:
    """One object per distinct type expression of a module: a module says `str` and
    `Optional[str]` many times, and pickle writes (and reads) an object it has seen once.

    Equal is not enough to share: `Literal[1]` and `Literal[True]` are equal dataclasses (`1 ==
    True`), and so are `0.0` and `-0.0`. Names, texts and calls are keyed by their strings and
    flags; a constant by its type and value, and only of the types whose equal values are the
    same value; a subscript or union by the identities of its parts, which are shared (and kept
    alive by the table) already.
    """

    _EXACT_CONSTANTS = frozenset((type(None), bool, int, str, bytes, type(...)))

    def __init__(self) -> None:
        self.names: dict[str, TName] = {}
        self.opaques: dict[str, TOpaque] = {}
        self.constants: dict[tuple[type, object], TConst] = {}
        self.calls: dict[tuple[str, bool, bool, tuple[str, ...]], TCall] = {}
        self.subscripts: dict[tuple[int, ...], TSubscript] = {}
        self.unions: dict[tuple[int, ...], TUnion] = {}

    def name(self, qualified: str) -> TName:
        found = self.names.get(qualified)
        if found is None:
            found = self.names[qualified] = TName(qualified)
        return found

    def opaque(self, text: str) -> TOpaque:
        found = self.opaques.get(text)
        if found is None:
            found = self.opaques[text] = TOpaque(text)
        return found

    def constant(self, value: str | int | float | bool | None) -> TConst:
        kind = type(value)
        if kind not in self._EXACT_CONSTANTS:
            return TConst(value)
        key = (kind, value)
        found = self.constants.get(key)
        if found is None:
            found = self.constants[key] = TConst(value)
        return found

    def call(
        self, function: str, strict: bool, refuses_pre_parsed: bool, keywords: tuple[str, ...]
    ) -> TCall:
        key = (function, strict, refuses_pre_parsed, keywords)
        found = self.calls.get(key)
        if found is None:
            found = self.calls[key] = TCall(function, strict, refuses_pre_parsed, keywords)
        return found

    def subscript(self, base: TypeExpr, args: tuple[TypeExpr, ...]) -> TSubscript:
        key = (id(base), *map(id, args))
        found = self.subscripts.get(key)
        if found is None:
            found = self.subscripts[key] = TSubscript(base, args)
        return found

    def union(self, members: tuple[TypeExpr, ...]) -> TUnion:
        key = tuple(map(id, members))
        found = self.unions.get(key)
        if found is None:
            found = self.unions[key] = TUnion(members)
        return found


_FIELDS = frozenset(("pydantic.Field", "pydantic.fields.Field"))
# pydantic's constraints whose `pattern=` the field's validator applies to text.
_PATTERN_CONSTRAINTS = frozenset(
    (
        "pydantic.Field",
        "pydantic.fields.Field",
        "pydantic.StringConstraints",
        "pydantic.types.StringConstraints",
    )
)


def _refuses_pre_parsed(node: ast.Call) -> bool:
    pattern = keyword(node, "pattern")
    return (
        isinstance(pattern, ast.Constant)
        and isinstance(pattern.value, str)
        and keeps_out_pre_parsed_text(pattern.value)
    )


def _is_strict_call(node: ast.Call, function: str) -> bool:
    strict = keyword(node, "strict")
    if strict is not None:
        return isinstance(strict, ast.Constant) and strict.value is True
    # `Strict()` is strict by default; `Strict(False)` is not.
    if function.endswith(".Strict"):
        first = node.args[0] if node.args else None
        return first is None or (isinstance(first, ast.Constant) and first.value is True)
    return False


def _is_context(expr: TypeExpr) -> bool:
    """The SDKs inject `Context` parameters, also `Context | None` (they look into a union's
    members); they are not tool arguments."""
    if type(expr) is TUnion:
        return any(_is_context(member) for member in expr.members)
    if type(expr) is TSubscript:
        if type(expr.base) is TName and expr.base.qualified in _UNIONS:
            return any(_is_context(member) for member in expr.args)
        expr = expr.base
    if type(expr) is not TName:
        return False
    qualified = expr.qualified
    return qualified == "Context" or qualified.endswith(".Context")


_UNIONS = frozenset(
    f"{module}.{name}"
    for module in ("typing", "typing_extensions")
    for name in ("Optional", "Union")
)


def _imported_binding(node: ast.Name, scope: Scope) -> str | None:
    """`Count = StrictInt`, `Query = Text` (imported names): the scope keeps such a name as a
    possible server, which it may be too; as a type it is the name it is bound to."""
    symbol = scope.lookup(node.id)
    if (
        symbol is not None
        and symbol.kind is SymbolKind.SERVER
        and symbol.node is None
        and symbol.server is not None
        and symbol.server.kind is ServerKind.IMPORT
    ):
        return symbol.server.qualified
    return None
