"""The calls that may hand a callee of the project a server or a function (`register_tools(mcp)`,
`register_tool("a", a)`), so that the linker can resolve a helper's parameter through them; the
decorations of a project's decorator (`@register`, `@tools.reader("Title")`); and a call of the
project that a function returns (it may return a decorator)."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from mcp_codemod.analysis.facades import FACADE_CLASSES
from mcp_codemod.analysis.facts import UNPACKED, CallSite, FunctionKind, FunctionRef, ServerRef
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.scope import STANDARD_LIBRARY, ClassContext, Names, Scope, SymbolKind
from mcp_codemod.analysis.scan.server_stores import ServerStores
from mcp_codemod.analysis.scan.syntax import last_name

_INERT = frozenset((ast.Constant, ast.JoinedStr))
# What the standard library offers to keep an object in: calls of these store their arguments
# from the one at this position on (the rest of it only reads them: `print(mcp)`,
# `isinstance(mcp, FastMCP)`, and `setattr(mcp, "name", value)` stores into the server, not it).
_STORING_CALLS = {
    "builtins.setattr": 2,
    "builtins.dict": 0,
    "functools.partial": 0,
    "types.SimpleNamespace": 0,
}
_STORING_NAMES = frozenset(name.rpartition(".")[2] for name in _STORING_CALLS)


class CallSites:
    """Collects a module's call sites (`CallSite`)."""

    def __init__(
        self, text: SourceText, names: Names, references: References, server_stores: ServerStores
    ) -> None:
        self.names = names
        self.references = references
        self.server_stores = server_stores
        self.calls: list[CallSite] = []
        self.may_make_facades = any(
            text.may_name(name.rpartition(".")[2]) for name in FACADE_CLASSES
        )

    def decorator_site(
        self, node: ast.expr, qualname: str, scope: Scope, cls: ClassContext | None
    ) -> None:
        """`@register` and `@tools.reader("Title")`: a project helper may register the function."""
        decorated = FunctionRef(FunctionKind.LOCAL, qualname=qualname)
        callee = node.func if isinstance(node, ast.Call) else node
        function = self.references.function_ref(callee, scope, cls)
        if function.kind not in (FunctionKind.LOCAL, FunctionKind.IMPORT, FunctionKind.METHOD):
            return
        bound = self.is_bound(function, callee, cls)
        line = node.lineno
        if isinstance(node, ast.Call):
            # Its literal arguments may name the tool: `@tools.named("x")`.
            strings = tuple(_string(a) for a in node.args)
            string_keywords = _string_keywords(node)
            self.calls.append(
                CallSite(
                    function,
                    bound,
                    (),
                    (),
                    decorates=decorated,
                    line=line,
                    strings=strings,
                    string_keywords=string_keywords,
                )
            )
        else:
            self.calls.append(CallSite(function, bound, (None,), (), (decorated,), line=line))

    def call_site(
        self, node: ast.Call, scope: Scope, cls: ClassContext | None, returned_by: str = ""
    ) -> None:
        """Record a call that passes a possible server or function, so that a callee's
        parameter can be resolved to it (`register_tools(mcp)`, `register_tool("a", a)`), and
        a call of the project that a function returns (it may return a decorator)."""
        if not returned_by and _passes_constants_only(node):
            return  # `f()`, `f("text", n=1)`: nothing a callee could register or be given
        for argument in node.args:
            self.server_stores.store_elements(argument, node.lineno, scope, cls)
        for k in node.keywords:
            self.server_stores.store_elements(k.value, node.lineno, scope, cls)
        references = self.references
        callee: FunctionRef | None = None  # what the call calls, once it is asked
        library = self.is_library_call(node.func, scope)
        if library:
            # `len(x)`, `json.dumps(x)`: no helper of the project; only a server matters.
            arguments = tuple([references.argument_server(a, scope, cls) for a in node.args])
            functions: tuple[FunctionRef | None, ...] = (None,) * len(arguments)
            if last_name(node.func) in _STORING_NAMES:
                stored = _STORING_CALLS.get(self.names.qualify(node.func, scope) or "")
                if stored is not None:
                    self.server_stores.given_on(node, scope, cls, stored)
        else:
            if not self.may_make_facades:
                # Resolving the arguments changes nothing (only a facade's construction is
                # recorded), and a callee that cannot be followed is never recorded: ask first.
                callee = references.followed(node.func, scope, cls)
                if callee is None or callee.kind is FunctionKind.UNKNOWN:
                    self.server_stores.given_on(node, scope, cls)
                    return
            passed = [references.argument(a, scope, cls) for a in node.args]
            arguments = tuple([server for server, _ in passed])
            functions = tuple([function for _, function in passed])
        keywords: tuple[tuple[str, ServerRef], ...] = ()
        function_keywords: tuple[tuple[str, FunctionRef], ...] = ()
        for k in node.keywords:
            if k.arg:
                server, function = references.argument(k.value, scope, cls)
                if server is not None:
                    keywords += ((k.arg, server),)
                if function is not None:
                    function_keywords += ((k.arg, function),)
            else:
                # `helper(**options)`: any parameter may be passed, and nothing can be followed.
                function_keywords += ((UNPACKED, FunctionRef(FunctionKind.UNKNOWN)),)
        if (
            not keywords
            and arguments.count(None) == len(arguments)
            and not _any_follows(functions)
            and not _any_follows([f for _, f in function_keywords])
        ):
            # Only arguments that cannot be followed (`helper(a if fast else b)`): they matter
            # if the callee is a helper that registers them, so only for the project's callees;
            # so does a returned call of the project, whatever it passes (it may make a
            # decorator).
            passes = any(f is not None for f in functions) or function_keywords
            if not passes and not returned_by:
                return
            function = callee or references.function_ref(node.func, scope, cls)
            if not _may_be_project(function):
                return
        else:
            function = callee or references.function_ref(node.func, scope, cls)
        if function.kind is FunctionKind.UNKNOWN:
            if not library:
                self.server_stores.given_on(node, scope, cls)
        else:
            self.calls.append(
                CallSite(
                    function,
                    self.is_bound(function, node.func, cls),
                    arguments,
                    keywords,
                    functions,
                    function_keywords,
                    line=node.lineno,
                    strings=tuple([_string(a) for a in node.args]),
                    string_keywords=_string_keywords(node),
                    returned_by=returned_by,
                )
            )

    def is_library_call(self, callee: ast.expr, scope: Scope) -> bool:
        """A call of a builtin or of the standard library (decided on the callee's first name)."""
        while isinstance(callee, ast.Attribute):
            callee = callee.value
        if not isinstance(callee, ast.Name):
            return False
        symbol = scope.lookup(callee.id)
        if symbol is None:
            return not self.names.star_imports
        return (
            symbol.kind is SymbolKind.IMPORT
            and symbol.qualified.partition(".")[0] in STANDARD_LIBRARY
        )

    def is_bound(self, function: FunctionRef, callee: ast.expr, cls: ClassContext | None) -> bool:
        """Whether the call passes `self` implicitly: `instance.method(...)`, `self.method(...)`."""
        return function.kind is FunctionKind.METHOD or (
            cls is not None
            and isinstance(callee, ast.Attribute)
            and isinstance(callee.value, ast.Name)
            and callee.value.id == cls.self_name
        )


def _string(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _string_keywords(call: ast.Call) -> tuple[tuple[str, str], ...]:
    """The keyword arguments that are string literals."""
    if not call.keywords:  # most calls
        return ()
    return tuple(
        [(k.arg, value) for k in call.keywords if k.arg and (value := _string(k.value)) is not None]
    )


def _any_follows(functions: Iterable[FunctionRef | None]) -> bool:
    for function in functions:  # a loop: asked for most calls, and cheaper than `any(...)`
        if function is not None and function.kind is not FunctionKind.UNKNOWN:
            return True
    return False


def _passes_constants_only(call: ast.Call) -> bool:
    for argument in call.args:  # a loop: asked for every call, and cheaper than `all(...)`
        if type(argument) not in _INERT:
            return False
    return all(type(k.value) in _INERT for k in call.keywords)


def _may_be_project(function: FunctionRef) -> bool:
    if function.kind is FunctionKind.IMPORT:
        return function.qualified.partition(".")[0] not in STANDARD_LIBRARY
    return function.kind in (FunctionKind.LOCAL, FunctionKind.METHOD)
