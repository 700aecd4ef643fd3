"""Extract `ModuleFacts` from one module's syntax tree.

The walk visits statements, decorators, assignments and parameters only: never every expression
node. Names are resolved with a small scope model (`scope`: module, function and class bodies)
that knows imports, functions, classes, type aliases and objects that may be servers. What an
expression refers to is `references`' job, registration shapes `registrations`', annotations
`annotations`' and where a fix puts a marker `fix_sites`'.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import replace

from mcp_codemod.analysis.facts import (
    Alias,
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
from mcp_codemod.analysis.scan.exec_files import bound_once, exec_files
from mcp_codemod.analysis.scan.fix_sites import FixSites
from mcp_codemod.analysis.scan.loops import Loops
from mcp_codemod.analysis.scan.positions import SourceText, any_line_within
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.registrations import Registrations
from mcp_codemod.analysis.scan.scope import (
    OTHER_BINDING,
    ClassContext,
    Names,
    Scope,
    Symbol,
    SymbolKind,
)
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
# Annotations of a server parameter that say nothing about its class: resolved through callers.
_ANYTHING = frozenset(("typing.Any", "typing_extensions.Any", "builtins.object"))
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)
_DEFINITIONS = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
_ASSIGNMENTS = frozenset((ast.Assign, ast.AnnAssign))
# Statements without an expression, so without a call: imports are a module's most common.
_HOLDS_NO_EXPRESSION = frozenset(
    (ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)
)
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


def scan_module(
    source: str, tree: ast.Module, module: str, path: str, is_package: bool
) -> ModuleFacts:
    return _Scanner(source, tree, module, path, is_package).scan(tree)


def noqa_lines(text: SourceText, tree: ast.Module) -> dict[int, frozenset[str] | None]:
    """The `noqa` directives of the module's comments, by line. Read from the tokens, as ruff
    reads them: `"# noqa"` inside a string literal is text, and suppresses nothing."""
    found: dict[int, frozenset[str] | None] = {}
    if "noqa" not in text.source and "NOQA" not in text.source:
        return found
    candidates = [n for n in text.lines_with(("#",)) if _NOQA.search(text.lines[n - 1])]
    if not candidates:
        return found
    for line, comment in _comments_on(text, tree, candidates):
        match = _NOQA.search(comment)
        if match:
            codes = match.group("codes")
            found[line] = frozenset(c.strip().upper() for c in codes.split(",")) if codes else None
    return found


def _comments_on(text: SourceText, tree: ast.Module, lines: list[int]) -> Iterator[tuple[int, str]]:
    """The comments on `lines` (sorted), as the tokenizer reads them. Tokenizing the whole
    module would cost more than parsing it: each line's text is tokenized from the start of the
    last statement that begins at or before it (outside any string, whatever came before),
    inside an opening bracket (so that indentation does not matter), once per such start."""
    starts: dict[int, int] = {}
    for statement in statements(tree.body):
        line, column = statement.lineno, statement.col_offset
        if column < starts.get(line, column + 1):
            starts[line] = column
    ordered = sorted(starts)
    groups: dict[tuple[int, int], list[int]] = {}
    for line in lines:
        index = bisect_right(ordered, line) - 1
        start = (ordered[index], starts[ordered[index]]) if index >= 0 else (1, 0)
        groups.setdefault(start, []).append(line)
    for (first, column), wanted in groups.items():
        head = text.lines[first - 1]
        head = (
            head[column:] if head.isascii() else head.encode()[column:].decode("utf-8", "replace")
        )
        fragment = "\n".join(["(" + head, *text.lines[first : wanted[-1]]]) + "\n"
        wanted_lines = set(wanted)
        tokens = tokenize.generate_tokens(io.StringIO(fragment).readline)
        try:
            for token in tokens:
                line = first + token.start[0] - 1
                if token.type == tokenize.COMMENT and line in wanted_lines:
                    yield line, token.string
        except (tokenize.TokenError, SyntaxError):
            pass  # the fragment ends inside a bracket or a string: what it held is read


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
        self.aliases: dict[str, Alias] = {}
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
        # How many compound statements the binding pass is in: a binding there may not run.
        self.branch_depth = 0

    @property
    def module(self) -> str:
        return self.names.module

    def scan(self, tree: ast.Module) -> ModuleFacts:
        scope = Scope("", None)
        self.bind_statements(tree.body, scope, module_level=True)
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
            aliases=self.aliases,
            registrations=tuple(registrations.registrations),
            calls=tuple(registrations.calls),
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
            stores=tuple(registrations.stores),
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
            for child in nested_bodies(node):
                self.bind_statements(child, scope, module_level)
            self.branch_depth -= 1

    def bind_import(self, name: str, qualified: str, scope: Scope) -> None:
        """Bind an imported name. In a branch (`try`/`except ImportError`, `if sys.version_info
        ...`, `with suppress(...)`), what the name was bound to before may be what it is at run
        time too: kept as the symbol's alternatives."""
        scope.names[name] = Symbol(
            SymbolKind.IMPORT,
            qualified=qualified,
            alternatives=self.other_bindings(scope.names.get(name), qualified),
        )

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
                scope.names[name] = Symbol(
                    SymbolKind.IMPORT,
                    qualified=copied,
                    alternatives=tuple(dict.fromkeys((*earlier, *others))),
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
                server = _with_alternatives(server, scope.names.get(name))
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
            self.bind_parameters(node, local)
            self.bind_statements(node.body, local, module_level=False)
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
        self.bind_statements(node.body, body_scope, module_level=False)
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
            self.bind_parameters(method, local)
            self.bind_statements(method.body, local, module_level=False)
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
                                server = _with_alternatives(
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


def _with_alternatives(server: ServerRef, earlier: Symbol | None) -> ServerRef:
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
