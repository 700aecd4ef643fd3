"""What an expression refers to: a server (constructed, imported, a parameter, an attribute of
`self`) or a function (local, imported, a method of an instance)."""

from __future__ import annotations

import ast
from dataclasses import replace

from mcp_codemod.analysis.facades import FACADE_CLASSES, SERVER_MAKERS
from mcp_codemod.analysis.facts import FunctionKind, FunctionRef, ServerKind, ServerRef
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.scope import STAR, ClassContext, Names, Scope, SymbolKind
from mcp_codemod.analysis.scan.syntax import keyword

# An argument that cannot be followed to a function (named by the call's position in messages).
_OPAQUE = FunctionRef(FunctionKind.UNKNOWN)


class References:
    def __init__(self, text: SourceText, names: Names) -> None:
        self.text = text
        self.names = names
        # Each facade construction, by its position: the server it stands for (scanned once,
        # resolved perhaps several times).
        self.facades: dict[tuple[int, int], ServerRef] = {}
        # One reference per imported name and per parameter, shared by its uses (they are frozen,
        # and a scan asks for thousands).
        self.imported_servers: dict[str, ServerRef] = {}
        self.imported_functions: dict[str, FunctionRef] = {}
        self.parameter_functions: dict[tuple[str, tuple[int, str] | None], FunctionRef] = {}

    def server_from_value(self, value: ast.expr, scope: Scope) -> ServerRef | None:
        """The server an assigned value may be: a construction, a `guard(...)`, another name."""
        if type(value) is ast.Call:  # parsed nodes are of the exact classes
            function = self.names.qualify(value.func, scope)
            if function is not None and function.rpartition(".")[2] == "guard" and value.args:
                inner = self.server_from_value(value.args[0], scope)
                if inner is not None:
                    return ServerRef(
                        inner.kind,
                        qualified=inner.qualified,
                        strict_input_validation=inner.strict_input_validation,
                        guarded_by=function,
                        class_span=inner.class_span,
                        line=inner.line,
                        facade=inner.facade,
                        class_choices=inner.class_choices,
                    )
                return None
            if function is None or function.startswith("?"):
                return None
            if function in SERVER_MAKERS:
                # `create_mcp_server_for_app(app)`: the server of the application object.
                app = value.args[0] if value.args else keyword(value, "app")
                made_for = (
                    self.argument_server(app, scope, None) or self.server_from_value(app, scope)
                    if app is not None
                    else None
                )
                if made_for is not None:
                    return made_for
            if function in FACADE_CLASSES:
                return self.facade(value, function, scope)
            strict = bool(value.keywords) and any(
                k.arg == "strict_input_validation"
                and isinstance(k.value, ast.Constant)
                and k.value.value is True
                for k in value.keywords
            )
            return ServerRef(
                ServerKind.CONSTRUCT,
                qualified=function,
                strict_input_validation=strict,
                class_span=self.text.span(value.func),
                line=value.lineno,
                class_choices=self.names.alternatives(value.func, scope),
                call_span=self.text.span(value),
            )
        if type(value) is ast.Name:
            symbol = scope.lookup(value.id)
            if symbol is not None and symbol.kind is SymbolKind.EXPRESSION:
                return self.server_from_value(symbol.node, symbol.scope)
            if symbol is not None and symbol.kind is SymbolKind.SERVER:
                return symbol.server
            if symbol is not None and symbol.kind is SymbolKind.IMPORT:
                return self.imported_server(symbol.qualified)
        return None

    def imported_server(self, qualified: str) -> ServerRef:
        found = self.imported_servers.get(qualified)
        if found is None:
            found = ServerRef(ServerKind.IMPORT, qualified=qualified)
            self.imported_servers[qualified] = found
        return found

    def imported_function(self, qualified: str) -> FunctionRef:
        found = self.imported_functions.get(qualified)
        if found is None:
            found = FunctionRef(FunctionKind.IMPORT, qualified=qualified)
            self.imported_functions[qualified] = found
        return found

    def parameter_function(self, server: ServerRef) -> FunctionRef:
        """The parameter of a helper that `server` stands for, as a function it may be given."""
        key = (server.function, server.argument)
        found = self.parameter_functions.get(key)
        if found is None:
            found = FunctionRef(
                FunctionKind.PARAMETER, helper=server.function, argument=server.argument
            )
            self.parameter_functions[key] = found
        return found

    def facade(self, call: ast.Call, facade: str, scope: Scope) -> ServerRef:
        """`MCPApp(...)`: its tools go to the server it is given (`mcp=FastMCP(...)`), else to
        the one its framework makes for it."""
        name, position = FACADE_CLASSES[facade].server_argument
        given = keyword(call, name)
        if given is None and len(call.args) > position:
            given = call.args[position]
        server = self.argument_server(given, scope, None) if given is not None else None
        if server is not None:
            made = replace(server, facade=facade)
        else:
            span = self.text.span(call.func)
            made = ServerRef(
                ServerKind.CONSTRUCT,
                qualified=facade,
                class_span=span,
                line=call.lineno,
                facade=facade,
            )
        self.facades[(call.lineno, call.col_offset)] = made
        return made

    def argument_server(
        self, node: ast.expr, scope: Scope, cls: ClassContext | None
    ) -> ServerRef | None:
        kind = type(node)  # parsed nodes are of the exact classes
        if kind is ast.Name:
            symbol = scope.lookup(node.id)
            if symbol is None and self.names.star_imports:
                # `from .app import *`
                return ServerRef(ServerKind.IMPORT, qualified=f"{STAR}{node.id}")
            if symbol is not None and symbol.kind is SymbolKind.EXPRESSION:
                return self.argument_server(symbol.node, symbol.scope, cls)
            return symbol.server if symbol is not None else None
        if (
            kind is ast.Attribute
            and cls is not None
            and type(node.value) is ast.Name
            and node.value.id == cls.self_name
        ):
            return cls.attributes.get(node.attr)
        if kind is ast.Call:
            return self.server_from_value(node, scope)
        return None

    def bound_method(
        self, node: ast.expr, scope: Scope, cls: ClassContext | None = None
    ) -> FunctionRef | None:
        """`instance.method` where the instance was made by calling a class, or is annotated."""
        if not isinstance(node, ast.Attribute):
            return None
        instance = self.argument_server(node.value, scope, cls)
        if instance is not None and instance.kind in (ServerKind.CONSTRUCT, ServerKind.ANNOTATED):
            # `tools = LogsTools(); tools.register(mcp)`, or `LogsTools().register(mcp)`
            return FunctionRef(
                FunctionKind.METHOD, instance_class=instance.qualified, method=node.attr
            )
        return None

    def server_ref(self, node: ast.expr, scope: Scope, cls: ClassContext | None) -> ServerRef:
        if cls is not None and isinstance(node, ast.Name) and node.id == cls.self_name:
            # `self.tool(...)` in a method: the server is an instance of this class.
            return ServerRef(ServerKind.ANNOTATED, qualified=f"{self.names.module}.{cls.qualname}")
        server = self.argument_server(node, scope, cls)
        if server is not None:
            return server
        if (
            isinstance(node, ast.Name)
            and scope.lookup(node.id) is None
            and self.names.qualify(node, scope) == f"?{node.id}"
        ):
            # Bound by no statement here: a module that execs this file may bind it.
            return ServerRef(ServerKind.FREE, free_name=node.id)
        if isinstance(node, ast.Attribute) or (
            isinstance(node, ast.Name)
            and getattr(scope.lookup(node.id), "kind", SymbolKind.IMPORT)
            in (SymbolKind.IMPORT, SymbolKind.EXPRESSION)
        ):
            # A name bound elsewhere: `from .server import mcp`, `app_module.mcp`, or by a star
            # import.
            qualified = self.names.qualify(node, scope)
            if qualified and not qualified.startswith("?"):
                return self.imported_server(qualified)
        return ServerRef(ServerKind.UNKNOWN)

    def function_ref(self, node: ast.expr, scope: Scope, cls: ClassContext | None) -> FunctionRef:
        found = self.followed(node, scope, cls)
        if found is None:
            return FunctionRef(FunctionKind.UNKNOWN, text=self.text.label(node))
        return found

    def followed(
        self, node: ast.expr, scope: Scope, cls: ClassContext | None
    ) -> FunctionRef | None:
        """The function an expression refers to; None when it cannot be followed."""
        kind = type(node)  # parsed nodes are of the exact classes
        if kind is ast.Name:
            symbol = scope.lookup(node.id)
            if symbol is None:
                return (
                    FunctionRef(FunctionKind.IMPORT, qualified=f"{STAR}{node.id}")
                    if self.names.star_imports
                    else None
                )
            bound = symbol.kind
            if bound is SymbolKind.FUNCTION:
                return FunctionRef(FunctionKind.LOCAL, qualname=symbol.qualname)
            if bound in (SymbolKind.IMPORT, SymbolKind.CLASS):
                # A class is "called" through its `__init__`: `Handler(mcp)`.
                return self.imported_function(symbol.qualified)
            if bound is SymbolKind.METHOD or bound is SymbolKind.LOOP:
                return symbol.function
            if bound is SymbolKind.EXPRESSION:
                return self.followed(symbol.node, symbol.scope, cls)  # type: ignore[arg-type]
            if isinstance(symbol.node, ast.Call) and bound in (SymbolKind.SERVER, SymbolKind.OTHER):
                # `tool = factory(...)`: only the factory can tell what the tool is.
                factory = self.factory(symbol.node, symbol.scope, cls)  # type: ignore[arg-type]
                if factory is None:
                    return None
                return FunctionRef(FunctionKind.UNKNOWN, text=node.id, factory=factory)
            if symbol.server is not None and symbol.server.argument:
                # A helper's parameter: `def register_tool(name, fn): mcp.tool(name)(fn)`.
                server = symbol.server
                return self.parameter_function(server)
            return None
        if kind is ast.Attribute:
            if cls is not None and type(node.value) is ast.Name and node.value.id == cls.self_name:
                return FunctionRef(FunctionKind.LOCAL, qualname=f"{cls.qualname}.{node.attr}")
            method = self.bound_method(node, scope, cls)
            if method is not None:
                return method
            qualified = self.names.qualify(node, scope)
            if qualified and not qualified.startswith("?"):
                return self.imported_function(qualified)
            return None
        if kind is ast.Call:
            made = self.made(node, scope, cls)
            factory = self.factory(node, scope, cls)
            if factory is None:
                return made
            if made is None:
                return FunctionRef(
                    FunctionKind.UNKNOWN, text=self.text.label(node), factory=factory
                )
            return replace(made, factory=factory)
        return None

    def made(self, node: ast.Call, scope: Scope, cls: ClassContext | None) -> FunctionRef | None:
        # `wrap(fn)`: the SDKs read the signature through `functools.wraps`' `__wrapped__`.
        if len(node.args) == 1 and not node.keywords:
            return self.followed(node.args[0], scope, cls)
        # `paginating(name, fn)`: the one argument that is a function is the tool.
        arguments = [*node.args, *(k.value for k in node.keywords)]
        candidates = tuple(
            ref
            for argument in arguments
            if not isinstance(argument, ast.Constant)
            and (ref := self.followed(argument, scope, cls)) is not None
        )
        if candidates:
            return FunctionRef(
                FunctionKind.WRAPPED, text=self.text.label(node), candidates=candidates
            )
        return None

    def factory(self, node: ast.Call, scope: Scope, cls: ClassContext | None) -> FunctionRef | None:
        """The function a call calls, when it may be the project's (`reach` asks whether it
        generates the signature of the function it returns)."""
        if not isinstance(node.func, ast.Name | ast.Attribute):
            return None
        called = self.followed(node.func, scope, cls)
        kinds = (FunctionKind.LOCAL, FunctionKind.IMPORT, FunctionKind.METHOD)
        return called if called is not None and called.kind in kinds else None

    def argument(
        self, node: ast.expr, scope: Scope, cls: ClassContext | None
    ) -> tuple[ServerRef | None, FunctionRef | None]:
        """An argument of a call: the server it may be, and the function it may be (see
        `function_argument`). Asked for every argument of every call that may matter."""
        kind = type(node)  # parsed nodes are of the exact classes
        if kind is ast.Constant or kind is ast.JoinedStr:
            return None, None
        if kind is ast.Name:
            symbol = scope.lookup(node.id)
            if symbol is not None and symbol.kind in (
                SymbolKind.OTHER,
                SymbolKind.COLLECTION,
                SymbolKind.ALIAS,
            ):
                return None, _OPAQUE
            if symbol is not None and symbol.kind is SymbolKind.SERVER:
                server = symbol.server
                assert server is not None
                if server.argument is None:
                    return server, _OPAQUE
                if symbol.node is None:  # a helper's parameter, as `followed` tells
                    return server, self.parameter_function(server)
            if symbol is not None and symbol.kind is SymbolKind.IMPORT:
                # `register(server=mcp)` with `from .server import mcp`: a server, or a function
                # (`add_tool(tool=search)`); the linker tells which.
                qualified = symbol.qualified
                return self.imported_server(qualified), self.imported_function(qualified)
        return (
            self.argument_server(node, scope, cls),
            self.function_argument(node, scope, cls),
        )

    def function_argument(
        self, node: ast.expr, scope: Scope, cls: ClassContext | None
    ) -> FunctionRef | None:
        """What an argument refers to, when it may be a function: None for constants, an
        UNKNOWN reference (without text: asked for every argument of every call that may
        matter) for what cannot be followed."""
        kind = type(node)
        if kind is ast.Constant or kind is ast.JoinedStr:
            return None
        found = self.followed(node, scope, cls)
        return found if found is not None else _OPAQUE
