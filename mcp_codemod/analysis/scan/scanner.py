"""Extract `ModuleFacts` from one module's syntax tree.

The walk visits statements, decorators, assignments and parameters only: never every expression
node. Names are resolved with a small scope model (`scope`: module, function and class bodies)
that knows imports, functions, classes, type aliases and objects that may be servers, bound by
a pass before the walk (`bindings`). What an expression refers to is `references`' job,
registration shapes `registrations`', annotations `annotations`', where a fix puts a marker
`fix_sites`' and the `noqa` comments `noqa_comments`'.
"""

from __future__ import annotations

import ast

from mcp_codemod.analysis.facts import (
    ClassBase,
    Function,
    FunctionKind,
    FunctionRef,
    ModuleFacts,
    Position,
    ServerKind,
    ServerRef,
)
from mcp_codemod.analysis.frameworks import REGISTRATION_ATTRIBUTES, SERVER_CLASS_NAMES
from mcp_codemod.analysis.scan.annotations import Annotations
from mcp_codemod.analysis.scan.bindings import BindingPass, with_alternatives
from mcp_codemod.analysis.scan.exec_files import bound_once, exec_files
from mcp_codemod.analysis.scan.fix_sites import FixSites
from mcp_codemod.analysis.scan.loops import Loops
from mcp_codemod.analysis.scan.noqa_comments import noqa_lines
from mcp_codemod.analysis.scan.positions import SourceText, any_line_within
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.registrations import Registrations
from mcp_codemod.analysis.scan.scope import ClassContext, Names, Scope, Symbol, SymbolKind
from mcp_codemod.analysis.scan.signed_returns import returns_signed_functions
from mcp_codemod.analysis.scan.syntax import (
    COMPOUND_STATEMENTS,
    header_expressions,
    is_super,
    nested_bodies,
    statements,
)
from mcp_codemod.analysis.type_exprs import TypeExpr

# What the SDK reads of a function's signature, when set after its `def`.
SIGNING_ATTRIBUTES = ("__signature__", "__annotations__", "__wrapped__")
_DEFINITIONS = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
_ASSIGNMENTS = frozenset((ast.Assign, ast.AnnAssign))
# Statements without an expression, so without a call: imports are a module's most common.
_HOLDS_NO_EXPRESSION = frozenset(
    (ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)
)


def scan_module(
    source: str, tree: ast.Module, module: str, path: str, is_package: bool
) -> ModuleFacts:
    return _Scanner(source, tree, module, path, is_package).scan(tree)


