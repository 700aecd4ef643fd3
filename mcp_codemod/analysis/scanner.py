"""Extract `ModuleFacts` from one module's syntax tree.

The walk visits statements, decorators, assignments and parameters only: never every expression
node. Names are resolved with a small scope model (module, function and class bodies) that knows
imports, functions, classes, type aliases and objects that may be servers.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from mcp_codemod.analysis.facts import (
    Alias,
    AnnotationSite,
    CallSite,
    ClassBase,
    Function,
    FunctionRef,
    ModuleFacts,
    Parameter,
    Position,
    RefKind,
    Registration,
    ServerRef,
    Span,
)
from mcp_codemod.analysis.frameworks import GUARD_FUNCTIONS, INSTALL_FUNCTIONS
from mcp_codemod.analysis.types import (
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
from mcp_codemod.sources import split_lines

_BUILTIN_NAMES = frozenset(dir(builtins))
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)
_COMPOUND_BODIES = ("body", "orelse", "finalbody")
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    *([ast.TryStar] if hasattr(ast, "TryStar") else []),  # Python 3.11+
)
# Text without which a statement holds no registration, guard or install call. (`.tool` may be
# split from its dot by blanks or a line break: `tool` alone is enough.)
_REGISTERS = re.compile(r"tool|guard|install")


@dataclass(frozen=True)
class _Symbol:
    kind: str  # import | function | method | class | alias | server | other
    target: str = ""
    method: str = ""  # for a method: its name; `target` is the instance's class
    server: ServerRef | None = None


@dataclass
class _Scope:
    qualname: str  # "" for the module
    parent: _Scope | None
    names: dict[str, _Symbol] = field(default_factory=dict)

    def lookup(self, name: str) -> _Symbol | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


@dataclass
class _ClassContext:
    qualname: str
    self_name: str = "self"
    attributes: dict[str, ServerRef] = field(default_factory=dict)


def scan_module(
    source: str, tree: ast.Module, module: str, path: str, is_package: bool
) -> ModuleFacts:
    return _Scanner(source, module, path, is_package).scan(tree)


def noqa_lines(source: str) -> dict[int, frozenset[str] | None]:
    found: dict[int, frozenset[str] | None] = {}
    if "noqa" not in source and "NOQA" not in source:
        return found
    for number, line in enumerate(split_lines(source), start=1):
        match = _NOQA.search(line)
        if match:
            codes = match.group("codes")
            found[number] = (
                frozenset(c.strip().upper() for c in codes.split(",")) if codes else None
            )
    return found


class _Scanner:
    def __init__(self, source: str, module: str, path: str, is_package: bool) -> None:
        self.lines = split_lines(source)
        self.module = module
        self.path = path
        self.package = module if is_package else module.rpartition(".")[0]
        self.functions: dict[str, Function] = {}
        self.classes: dict[str, tuple[ClassBase, ...]] = {}
        self.aliases: dict[str, Alias] = {}
        self.registrations: list[Registration] = []
        self.calls: list[CallSite] = []
        self.guard_calls: list[ServerRef] = []
        self.installs_guard = False
        self.source = source
        self.postponed_annotations = False

    # ---- entry -----------------------------------------------------------------------------
    def scan(self, tree: ast.Module) -> ModuleFacts:
        self.postponed_annotations = any(
            isinstance(node, ast.ImportFrom)
            and node.module == "__future__"
            and any(alias.name == "annotations" for alias in node.names)
            for node in tree.body
        )
        scope = _Scope("", None)
        self.bind_statements(tree.body, scope, module_level=True)
        self.walk(tree.body, scope, None)
        names = scope.names
        return ModuleFacts(
            module=self.module,
            path=self.path,
            imports={n: s.target for n, s in names.items() if s.kind == "import"},
            servers={n: s.server for n, s in names.items() if s.server is not None},
            functions=self.functions,
            classes=self.classes,
            aliases=self.aliases,
            registrations=tuple(self.registrations),
            calls=tuple(self.calls),
            guard_calls=tuple(self.guard_calls),
            installs_guard=self.installs_guard,
            noqa=noqa_lines(self.source),
        )

    # ---- positions -------------------------------------------------------------------------
    def position(self, line: int, byte_column: int) -> Position:
        # ast columns count UTF-8 bytes; findings and the fixer count characters.
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return Position(line, byte_column)
        return Position(line, len(text.encode("utf-8")[:byte_column].decode("utf-8", "replace")))

    def start(self, node: ast.AST) -> Position:
        return self.position(node.lineno, node.col_offset)

    def span(self, node: ast.AST) -> Span:
        return Span(self.start(node), self.position(node.end_lineno, node.end_col_offset))

    def segment(self, node: ast.AST) -> str:
        """The node's source text (`ast.get_source_segment` re-splits the whole file per call)."""
        first, last = node.lineno - 1, node.end_lineno - 1
        lines = [line.encode("utf-8") for line in self.lines[first : last + 1]]
        if first == last:
            return lines[0][node.col_offset : node.end_col_offset].decode("utf-8", "replace")
        lines[0], lines[-1] = lines[0][node.col_offset :], lines[-1][: node.end_col_offset]
        return b"\n".join(lines).decode("utf-8", "replace")

    def text(self, node: ast.AST) -> str:
        """The node's source as one line, for messages."""
        if node.lineno == node.end_lineno:
            return self.segment(node)
        return ast.unparse(node)

    # ---- names -----------------------------------------------------------------------------
    def qualify(self, node: ast.expr, scope: _Scope) -> str | None:
        """The qualified name a Name or dotted Attribute refers to; None for other expressions."""
        if isinstance(node, ast.Name):
            symbol = scope.lookup(node.id)
            if symbol is None:
                return f"builtins.{node.id}" if node.id in _BUILTIN_NAMES else f"?{node.id}"
            if symbol.kind in ("import", "class", "alias"):
                return symbol.target
            if symbol.kind == "function":
                return f"{self.module}.{symbol.target}"
            return f"?{node.id}"
        if isinstance(node, ast.Attribute):
            base = self.qualify(node.value, scope)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def absolute_module(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = self.package.split(".") if self.package else []
        base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        return ".".join([*base, node.module] if node.module else base)

    # ---- binding pass ----------------------------------------------------------------------
    def bind_statements(self, body: list[ast.stmt], scope: _Scope, module_level: bool) -> None:
        """Record what each name in this scope refers to, before any use is resolved."""
        for statement in body:
            self.bind_statement(statement, scope, module_level)

    def bind_statement(self, node: ast.stmt, scope: _Scope, module_level: bool) -> None:
        names = scope.names
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = _Symbol("import", alias.name)
                else:
                    top = alias.name.split(".")[0]
                    names[top] = _Symbol("import", top)
        elif isinstance(node, ast.ImportFrom):
            base = self.absolute_module(node)
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = _Symbol("import", f"{base}.{alias.name}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
            names[node.name] = _Symbol("function", qualname)
        elif isinstance(node, ast.ClassDef):
            names[node.name] = _Symbol("class", f"{self.module}.{node.name}")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.bind_value(target.id, node.value, None, scope, module_level)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            self.bind_value(node.target.id, node.value, node.annotation, scope, module_level)
        elif module_level and type(node).__name__ == "TypeAlias":  # `type X = ...`, Python 3.12+
            name = node.name.id  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            names[name] = _Symbol("alias", f"{self.module}.{name}")
            self.aliases[name] = Alias(
                self.type_expr(value, scope), True, self.alias_site(value, scope)
            )
        else:
            for child in _nested_bodies(node):
                self.bind_statements(child, scope, module_level)

    def bind_value(
        self,
        name: str,
        value: ast.expr | None,
        annotation: ast.expr | None,
        scope: _Scope,
        module_level: bool,
    ) -> None:
        annotation_name = self.qualify(annotation, scope) if annotation is not None else None
        if annotation_name in ("typing.TypeAlias", "typing_extensions.TypeAlias") and value:
            scope.names[name] = _Symbol("alias", f"{self.module}.{name}")
            self.aliases[name] = Alias(
                self.type_expr(value, scope), False, self.alias_site(value, scope)
            )
            return
        server = self.server_from_value(value, scope) if value is not None else None
        if server is None and annotation is not None and annotation_name:
            server = ServerRef(RefKind.ANNOTATED, annotation_name)
        method = self.bound_method(value, scope) if value is not None else None
        if server is not None:
            scope.names[name] = _Symbol("server", server=server)
        elif method is not None:
            # `list_tables = backend.list_tables`: registered later under the alias.
            scope.names[name] = _Symbol("method", method.target, method.method)
        elif module_level and isinstance(
            value, ast.Subscript | ast.BinOp | ast.Name | ast.Attribute
        ):
            scope.names[name] = _Symbol("alias", f"{self.module}.{name}")
            self.aliases[name] = Alias(
                self.type_expr(value, scope), False, self.alias_site(value, scope)
            )
        else:
            scope.names[name] = _Symbol("other")

    def server_from_value(self, value: ast.expr, scope: _Scope) -> ServerRef | None:
        """The server an assigned value may be: a construction, a `guard(...)`, another name."""
        if isinstance(value, ast.Call):
            function = self.qualify(value.func, scope)
            if function in GUARD_FUNCTIONS and value.args:
                inner = self.server_from_value(value.args[0], scope)
                if inner is not None:
                    return ServerRef(
                        inner.kind,
                        inner.target,
                        inner.strict_input_validation,
                        True,
                        inner.class_span,
                        inner.line,
                    )
                return None
            if function is None or function.startswith("?"):
                return None
            strict = any(
                k.arg == "strict_input_validation"
                and isinstance(k.value, ast.Constant)
                and k.value.value is True
                for k in value.keywords
            )
            return ServerRef(
                RefKind.CONSTRUCT, function, strict, False, self.span(value.func), value.lineno
            )
        if isinstance(value, ast.Name):
            symbol = scope.lookup(value.id)
            if symbol is not None and symbol.kind == "server":
                return symbol.server
            if symbol is not None and symbol.kind == "import":
                return ServerRef(RefKind.IMPORT, symbol.target)
        return None

    # ---- walking pass ----------------------------------------------------------------------
    def walk(self, body: list[ast.stmt], scope: _Scope, cls: _ClassContext | None) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.function(node, scope, cls)
            elif isinstance(node, ast.ClassDef):
                self.class_def(node, scope)
            else:
                nested = _nested_bodies(node)
                if nested:
                    for expression in _header_expressions(node):
                        self.calls_in(expression, scope, cls)
                    for child in nested:
                        self.walk(child, scope, cls)
                else:
                    self.calls_in(node, scope, cls)

    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        scope: _Scope,
        cls: _ClassContext | None,
        is_method: bool = False,
    ) -> None:
        # A function nested in a method is no method: it keeps the method's `self` in reach
        # (`cls`) but its own name and all its parameters.
        qualname = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
        if is_method and cls is not None:
            qualname = f"{cls.qualname}.{node.name}"
        is_static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
        )
        local = _Scope(qualname, scope)
        self.bind_parameters(node, local)
        self.bind_statements(node.body, local, module_level=False)
        self.functions[qualname] = Function(
            qualname=qualname,
            position=self.def_position(node),
            parameters=self.parameters(node, scope, skip_first=is_method and not is_static),
            is_method=is_method,
            returns=self.returned_servers(node.body, local),
        )
        for decorator in node.decorator_list:
            self.decorator(decorator, qualname, scope, cls)
        self.walk(node.body, local, cls)

    def returned_servers(self, body: list[ast.stmt], local: _Scope) -> tuple[ServerRef, ...]:
        """What a factory function (`def create_server(): ... return FastMCP(...)`) returns."""
        found = []
        pending = list(body)
        while pending:
            statement = pending.pop(0)
            if isinstance(statement, ast.Return) and statement.value is not None:
                server = self.server_from_value(statement.value, local)
                if server is not None:
                    found.append(server)
            elif not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for nested in _nested_bodies(statement):
                    pending.extend(nested)
        return tuple(found)

    def def_position(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Position:
        # `lineno` is the `def` line (decorators have their own); the column points at `def`/`async`.
        return self.position(node.lineno, node.col_offset)

    def bind_parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef, local: _Scope) -> None:
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        for index, arg in enumerate([*positional, *arguments.kwonlyargs]):
            annotation = self.qualify(arg.annotation, local.parent) if arg.annotation else None
            if annotation is None and isinstance(arg.annotation, ast.Constant):
                annotation = self.string_annotation_name(arg.annotation, local)
            # `def register(mcp): ...`: the server is what the callers pass; an annotation
            # names its class, for when no caller is in sight.
            where = (index if index < len(positional) else -1, arg.arg)
            if annotation and not annotation.startswith("?"):
                server = ServerRef(
                    RefKind.ANNOTATED, annotation, function=local.qualname, argument=where
                )
            else:
                server = ServerRef(RefKind.PARAMETER, "", function=local.qualname, argument=where)
            local.names[arg.arg] = _Symbol("server", server=server)

    def string_annotation_name(self, node: ast.Constant, scope: _Scope) -> str | None:
        if not isinstance(node.value, str):
            return None
        try:
            inner = ast.parse(node.value.strip(), mode="eval").body
        except SyntaxError:
            return None
        return self.qualify(inner, scope)

    def class_def(self, node: ast.ClassDef, scope: _Scope) -> None:
        qualname = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
        # `FastMCP[LifespanT]`: the class is the subscripted value, and that is what a fix renames.
        bases = [base.value if isinstance(base, ast.Subscript) else base for base in node.bases]
        self.classes[node.name] = tuple(
            ClassBase(name, self.span(base))
            for base in bases
            if (name := self.qualify(base, scope)) is not None
        )
        body_scope = _Scope(qualname, scope)
        self.bind_statements(node.body, body_scope, module_level=False)
        context = _ClassContext(qualname)
        self.collect_attributes(node, scope, context)
        # Methods resolve names in the enclosing scope, not the class body: Python's own rule.
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                self.function(statement, scope, context, is_method=True)
            elif isinstance(statement, ast.ClassDef):
                self.class_def(statement, scope)
            else:
                self.walk([statement], body_scope, context)

    def collect_attributes(self, node: ast.ClassDef, scope: _Scope, cls: _ClassContext) -> None:
        """`self.mcp = FastMCP(...)` or `self.mcp = mcp` (a parameter annotated with a server)."""
        for method in node.body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            positional = [*method.args.posonlyargs, *method.args.args]
            if not positional:
                continue
            self_name = positional[0].arg
            local = _Scope(f"{cls.qualname}.{method.name}", scope)
            self.bind_parameters(method, local)
            self.bind_statements(method.body, local, module_level=False)
            for statement in _statements(method.body):
                targets: list[ast.expr] = []
                value: ast.expr | None = None
                annotation: ast.expr | None = None
                if isinstance(statement, ast.Assign):
                    targets, value = statement.targets, statement.value
                elif isinstance(statement, ast.AnnAssign):
                    targets, value = [statement.target], statement.value
                    annotation = statement.annotation
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == self_name
                    ):
                        server = self.server_from_value(value, local) if value else None
                        if server is None and annotation is not None:
                            name = self.qualify(annotation, scope)
                            server = ServerRef(RefKind.ANNOTATED, name) if name else None
                        if server is not None:
                            cls.attributes[target.attr] = server

    # ---- registrations ---------------------------------------------------------------------
    def decorator(
        self, node: ast.expr, qualname: str, scope: _Scope, cls: _ClassContext | None
    ) -> None:
        call = node if isinstance(node, ast.Call) else None
        target = call.func if call else node
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "tool"
            and not _is_super(target.value)
        ):
            self.registrations.append(
                Registration(
                    server=self.server_ref(target.value, scope, cls),
                    server_text=self.text(target.value),
                    function=FunctionRef(RefKind.LOCAL, qualname),
                    tool_name=_tool_name(call),
                    form="decorator",
                    position=self.start(node),
                )
            )
        elif call is not None:
            self.calls_in(call, scope, cls)

    def calls_in(self, node: ast.AST, scope: _Scope, cls: _ClassContext | None) -> None:
        if self.may_register(node):
            calls = [call for call in ast.walk(node) if isinstance(call, ast.Call)]
        else:
            # No registration or guard can be in here: only a call passing a server on
            # (`register_tools(mcp)`, `Handler(mcp)`) matters, and such a call is the statement
            # itself or its value. Walking every expression would cost more than parsing.
            calls = _root_calls(node)
        # In `server.tool(name)(fn)` the inner call is part of the outer registration.
        inner = {id(call.func) for call in calls if isinstance(call.func, ast.Call)}
        for call in calls:
            if id(call) not in inner:
                self.call(call, scope, cls)

    def may_register(self, node: ast.AST) -> bool:
        if not hasattr(node, "lineno"):  # a `with` item: no position of its own
            return True
        first, last = node.lineno - 1, node.end_lineno
        return any(_REGISTERS.search(line) for line in self.lines[first:last])

    def call(self, node: ast.Call, scope: _Scope, cls: _ClassContext | None) -> None:
        func = node.func
        # `server.tool(name=...)(fn)`: the call form used for methods and late registration.
        if (
            isinstance(func, ast.Call)
            and isinstance(func.func, ast.Attribute)
            and func.func.attr == "tool"
            and node.args
        ):
            self.register(func.func.value, node.args[0], _tool_name(func), "call", node, scope, cls)
        elif isinstance(func, ast.Attribute) and func.attr == "add_tool":
            target = node.args[0] if node.args else _keyword(node, "fn", "tool")
            if target is not None:
                name = _constant_keyword(node, "name")
                if isinstance(target, ast.Call) and _is_from_function(target):
                    name = _constant_keyword(target, "name") or name
                    target = target.args[0] if target.args else _keyword(target, "fn")
                if target is not None:
                    self.register(func.value, target, name, "add_tool", node, scope, cls)
        elif isinstance(func, ast.Attribute) and func.attr == "tool" and node.args:
            # fastmcp accepts `server.tool(fn)`; a first argument that is a string is a name.
            first = node.args[0]
            if not isinstance(first, ast.Constant):
                self.register(func.value, first, _tool_name(node), "call", node, scope, cls)
        else:
            qualified = self.qualify(func, scope)
            if qualified in GUARD_FUNCTIONS and node.args:
                self.guard_calls.append(self.server_ref(node.args[0], scope, cls))
            elif qualified in INSTALL_FUNCTIONS:
                self.installs_guard = True
            else:
                self.call_site(node, scope, cls)

    def call_site(self, node: ast.Call, scope: _Scope, cls: _ClassContext | None) -> None:
        """Record a call that passes a possible server, so that a callee's unannotated
        parameter can be resolved to it."""
        arguments = tuple(self.argument_server(a, scope, cls) for a in node.args)
        keywords = tuple(
            (k.arg, server)
            for k in node.keywords
            if k.arg and (server := self.argument_server(k.value, scope, cls)) is not None
        )
        if not keywords and all(a is None for a in arguments):
            return
        function = self.function_ref(node.func, scope, cls)
        if function.kind is not RefKind.UNKNOWN:
            self.calls.append(
                CallSite(function, function.kind is RefKind.METHOD, arguments, keywords)
            )

    def bound_method(
        self, node: ast.expr, scope: _Scope, cls: _ClassContext | None = None
    ) -> FunctionRef | None:
        """`instance.method` where the instance was made by calling a class, or is annotated."""
        if not isinstance(node, ast.Attribute):
            return None
        instance = self.argument_server(node.value, scope, cls)
        if instance is not None and instance.kind in (RefKind.CONSTRUCT, RefKind.ANNOTATED):
            # `tools = LogsTools(); tools.register(mcp)`, or `LogsTools().register(mcp)`
            return FunctionRef(RefKind.METHOD, instance.target, node.attr)
        return None

    def argument_server(
        self, node: ast.expr, scope: _Scope, cls: _ClassContext | None
    ) -> ServerRef | None:
        if isinstance(node, ast.Name):
            symbol = scope.lookup(node.id)
            return symbol.server if symbol is not None else None
        if (
            isinstance(node, ast.Attribute)
            and cls is not None
            and isinstance(node.value, ast.Name)
            and node.value.id == cls.self_name
        ):
            return cls.attributes.get(node.attr)
        if isinstance(node, ast.Call):
            return self.server_from_value(node, scope)
        return None

    def register(
        self,
        server: ast.expr,
        target: ast.expr,
        tool_name: str | None,
        form: str,
        node: ast.Call,
        scope: _Scope,
        cls: _ClassContext | None,
    ) -> None:
        if _is_super(server):
            return  # a server subclass forwarding its own `tool()` to the framework
        self.registrations.append(
            Registration(
                server=self.server_ref(server, scope, cls),
                server_text=self.text(server),
                function=self.function_ref(target, scope, cls),
                tool_name=tool_name,
                form=form,
                position=self.start(node),
            )
        )

    def server_ref(self, node: ast.expr, scope: _Scope, cls: _ClassContext | None) -> ServerRef:
        if cls is not None and isinstance(node, ast.Name) and node.id == cls.self_name:
            # `self.tool(...)` in a method: the server is an instance of this class.
            return ServerRef(RefKind.ANNOTATED, f"{self.module}.{cls.qualname}")
        server = self.argument_server(node, scope, cls)
        if server is not None:
            return server
        if isinstance(node, ast.Attribute) or (
            isinstance(node, ast.Name) and getattr(scope.lookup(node.id), "kind", "") == "import"
        ):
            # A name bound elsewhere: `from .server import mcp`, `app_module.mcp`.
            qualified = self.qualify(node, scope)
            if qualified and not qualified.startswith("?"):
                return ServerRef(RefKind.IMPORT, qualified)
        return ServerRef(RefKind.UNKNOWN, self.text(node))

    def function_ref(self, node: ast.expr, scope: _Scope, cls: _ClassContext | None) -> FunctionRef:
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            # `wrap(fn)`: the SDKs read the signature through `functools.wraps`' `__wrapped__`.
            return self.function_ref(node.args[0], scope, cls)
        if isinstance(node, ast.Name):
            symbol = scope.lookup(node.id)
            if symbol is not None and symbol.kind == "function":
                return FunctionRef(RefKind.LOCAL, symbol.target)
            if symbol is not None and symbol.kind == "method":
                return FunctionRef(RefKind.METHOD, symbol.target, symbol.method)
            if symbol is not None and symbol.kind in ("import", "class"):
                # A class is "called" through its `__init__`: `Handler(mcp)`.
                return FunctionRef(RefKind.IMPORT, symbol.target)
        elif isinstance(node, ast.Attribute):
            if (
                cls is not None
                and isinstance(node.value, ast.Name)
                and node.value.id == cls.self_name
            ):
                return FunctionRef(RefKind.LOCAL, f"{cls.qualname}.{node.attr}")
            method = self.bound_method(node, scope, cls)
            if method is not None:
                return method
            qualified = self.qualify(node, scope)
            if qualified and not qualified.startswith("?"):
                return FunctionRef(RefKind.IMPORT, qualified)
        return FunctionRef(RefKind.UNKNOWN, self.text(node))

    # ---- parameters and annotations --------------------------------------------------------
    def parameters(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope, skip_first: bool
    ) -> tuple[Parameter, ...]:
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
        defaults += arguments.defaults
        pairs = list(zip(positional, defaults, strict=True))
        pairs += list(zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True))
        if skip_first and positional:
            pairs = pairs[1:]
        parameters = []
        for arg, default in pairs:
            annotation = arg.annotation
            type_expr = self.type_expr(annotation, scope) if annotation is not None else None
            if _is_context(type_expr):
                continue
            alias = None
            if isinstance(annotation, ast.Name | ast.Attribute):
                qualified = self.qualify(annotation, scope)
                symbol = scope.lookup(annotation.id) if isinstance(annotation, ast.Name) else None
                if symbol is not None and symbol.kind == "alias":
                    alias = qualified
                elif symbol is not None and symbol.kind == "import":
                    alias = qualified  # may be an alias in another module; the linker decides
            parameters.append(
                Parameter(
                    name=arg.arg,
                    position=self.start(arg),
                    annotation=type_expr,
                    annotation_text=self.text(annotation) if annotation is not None else None,
                    site=self.site(annotation, scope) if annotation is not None else None,
                    default_is_strict=default is not None and self.is_strict_field(default, scope),
                    alias=alias,
                )
            )
        return tuple(parameters)

    def is_strict_field(self, node: ast.expr, scope: _Scope) -> bool:
        expr = self.type_expr(node, scope) if isinstance(node, ast.Call) else None
        return isinstance(expr, TCall) and expr.strict and expr.function.endswith("Field")

    def type_expr(self, node: ast.expr, scope: _Scope) -> TypeExpr:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                try:
                    inner = ast.parse(node.value.strip(), mode="eval").body
                except SyntaxError:
                    return TOpaque(node.value)
                return self.type_expr(inner, scope)
            return TConst(node.value)
        if isinstance(node, ast.Name | ast.Attribute):
            qualified = self.qualify(node, scope)
            return TName(qualified) if qualified else TOpaque(self.text(node))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            members: list[TypeExpr] = []
            for side in (node.left, node.right):
                expr = self.type_expr(side, scope)
                members.extend(expr.members if isinstance(expr, TUnion) else (expr,))
            return TUnion(tuple(members))
        if isinstance(node, ast.Subscript):
            base = self.type_expr(node.value, scope)
            elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if isinstance(base, TName) and base.qualified in LITERAL:
                args = tuple(
                    TConst(e.value) if isinstance(e, ast.Constant) else TOpaque(self.text(e))
                    for e in elements
                )
            else:
                args = tuple(self.type_expr(e, scope) for e in elements)
            return TSubscript(base, args)
        if isinstance(node, ast.Call):
            function = self.qualify(node.func, scope) or self.text(node.func)
            return TCall(function, _is_strict_call(node, function))
        return TOpaque(self.text(node))

    def site(self, node: ast.expr, scope: _Scope) -> AnnotationSite | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.string_site(node, scope)
        return AnnotationSite(self.span(node), self.append_position(node, scope), False)

    def alias_site(self, node: ast.expr, scope: _Scope) -> AnnotationSite:
        # An alias value is evaluated when the module runs, so the marker goes outside a string
        # value (`Annotated["str | None", NoPreParse]`): inside it, pydantic would resolve
        # `NoPreParse` as a nested forward reference, from the SDK's namespace instead of ours.
        return AnnotationSite(self.span(node), self.append_position(node, scope), False)

    def append_position(self, node: ast.expr, scope: _Scope) -> Position | None:
        if isinstance(node, ast.Subscript) and self.qualify(node.value, scope) in ANNOTATED:
            elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            last = elements[-1]
            return self.position(last.end_lineno, last.end_col_offset)
        return None

    def string_site(self, node: ast.Constant, scope: _Scope) -> AnnotationSite | None:
        """The text inside a plain one-line string annotation; None where rewriting it is unsafe.

        Under `from __future__ import annotations` the SDK evaluates the annotation once and
        gets the string back: names inside it would then be resolved as a nested forward
        reference, outside the module's namespace. There the marker goes outside the quotes.
        """
        if self.postponed_annotations:
            return self.alias_site(node, scope)
        text = self.segment(node)
        if (
            text is None
            or node.lineno != node.end_lineno
            or len(text) < 2
            or text[0] not in "'\""
            or text[-1] != text[0]
            or text[1:-1] != node.value
            or "\\" in text
        ):
            return None
        try:
            inner = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
        if node.value != node.value.strip():
            return None
        start = self.start(node)
        end = self.position(node.end_lineno, node.end_col_offset)
        span = Span(Position(start.line, start.column + 1), Position(end.line, end.column - 1))
        append_at = None
        if isinstance(inner, ast.Subscript) and self.qualify(inner.value, scope) in ANNOTATED:
            elements = inner.slice.elts if isinstance(inner.slice, ast.Tuple) else [inner.slice]
            append_at = Position(start.line, start.column + 1 + elements[-1].end_col_offset)
        return AnnotationSite(span, append_at, True)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a body, also inside compound statements and nested functions."""
    pending = list(body)
    while pending:
        statement = pending.pop()
        yield statement
        for nested in _nested_bodies(statement):
            pending.extend(nested)


def _root_calls(node: ast.AST) -> list[ast.Call]:
    """The call a simple statement makes: `f(x)`, `y = f(x)`, `return f(x)`, `await f(x)`."""
    value = getattr(node, "value", node)
    if isinstance(value, ast.Await):
        value = value.value
    return [value] if isinstance(value, ast.Call) else []


def _nested_bodies(node: ast.stmt) -> list[list[ast.stmt]]:
    if not isinstance(node, _COMPOUND):  # most statements: asked for every one, so decided fast
        return []
    bodies = [getattr(node, name) for name in _COMPOUND_BODIES if getattr(node, name, None)]
    bodies += [handler.body for handler in getattr(node, "handlers", [])]
    bodies += [case.body for case in getattr(node, "cases", [])]
    return bodies


def _header_expressions(node: ast.stmt) -> list[ast.AST]:
    """The expressions of a compound statement outside its bodies (`with x.tool(...)`, `if ...`)."""
    fields = ("test", "iter", "items", "subject")
    found: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(value)
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def _tool_name(call: ast.Call | None) -> str | None:
    if call is None:
        return None
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return _constant_keyword(call, "name")


def _keyword(call: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg in names), None)


def _constant_keyword(call: ast.Call, name: str) -> str | None:
    value = _keyword(call, name)
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    return None


def _is_super(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def _is_from_function(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "from_function"


def _is_strict_call(node: ast.Call, function: str) -> bool:
    strict = _keyword(node, "strict")
    if strict is not None:
        return isinstance(strict, ast.Constant) and strict.value is True
    # `Strict()` is strict by default; `Strict(False)` is not.
    if function.endswith(".Strict"):
        first = node.args[0] if node.args else None
        return first is None or (isinstance(first, ast.Constant) and first.value is True)
    return False


def _is_context(expr: TypeExpr | None) -> bool:
    """The SDKs inject `Context` parameters; they are not tool arguments."""
    if isinstance(expr, TSubscript):
        expr = expr.base
    return isinstance(expr, TName) and expr.qualified.rsplit(".", 1)[-1] == "Context"
