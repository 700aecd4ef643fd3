"""The binding pass of the scan: what each name of a scope refers to (an import, a function, a
class, a type alias, an object that may be a server, a collection), recorded before any use is
resolved. In a branch (`try`/`except ImportError`, `if`, `with`), the earlier bindings of a
name stay its alternatives."""

from __future__ import annotations

import ast
from dataclasses import replace

from mcp_codemod.analysis.facts import Alias, ServerKind, ServerRef
from mcp_codemod.analysis.frameworks import SERVER_CLASS_NAMES
from mcp_codemod.analysis.scan.annotations import Annotations
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.scope import OTHER_BINDING, Names, Scope, Symbol, SymbolKind
from mcp_codemod.analysis.scan.syntax import nested_bodies

# Annotations of a server parameter that say nothing about its class: resolved through callers.
_ANYTHING = frozenset(("typing.Any", "typing_extensions.Any", "builtins.object"))
# Statements that bind no name, nor hold statements that may.
_BINDS_NOTHING = frozenset(
    (
        ast.Expr,
        ast.Return,
        ast.Pass,
        ast.Raise,
        ast.Assert,
        ast.Delete,
        ast.AugAssign,
        ast.Global,
        ast.Nonlocal,
        ast.Break,
        ast.Continue,
    )
)