class _Scanner:
    def __init__(
        self, source: str, tree: ast.Module, module: str, path: str, is_package: bool
    ) -> None:
        self.path = path
        self.text = SourceText(source)
        self.names = Names(module, is_package, tree)
        postponed = any(
            isinstance(node, ast.ImportFrom)
            and node.module == "__future__"
            and any(alias.name == "annotations" for alias in node.names)
            for node in tree.body
        )
        self.fix_sites = FixSites(self.text, self.names, postponed)
        self.annotations = Annotations(self.text, self.names, self.fix_sites)
        self.references = References(self.text, self.names)
        self.registrations = Registrations(self.text, self.names, self.references)
        self.functions: dict[str, Function] = {}
        self.classes: dict[str, tuple[ClassBase, ...]] = {}
        self.class_fields: dict[str, tuple[TypeExpr, ...]] = {}
        self.loops = Loops(self.text, self.names)
        self.generated_signatures: list[FunctionRef] = []
        # The lines that say `__signature__`, `__annotations__` or `__wrapped__` (any line, in
        # text not in NFKC form: normalizing may make the name of other characters), where what
        # the SDK reads of a function's signature may be changed after its `def`.
        self.signature_lines = self.text.lines_with(SIGNING_ATTRIBUTES)
        # The lines that say `return`, so that a function without one is not searched for its
        # returns. (Only in text in NFKC form: elsewhere normalizing may make names of other
        # characters.)
        self.return_lines = (
            self.text.lines_with(("return",)) if self.text.names_as_written else None
        )
        # The scopes `collect_attributes` bound for methods, for their walk: binding only reads
        # the enclosing scopes, which no longer change once the walk has begun.
        self.bound_methods: dict[ast.FunctionDef | ast.AsyncFunctionDef, Scope] = {}
        # Every construction a name or attribute is bound to, or a function returns.
        self.made: list[ServerRef] = []
        self.bindings = BindingPass(self.names, self.references, self.annotations, self.made)

    @property
    def module(self) -> str:
        return self.names.module

    def scan(self, tree: ast.Module) -> ModuleFacts:
        scope = Scope("", None)
        self.bindings.bind_statements(tree.body, scope, module_level=True)
        self.walk(tree.body, scope, None)
        names = scope.names
        registrations = self.registrations
        executed = exec_files(tree, self.names, scope)
        if registrations.texts_run:
            # A module-level name bound once to literal text is read as that text (unless a
            # function may rebind it: `global`).
            texts = {} if self.text.may_name("global") else bound_once(tree)
            registrations.run_texts({file.line for file in executed}, texts)
        return ModuleFacts(
            module=self.module,
            path=self.path,
            imports={n: s.qualified for n, s in names.items() if s.kind is SymbolKind.IMPORT},
            import_alternatives={
                n: s.alternatives
                for n, s in names.items()
                if s.kind is SymbolKind.IMPORT and s.alternatives
            },
            servers={n: s.server for n, s in names.items() if s.server is not None},
            functions=self.functions,
            classes=self.classes,
            aliases=self.bindings.aliases,
            registrations=tuple(registrations.registrations),
            calls=tuple(registrations.call_sites.calls),
            guard_calls=tuple(registrations.guard_calls),
            install_calls=tuple(registrations.install_calls),
            noqa=noqa_lines(self.text, tree),
            star_imports=self.names.star_imports,
            exports=self.loops.exports(names),
            generated_signatures=tuple(self.generated_signatures),
            collections=self.loops.collections(scope, self.references),
            class_fields=self.class_fields,
            exec_files=executed,
            facade_servers=tuple(
                (line, server) for (line, _), server in self.references.facades.items()
            ),
            constructions=self.constructions(),
            escapes=tuple(registrations.escapes),
            stores=tuple(registrations.server_stores.stores),
        )

    def constructions(self) -> tuple[ServerRef, ...]:
        """The constructions of a server class: named as a framework's server class is, or a
        class of this module (a subclass). Other calls bound to names are not asked about."""
        prefix = f"{self.module}."
        found = {}
        for ref in self.made:
            owner, _, name = ref.qualified.rpartition(".")
            if name in SERVER_CLASS_NAMES or (
                (owner + ".") == prefix and name in self.classes and self.classes[name]
            ):
                found[(ref.line, ref.qualified)] = ref
        return tuple(found.values())

    def walk(self, body: list[ast.stmt], scope: Scope, cls: ClassContext | None) -> None:
        for node in body:
            kind = type(node)
            if kind not in COMPOUND_STATEMENTS:  # most statements
                if kind not in _HOLDS_NO_EXPRESSION and self.may_sign(node):
                    self.signature_assignment(node, scope, cls)
                if kind not in _HOLDS_NO_EXPRESSION:
                    self.registrations.calls_in(node, scope, cls)
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                self.function(node, scope, cls)
            elif kind is ast.ClassDef:
                self.class_def(node, scope)
            elif kind is ast.For or kind is ast.AsyncFor:
                self.registrations.calls_in(node.iter, scope, cls)
                for body_scope in self.loops.body_scopes(node, scope):
                    self.walk(node.body, body_scope, cls)
                self.walk(node.orelse, scope, cls)
            else:
                for expression in header_expressions(node):
                    self.registrations.calls_in(expression, scope, cls)
                for child in nested_bodies(node):
                    self.walk(child, scope, cls)

    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        scope: Scope,
        cls: ClassContext | None,
        is_method: bool = False,
    ) -> None:
        # A function nested in a method is no method: it keeps the method's `self` in reach
        # (`cls`) but its own name and all its parameters.
        qualname = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
        if is_method and cls is not None:
            qualname = f"{cls.qualname}.{node.name}"
        is_static = bool(node.decorator_list) and any(
            (isinstance(d, ast.Name) and d.id == "staticmethod")
            # `@mcp.tool()` in a class body registers the plain function: its first parameter
            # is a tool argument like the others.
            or _registers_directly(d, cls)
            for d in node.decorator_list
        )
        local = self.bound_methods.pop(node, None)
        if local is None:
            local = Scope(qualname, scope)
            self.bindings.bind_parameters(node, local)
            self.bindings.bind_statements(node.body, local, module_level=False)
        if self.return_lines is None or any_line_within(self.return_lines, node):
            returns, returns_functions = self.returned(node.body, local)
        else:  # no `return` in its text
            returns, returns_functions = (), ()
        self.functions[qualname] = Function(
            qualname=qualname,
            position=self.def_position(node),
            parameters=self.annotations.parameters(
                node, scope, skip_first=is_method and not is_static
            ),
            returns=returns,
            returns_functions=returns_functions,
            returns_signed_functions=self.may_sign(node)
            and returns_signed_functions(node.body, local),
            # A method's decorators read the class body, which this scope model does not keep.
            wraps=None if is_method else self.wrapped(node, scope, cls),
        )
        for decorator in node.decorator_list:
            self.registrations.decorator(decorator, qualname, scope, cls)
        self.walk(node.body, local, cls)

    def wrapped(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, cls: ClassContext | None
    ) -> FunctionRef | None:
        """The function a `@functools.wraps(fn)` decorator says this one wraps."""
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and len(decorator.args) == 1
                and self.names.qualify(decorator.func, scope) == "functools.wraps"
            ):
                wrapped = self.references.function_ref(decorator.args[0], scope, cls)
                # Not followed: the wrapper's own signature, as the SDK reads it without one.
                return wrapped if wrapped.kind is not FunctionKind.UNKNOWN else None
        return None

    def returned(
        self, body: list[ast.stmt], local: Scope
    ) -> tuple[tuple[ServerRef, ...], tuple[str, ...]]:
        """What a factory function returns that may be a server (`return FastMCP(...)`), and the
        nested functions a decorator factory returns (`def tool(): def deco(fn): ...`)."""
        servers = []
        functions = []
        pending = list(body)
        for statement in pending:  # breadth first: `pending` grows with the nested bodies
            kind = type(statement)
            if kind is ast.Return and statement.value is not None:
                server = self.references.server_from_value(statement.value, local)
                if server is not None:
                    servers.append(server)
                    if server.kind is ServerKind.CONSTRUCT and not server.facade:
                        self.made.append(server)
                elif isinstance(statement.value, ast.Name):
                    symbol = local.lookup(statement.value.id)
                    if symbol is not None and symbol.kind is SymbolKind.FUNCTION:
                        functions.append(symbol.qualname)
            elif kind in COMPOUND_STATEMENTS and kind not in _DEFINITIONS:
                for nested in nested_bodies(statement):
                    pending.extend(nested)
        return tuple(servers), tuple(functions)

    def signature_assignment(self, node: ast.stmt, scope: Scope, cls: ClassContext | None) -> None:
        """`fn.__signature__ = ...`, `fn.__annotations__[name] = ...` (or replaced, updated,
        `setattr`), `fn.__wrapped__ = other`: the SDK reads what the function holds when it
        registers it, not the `def`."""
        for sub in ast.walk(node):
            changed = _signature_changed(sub)
            if changed is None:
                continue
            function = self.references.function_ref(changed, scope, cls)
            if function.kind in (FunctionKind.LOCAL, FunctionKind.IMPORT, FunctionKind.METHOD):
                self.generated_signatures.append(function)

    def may_sign(self, node: ast.stmt) -> bool:
        """Whether the node's text may assign a `__signature__`."""
        return not self.text.names_as_written or any_line_within(self.signature_lines, node)

    def def_position(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Position:
        # `lineno` is the `def` line (decorators have their own); the column points at `def`/`async`.
        return self.text.position(node.lineno, node.col_offset)

    def class_def(self, node: ast.ClassDef, scope: Scope) -> None:
        qualname = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
        # `FastMCP[LifespanT]`: the class is the subscripted value, and that is what a fix renames.
        bases = [base.value if isinstance(base, ast.Subscript) else base for base in node.bases]
        self.classes[node.name] = tuple(
            ClassBase(name, self.text.span(base), self.names.alternatives(base, scope))
            for base in bases
            if (name := self.names.qualify(base, scope)) is not None
        )
        body_scope = Scope(qualname, scope)
        self.bindings.bind_statements(node.body, body_scope, module_level=False)
        self.class_fields[node.name] = tuple(
            self.annotations.type_expr(statement.annotation, scope)
            for statement in node.body
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
        )
        context = ClassContext(qualname)
        self.collect_attributes(node, scope, context)
        # Methods resolve names in the enclosing scope, not the class body: Python's own rule.
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                self.function(statement, scope, context, is_method=True)
            elif isinstance(statement, ast.ClassDef):
                self.class_def(statement, scope)
            else:
                self.walk([statement], body_scope, context)

    def collect_attributes(self, node: ast.ClassDef, scope: Scope, cls: ClassContext) -> None:
        """`self.mcp = FastMCP(...)` or `self.mcp = mcp` (a parameter annotated with a server)."""
        for method in node.body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            positional = [*method.args.posonlyargs, *method.args.args]
            if not positional:
                continue
            self_name = positional[0].arg
            assignments = [
                statement
                for statement in statements(method.body)
                if type(statement) in _ASSIGNMENTS and _assigns_attribute_of(statement, self_name)
            ]
            if not assignments:  # most methods: nothing to bind, which costs as much as a walk
                continue
            local = Scope(f"{cls.qualname}.{method.name}", scope)
            self.bindings.bind_parameters(method, local)
            self.bindings.bind_statements(method.body, local, module_level=False)
            self.bound_methods[method] = local
            for statement in assignments:
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
                        server = self.references.server_from_value(value, local) if value else None
                        if server is None and annotation is not None:
                            name = self.names.qualify(annotation, scope)
                            server = (
                                ServerRef(ServerKind.ANNOTATED, qualified=name) if name else None
                            )
                        if server is not None:
                            if server.kind is ServerKind.CONSTRUCT and not server.facade:
                                self.made.append(server)
                                earlier = cls.attributes.get(target.attr)
                                server = with_alternatives(
                                    server,
                                    Symbol(SymbolKind.SERVER, server=earlier) if earlier else None,
                                )
                            cls.attributes[target.attr] = server


def _signature_changed(node: ast.AST) -> ast.expr | None:
    """The function whose signature the node changes: `f.__signature__ = ...` (also
    `__annotations__`, `__wrapped__`, or deleted), `f.__annotations__[k] = ...`,
    `f.__annotations__.update(...)` (any method), `setattr(f, "__wrapped__", ...)`."""
    kind = type(node)
    if kind is ast.Attribute:
        if node.attr in SIGNING_ATTRIBUTES and type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
            return node.value  # type: ignore[attr-defined]
    elif kind is ast.Subscript:
        value = node.value  # type: ignore[attr-defined]
        if (
            type(node.ctx) is not ast.Load  # type: ignore[attr-defined]
            and type(value) is ast.Attribute
            and value.attr == "__annotations__"
        ):
            return value.value
    elif kind is ast.Call:
        func = node.func  # type: ignore[attr-defined]
        if (
            type(func) is ast.Attribute
            and type(func.value) is ast.Attribute
            and func.value.attr == "__annotations__"
        ):
            return func.value.value
        arguments = node.args  # type: ignore[attr-defined]
        if (
            type(func) is ast.Name
            and func.id == "setattr"
            and len(arguments) >= 2
            and not (
                isinstance(arguments[1], ast.Constant)
                and arguments[1].value not in SIGNING_ATTRIBUTES
            )
        ):
            return arguments[0]
    return None


def _registers_directly(decorator: ast.expr, cls: ClassContext | None) -> bool:
    """`@server.tool` or `@server.tool(...)` on a function in a class body, the server not the
    instance (no `self` in a class body)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (
        cls is not None
        and isinstance(target, ast.Attribute)
        and target.attr in REGISTRATION_ATTRIBUTES
        and not is_super(target.value)
    )


def _assigns_attribute_of(statement: ast.stmt, name: str) -> bool:
    """`name.x = ...` or `name.x: T = ...`."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign):
        targets = [statement.target]
    else:
        return False
    return any(
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == name
        for target in targets
    )