class BindingPass:
    """Binds the names of a scope's statements (nested bodies included), before its walk."""

    def __init__(
        self,
        names: Names,
        references: References,
        annotations: Annotations,
        made: list[ServerRef],
    ) -> None:
        self.names = names
        self.references = references
        self.annotations = annotations
        self.aliases: dict[str, Alias] = {}
        # Every construction a name is bound to: the scanner's list, which its walk adds to.
        self.made = made
        # How many compound statements the binding pass is in: a binding there may not run.
        self.branch_depth = 0

    @property
    def module(self) -> str:
        return self.names.module

    # ---- binding pass ----------------------------------------------------------------------
    def bind_statements(self, body: list[ast.stmt], scope: Scope, module_level: bool) -> None:
        """Record what each name in this scope refers to, before any use is resolved."""
        for statement in body:
            if type(statement) not in _BINDS_NOTHING:
                self.bind_statement(statement, scope, module_level)

    def bind_statement(self, node: ast.stmt, scope: Scope, module_level: bool) -> None:
        names = scope.names
        kind = type(node)  # parsed nodes are of the exact classes: no `isinstance` needed
        if kind is ast.Assign:  # the most common: tested first
            for target in node.targets:
                if type(target) is ast.Name:
                    self.bind_value(target.id, node.value, None, scope, module_level)
        elif kind is ast.Import:
            for alias in node.names:
                if alias.asname:
                    self.bind_import(alias.asname, alias.name, scope)
                else:
                    top = alias.name.split(".")[0]
                    self.bind_import(top, top, scope)
        elif kind is ast.ImportFrom:
            base = self.names.absolute_module(node)
            for alias in node.names:
                if alias.name != "*":
                    self.bind_import(alias.asname or alias.name, f"{base}.{alias.name}", scope)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            qualname = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
            names[node.name] = Symbol(SymbolKind.FUNCTION, qualname=qualname)
        elif kind is ast.ClassDef:
            qualified = f"{self.module}.{node.name}"
            # `except ImportError: class FastMCP: ...` (a stand-in): the import may be it too.
            others = self.other_bindings(names.get(node.name), qualified)
            names[node.name] = Symbol(SymbolKind.CLASS, qualified=qualified, alternatives=others)
        elif kind is ast.AnnAssign and type(node.target) is ast.Name:
            self.bind_value(node.target.id, node.value, node.annotation, scope, module_level)
        elif module_level and kind.__name__ == "TypeAlias":  # `type X = ...`, Python 3.12+
            name = node.name.id  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            names[name] = Symbol(SymbolKind.ALIAS, qualified=f"{self.module}.{name}")
            self.aliases[name] = self.alias(value, True, scope)
        else:
            if kind is ast.With or kind is ast.AsyncWith:
                self.bind_running_facades(node, scope)
            self.branch_depth += 1
            around = self.names.bound_in_branch
            for child in nested_bodies(node):
                # Each branch starts from what the branches around it bound, not its siblings.
                self.names.bound_in_branch = set(around)
                self.bind_statements(child, scope, module_level)
            self.names.bound_in_branch = around
            self.branch_depth -= 1

    def bind_import(self, name: str, qualified: str, scope: Scope) -> None:
        """Bind an imported name. In a branch (`try`/`except ImportError`, `if sys.version_info
        ...`, `with suppress(...)`), what the name was bound to before may be what it is at run
        time too: kept as the symbol's alternatives."""
        scope.names[name] = self.bound_here(
            Symbol(
                SymbolKind.IMPORT,
                qualified=qualified,
                alternatives=self.other_bindings(scope.names.get(name), qualified),
            )
        )

    def bound_here(self, symbol: Symbol) -> Symbol:
        """The symbol, which the statements after it in the branch being bound see alone
        (`Names.bound_in_branch`)."""
        if self.branch_depth:
            self.names.bound_in_branch.add(id(symbol))
        return symbol

    def other_bindings(self, previous: Symbol | None, qualified: str) -> tuple[str, ...]:
        """What a name bound in a branch may still be from its earlier bindings (none outside a
        branch: a later statement of the same body replaces the binding); for a name no
        earlier statement binds, `OTHER_BINDING`: where the branch does not run, the name is
        not that (`try: from mcp.server.mcpserver import MCPServer` and nothing in `except`)."""
        if not self.branch_depth:
            return ()
        if previous is None:
            return (OTHER_BINDING,)
        if previous.kind in (SymbolKind.IMPORT, SymbolKind.CLASS):
            earlier = (*previous.alternatives, previous.qualified)
        else:
            earlier = (OTHER_BINDING,)
        return tuple(dict.fromkeys(e for e in earlier if e != qualified))

    def bind_running_facades(self, node: ast.With | ast.AsyncWith, scope: Scope) -> None:
        """`async with app.run() as agent_app:` on an application object built here, such as
        mcp-agent's `MCPApp`, whose `run()` yields the object itself."""
        for item in node.items:
            call, name = item.context_expr, item.optional_vars
            if not (
                isinstance(name, ast.Name)
                and isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "run"
                and not call.args
            ):
                continue
            app = self.references.argument_server(call.func.value, scope, None)
            if app is not None and app.facade:
                scope.names[name.id] = Symbol(SymbolKind.SERVER, server=app)

    def alias(self, value: ast.expr, type_statement: bool, scope: Scope) -> Alias:
        return Alias(self.annotations.type_expr(value, scope), type_statement)

    def bind_value(
        self,
        name: str,
        value: ast.expr | None,
        annotation: ast.expr | None,
        scope: Scope,
        module_level: bool,
    ) -> None:
        previous = scope.names.get(name)
        if annotation is None and self.copies_server_class(value, scope):
            copied = self.names.qualify(value, scope)  # type: ignore[arg-type]
            others = self.names.alternatives(value, scope)  # type: ignore[arg-type]
            if copied is not None:
                # `MCPServer = FastMCP`, `Server = fastmcp.FastMCP`: a branch's spelling of
                # another framework's class. The name is that class, or whatever the name it
                # copies may be.
                earlier = self.other_bindings(previous, copied)
                scope.names[name] = self.bound_here(
                    Symbol(
                        SymbolKind.IMPORT,
                        qualified=copied,
                        alternatives=tuple(dict.fromkeys((*earlier, *others))),
                    )
                )
                return
        if (
            self.branch_depth
            and previous is not None
            and previous.kind is SymbolKind.IMPORT
            and (value is None or type(value) is ast.Constant)
        ):
            # `except ImportError: FastMCP = None`: the import may be what the name is.
            if OTHER_BINDING not in previous.alternatives:
                previous.alternatives = (*previous.alternatives, OTHER_BINDING)
            return
        qualify = self.names.qualify
        annotation_name = qualify(annotation, scope) if annotation is not None else None
        if annotation_name in ("typing.TypeAlias", "typing_extensions.TypeAlias") and value:
            scope.names[name] = Symbol(SymbolKind.ALIAS, qualified=f"{self.module}.{name}")
            self.aliases[name] = self.alias(value, False, scope)
            return
        references = self.references
        server = references.server_from_value(value, scope) if value is not None else None
        if server is None and annotation is not None and annotation_name:
            server = ServerRef(
                ServerKind.ANNOTATED,
                qualified=annotation_name,
                class_choices=self.names.alternatives(annotation, scope),
            )
        method = references.bound_method(value, scope) if value is not None else None
        # `tool = factory(...)`: the call is kept, unless the name is bound to anything else too.
        made = value if isinstance(value, ast.Call) and _same_call(scope, name, value) else None
        made_scope = scope if made is not None else None
        if server is not None:
            if server.kind is ServerKind.CONSTRUCT and not server.facade:
                self.made.append(server)
                server = with_alternatives(server, scope.names.get(name))
            scope.names[name] = Symbol(
                SymbolKind.SERVER, server=server, node=made, scope=made_scope
            )
            if module_level and isinstance(value, ast.Name) and server.kind is ServerKind.IMPORT:
                # `Count = StrictInt`: as a type, another module's `from .limits import Count`
                # finds an alias.
                self.aliases[name] = self.alias(value, False, scope)
        elif method is not None:
            # `list_tables = backend.list_tables`: registered later under the alias.
            scope.names[name] = Symbol(SymbolKind.METHOD, function=method)
        elif module_level and isinstance(
            value, ast.Subscript | ast.BinOp | ast.Name | ast.Attribute
        ):
            scope.names[name] = Symbol(SymbolKind.ALIAS, qualified=f"{self.module}.{name}")
            self.aliases[name] = self.alias(value, False, scope)
        elif (
            isinstance(value, ast.List | ast.Tuple | ast.Set | ast.Dict) and name not in scope.names
        ):
            # `tools = [a, b]`: a loop over it registers each (unless it is bound twice).
            scope.names[name] = Symbol(SymbolKind.COLLECTION, node=value)
        else:
            scope.names[name] = Symbol(SymbolKind.OTHER, node=made, scope=made_scope)

    def copies_server_class(self, value: ast.expr | None, scope: Scope) -> bool:
        """`Server = FastMCP` (an imported name that may be a server class, under any of its
        bindings) or `Server = fastmcp.FastMCP`: asked of every assignment, so by name first."""
        kind = type(value)
        if kind is ast.Attribute:
            return value.attr in SERVER_CLASS_NAMES  # type: ignore[union-attr]
        if kind is not ast.Name:
            return False
        symbol = scope.lookup(value.id)  # type: ignore[union-attr]
        return (
            symbol is not None
            and symbol.kind is SymbolKind.IMPORT
            and any(
                q.rpartition(".")[2] in SERVER_CLASS_NAMES
                for q in (symbol.qualified, *symbol.alternatives)
            )
        )

    def bind_parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef, local: Scope) -> None:
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        for index, arg in enumerate([*positional, *arguments.kwonlyargs]):
            annotation = (
                self.names.qualify(arg.annotation, local.parent) if arg.annotation else None
            )
            if annotation is None and isinstance(arg.annotation, ast.Constant):
                annotation = self.string_annotation_name(arg.annotation, local)
            # `def register(mcp): ...`: the server is what the callers pass; an annotation
            # names its class, for when no caller is in sight.
            where = (index if index < len(positional) else -1, arg.arg)
            if annotation and not annotation.startswith("?") and annotation not in _ANYTHING:
                server = ServerRef(
                    ServerKind.ANNOTATED,
                    qualified=annotation,
                    function=local.qualname,
                    argument=where,
                    class_choices=self.names.alternatives(arg.annotation, local.parent),  # type: ignore[arg-type]
                )
            else:
                server = ServerRef(ServerKind.PARAMETER, function=local.qualname, argument=where)
            local.names[arg.arg] = Symbol(SymbolKind.SERVER, server=server)

    def string_annotation_name(self, node: ast.Constant, scope: Scope) -> str | None:
        if not isinstance(node.value, str):
            return None
        try:
            inner = ast.parse(node.value.strip(), mode="eval").body
        except SyntaxError:
            return None
        return self.names.qualify(inner, scope)

    # ---- walking pass ----------------------------------------------------------------------


def with_alternatives(server: ServerRef, earlier: Symbol | None) -> ServerRef:
    """A construction bound to a name that another branch bound to a construction too: both
    may be the server (`if ...: mcp = FastMCP("a") else: mcp = FastMCP("b")`)."""
    if earlier is None or earlier.server is None or earlier.server.kind is not ServerKind.CONSTRUCT:
        return server
    previous = earlier.server
    if previous.line == server.line:  # a loop body walked once per element
        return server
    return replace(
        server, alternatives=(replace(previous, alternatives=()), *previous.alternatives)
    )


def _same_call(scope: Scope, name: str, value: ast.Call) -> bool:
    """Whether `name` is bound in this scope by nothing yet, or only by calls of the same
    function as `value`."""
    bound = scope.names.get(name)
    if bound is None:
        return True
    if not isinstance(bound.node, ast.Call):
        return False
    func, other = bound.node.func, value.func
    if type(func) is not type(other):
        return False
    if type(func) is ast.Name:  # most calls; `ast.dump` costs more than scanning them
        return func.id == other.id  # type: ignore[attr-defined]
    return ast.dump(func) == ast.dump(other)
