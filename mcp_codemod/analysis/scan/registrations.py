"""Registration patterns: `@server.tool`, `server.tool(...)(fn)`, `server.add_tool(fn)`, and the
calls around them that matter (`guard(server)`, `install()`); uses of a server's `tool` that
register where the analysis does not look, and text given to `exec` / `eval`. Each statement is
read here once: the calls that pass a server on are `call_sites`' to record, the servers put
where the analysis does not follow them `server_stores`'."""

from __future__ import annotations

import ast
from bisect import bisect_left
from collections.abc import Collection, Mapping

from mcp_codemod.analysis.facts import (
    FunctionKind,
    FunctionRef,
    Registration,
    ServerKind,
    ServerRef,
)
from mcp_codemod.analysis.frameworks import (
    GUARD_FUNCTIONS,
    INSTALL_FUNCTIONS,
    REGISTRATION_ATTRIBUTES,
    SERVER_CLASS_NAMES,
    TOOL_ATTRIBUTES,
)
from mcp_codemod.analysis.scan.call_sites import CallSites
from mcp_codemod.analysis.scan.exec_texts import (
    RUNS_TEXT,
    RUNS_TEXT_NAMES,
    builds_server,
    first_name,
    given_namespace,
    literal_text,
    module_scope,
    names_in_text,
    visible_servers,
)
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.scope import ClassContext, Names, Scope, SymbolKind
from mcp_codemod.analysis.scan.server_stores import MAY_STORE, ServerStores
from mcp_codemod.analysis.scan.syntax import (
    calls_within,
    constant_keyword,
    is_super,
    keyword,
    root_calls,
)

# Words without which a statement holds no registration, guard or install call. (`.tool` may be
# split from its dot by blanks or a line break: `tool` alone is enough.)
_REGISTERS = ("tool", "guard", "install")
# In a module that names a facade class: also a statement constructing one anywhere in it
# (`create_mcp_server_for_app(MCPApp(...)).run()`), whose server carries the framework's own
# tools (analysis/link/framework_tools.py).
_REGISTERS_OR_FACADES = (*_REGISTERS, "MCPApp")
_GUARD_OR_INSTALL = ("guard", "install")


class Registrations:
    """Collects a module's registrations and the calls that matter to them."""

    def __init__(self, text: SourceText, names: Names, references: References) -> None:
        self.text = text
        self.names = names
        self.references = references
        self.server_stores = ServerStores(text, references)
        self.call_sites = CallSites(text, names, references, self.server_stores)
        self.registrations: list[Registration] = []
        self.guard_calls: list[tuple[str, ServerRef]] = []
        self.install_calls: list[str] = []
        self.escapes: list[tuple[int, ServerRef, str]] = []
        # `exec(...)` / `eval(...)` calls, judged once the files a module execs are known.
        self.texts_run: list[tuple[ast.Call, Scope, ClassContext | None]] = []
        registers = _REGISTERS_OR_FACADES if "MCPApp" in text.source else _REGISTERS
        self.registering_lines = text.lines_with(registers)
        self.text_running_lines = text.lines_with(RUNS_TEXT_NAMES)
        self.may_write_privately = text.may_name("_tool_manager")

    def decorator(
        self, node: ast.expr, qualname: str, scope: Scope, cls: ClassContext | None
    ) -> None:
        kind = type(node)
        if kind is ast.IfExp or kind is ast.BoolOp:
            # `@(mcp.tool() if READ_WRITE else mcp.tool(name="f_ro"))` (PEP 614): each branch
            # may be the decorator; a condition is an expression like any other.
            if kind is ast.IfExp:
                self.calls_in(node.test, scope, cls)  # type: ignore[attr-defined]
                branches = [node.body, node.orelse]  # type: ignore[attr-defined]
            else:
                branches = node.values  # type: ignore[attr-defined]
            for branch in branches:
                self.decorator(branch, qualname, scope, cls)
            return
        if kind is not ast.Name and kind is not ast.Attribute and kind is not ast.Call:
            # Any other expression (`@registry[0]`, `@(lambda f: mcp.tool()(f))`, `@(d :=
            # mcp.tool())`): a server's `tool` in it registers where the analysis does not look.
            self.escapes_in(node, [], scope, cls, " in a decorator expression")
            return
        call = node if isinstance(node, ast.Call) else None
        target = call.func if call else node
        if (
            isinstance(target, ast.Attribute)
            and target.attr in REGISTRATION_ATTRIBUTES
            and not is_super(target.value)
        ):
            self.registrations.append(
                Registration(
                    server=self.references.server_ref(target.value, scope, cls),
                    server_text=self.text.text(target.value),
                    function=FunctionRef(FunctionKind.LOCAL, qualname=qualname),
                    tool_name=_tool_name(call),
                    position=self.text.start(node),
                )
            )
        else:
            if call is not None:
                self.calls_in(call, scope, cls)
            self.call_sites.decorator_site(node, qualname, scope, cls)

    def calls_in(self, node: ast.AST, scope: Scope, cls: ClassContext | None) -> None:
        if self.may_write_privately and type(node) is ast.Assign:
            self.private_write(node, scope, cls)
        if type(node) in MAY_STORE:
            self.server_stores.stores_in(node, scope, cls)  # type: ignore[arg-type]
        # Where no registration or guard can be, only a call passing a server on
        # (`register_tools(mcp)`, `Handler(mcp)`) matters, and such a call is the statement
        # itself or its value. Walking every expression would cost more than parsing.
        if type(node) is ast.withitem:  # no position of its own
            may_register = True
        else:  # `any_line_within`, asked of every statement: written out
            lines = self.registering_lines
            index = bisect_left(lines, node.lineno)
            may_register = index < len(lines) and lines[index] <= node.end_lineno
        calls = calls_within(node) if may_register else root_calls(node)
        if may_register:
            self.escapes_in(node, calls, scope, cls)
        if self.text_running_lines and type(node) is not ast.withitem:
            lines = self.text_running_lines
            index = bisect_left(lines, node.lineno)
            if index < len(lines) and lines[index] <= node.end_lineno:
                self.texts_in(calls if may_register else calls_within(node), scope, cls)
        if not calls:  # most statements
            return
        # In `server.tool(name)(fn)` the inner call is part of the outer registration.
        inner = (
            {id(call.func) for call in calls if isinstance(call.func, ast.Call)}
            if len(calls) > 1
            else ()
        )
        # `return self._register(title)`: a method that returns another's decorator.
        returned = node.value if isinstance(node, ast.Return) and scope.qualname else None
        for call in calls:
            if id(call) not in inner:
                self.call(call, scope, cls, scope.qualname if call is returned else "")

    def escapes_in(
        self,
        node: ast.AST,
        calls: list[ast.Call],
        scope: Scope,
        cls: ClassContext | None,
        where: str = "",
    ) -> None:
        """Uses of a server's `tool` / `add_tool` other than a registration: the attribute as
        a value (`tool = mcp.tool`, `map(mcp.add_tool, fns)`), a decorator made and not applied
        here (`return mcp.tool(name=name)`), `getattr(mcp, "tool")`. What goes through them is
        registered where the analysis does not look."""
        called = {id(call.func): call for call in calls}
        applied = {id(call.func) for call in calls if type(call.func) is ast.Call}
        for sub in ast.walk(node):
            kind = type(sub)
            if kind is ast.Attribute and sub.attr in TOOL_ATTRIBUTES and not is_super(sub.value):
                call = called.get(id(sub))
                if call is None:
                    replaced = type(sub.ctx) is not ast.Load
                    use = (
                        f"`{self.text.label(sub)}` {'replaced' if replaced else 'used as a value'}"
                        + where
                    )
                elif id(call) in applied or _registers(call):
                    continue
                else:
                    use = f"`{self.text.label(call)}`, a decorator made and not applied here"
                self.escape(sub.value, sub.lineno, use, scope, cls)
            elif (
                kind is ast.Call
                and type(sub.func) is ast.Name
                and sub.func.id == "getattr"
                and len(sub.args) >= 2
                and not (
                    isinstance(sub.args[1], ast.Constant)
                    and sub.args[1].value not in TOOL_ATTRIBUTES
                )
            ):
                self.escape(sub.args[0], sub.lineno, f"`{self.text.label(sub)}`", scope, cls)

    def escape(
        self, value: ast.expr, line: int, use: str, scope: Scope, cls: ClassContext | None
    ) -> None:
        server = self.references.server_ref(value, scope, cls)
        if server.kind is not ServerKind.UNKNOWN:
            self.escapes.append((line, server, use))

    def texts_in(self, calls: list[ast.Call], scope: Scope, cls: ClassContext | None) -> None:
        """The `exec(...)` / `eval(...)` calls among `calls` (the builtins), for `run_texts`."""
        for call in calls:
            func = call.func
            if (
                type(func) is ast.Name
                and func.id in RUNS_TEXT_NAMES  # type: ignore[attr-defined]
                and self.names.qualify(func, scope) in RUNS_TEXT
            ):
                self.texts_run.append((call, scope, cls))

    def run_texts(self, exec_file_lines: Collection[int], texts: Mapping[str, ast.expr]) -> None:
        """Text given to `exec` / `eval`, other than a file's text `analysis/scan/exec_files.py`
        follows (at `exec_file_lines`), may register tools on any server it sees: each server
        it may name is an unchecked use. Literal text is read: it counts only when it names a
        server of the namespace (or imports one), or says `tool`, `add_tool` or
        `_tool_manager`, or reaches names by text itself (`getattr`, `exec`, `globals`...).
        Any other text (`exec(code)`) sees every server of the namespace it runs in: the
        scope's own (names bound to a possible server, imports, `self`'s attributes), or the
        ones a namespace given as a literal dictionary holds (`globals()` is the module's).
        `texts`: the module-level names bound once, and their values (`CODE = "..."`)."""
        for call, scope, cls in self.texts_run:
            if call.lineno in exec_file_lines or not call.args:
                continue
            function = call.func.id  # type: ignore[attr-defined]
            use = f"text given to `{function}(...)` runs in a namespace that holds it"
            namespace = [*call.args[1:3], *(k.value for k in call.keywords if k.arg)]
            given = given_namespace(namespace)
            text = call.args[0]
            if type(text) is ast.Name and scope.owner(text.id) is module_scope(scope):  # type: ignore[attr-defined]
                text = texts.get(text.id, text)  # type: ignore[attr-defined]
            literal = literal_text(text)
            if literal is None:
                names = None  # any name
            else:
                try:
                    tree = ast.parse(literal)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    continue  # it raises, registering nothing
                names, imported = names_in_text(tree)
                for qualified in imported:
                    self.escapes.append(
                        (call.lineno, self.references.imported_server(qualified), use)
                    )
                if names is not None and not names:
                    continue
            counted = len(self.escapes)
            for candidate in visible_servers(scope, cls) if given is None else given:
                if names is None or first_name(candidate) in names:
                    self.escape(candidate, call.lineno, use, scope, cls)
            if (
                literal is not None
                and names is None
                and (len(self.escapes) == counted or builds_server(tree))
            ):
                # Literal text that registers on a server none of the namespace's names hold
                # (it builds one itself, or reaches it by text): on a server of unknown
                # framework, which counts against each pre-parsing server of the tree.
                self.registrations.append(
                    Registration(
                        server=ServerRef(ServerKind.UNKNOWN),
                        server_text=f"{function}(...)",
                        function=FunctionRef(
                            FunctionKind.UNKNOWN, text=f"text given to `{function}(...)`"
                        ),
                        tool_name=None,
                        position=self.text.start(call),
                    )
                )

    def private_write(self, node: ast.Assign, scope: Scope, cls: ClassContext | None) -> None:
        """`server._tool_manager._tools[name] = tool`: a tool written past the public API. The
        SDK serves (and pre-parses) it all the same; what it runs cannot be seen."""
        for target in node.targets:
            manager = _tool_manager_of(target)
            if manager is not None:
                written = f"{self.text.text(node.value)}, written into the tool manager"
                self.registrations.append(
                    Registration(
                        server=self.references.server_ref(manager, scope, cls),
                        server_text=self.text.text(manager),
                        function=FunctionRef(FunctionKind.UNKNOWN, text=written),
                        tool_name=None,
                        position=self.text.start(node),
                    )
                )
                return

    def call(
        self, node: ast.Call, scope: Scope, cls: ClassContext | None, returned_by: str = ""
    ) -> None:
        func = node.func
        kind = type(func)  # parsed nodes are of the exact classes
        if node.keywords:
            given = keyword(node, "tools")
            if given is not None and self.is_server_class(func, scope):
                self.constructor_tools(node, given, scope, cls)
            elif given is not None and not self.call_sites.is_library_call(func, scope):
                # A subclass of a server class, perhaps (the linker knows).
                self.constructor_tools(node, given, scope, cls, if_server_class=True)
        # `server.tool(name=...)(fn)`: the call form used for methods and late registration.
        if (
            kind is ast.Call
            and type(func.func) is ast.Attribute
            and func.func.attr in REGISTRATION_ATTRIBUTES
            and node.args
        ):
            self.register(
                func.func.value,
                node.args[0],
                _tool_name(func),
                node,
                scope,
                cls,
                self.name_argument(func, scope, cls),
            )
        elif kind is ast.Attribute and func.attr == "add_tool":
            server = _tool_manager_of(func.value) or func.value
            target = node.args[0] if node.args else keyword(node, "fn", "tool")
            if target is not None:
                name = constant_keyword(node, "name")
                if isinstance(target, ast.Call) and _is_from_function(target):
                    name = constant_keyword(target, "name") or name
                    target = target.args[0] if target.args else keyword(target, "fn")
                if target is not None:
                    self.register(server, target, name, node, scope, cls)
        elif kind is ast.Attribute and func.attr in REGISTRATION_ATTRIBUTES and node.args:
            # fastmcp accepts `server.tool(fn)`; a first argument that is a string is a name.
            first = node.args[0]
            if not isinstance(first, ast.Constant):
                self.register(func.value, first, _tool_name(node), node, scope, cls)
        elif kind is ast.Attribute and func.attr not in _GUARD_OR_INSTALL:
            # Qualified, it would end with the attribute: neither a guard nor an install.
            self.call_sites.call_site(node, scope, cls, returned_by)
        else:
            qualified = self.names.qualify(func, scope)
            # Any `guard`/`install`, kept with its qualified name: a project copy of the
            # runtime (the `runtime-module` setting) is the linker's to recognise.
            last = qualified.rpartition(".")[2] if qualified else ""
            if last == "guard" and node.args:
                server = self.references.server_ref(node.args[0], scope, cls)
                self.guard_calls.append((qualified, server))
            elif last == "install":
                self.install_calls.append(qualified)
            if qualified not in GUARD_FUNCTIONS and qualified not in INSTALL_FUNCTIONS:
                self.call_sites.call_site(node, scope, cls, returned_by)

    def is_server_class(self, func: ast.expr, scope: Scope) -> bool:
        """Whether a called name may be a framework's server class, under any of its names."""
        qualified = self.names.qualify(func, scope) or ""
        return any(
            name.rpartition(".")[2] in SERVER_CLASS_NAMES
            for name in (qualified, *self.names.alternatives(func, scope))
        )

    def constructor_tools(
        self,
        call: ast.Call,
        given: ast.expr,
        scope: Scope,
        cls: ClassContext | None,
        if_server_class: bool = False,
    ) -> None:
        """`FastMCP("t", tools=[Tool.from_function(search), lookup])`: each tool given to the
        server's constructor is a registration on it. What is not a function, or
        `Tool.from_function` of one, in a literal list (here or bound to the name given) is
        registered where the analysis cannot see."""
        server = self.references.server_from_value(call, scope)
        if server is None:
            return
        elements: list[ast.expr] = [given]
        listed = given
        if type(listed) is ast.Name:
            symbol = scope.lookup(listed.id)
            if symbol is not None and symbol.kind is SymbolKind.COLLECTION:
                listed = symbol.node  # type: ignore[assignment]
        if type(listed) in (ast.List, ast.Tuple):
            elements = listed.elts  # type: ignore[attr-defined]
        server_text = self.text.text(call.func)
        for element in elements:
            name = None
            target: ast.expr | None = element
            if isinstance(element, ast.Call) and _is_from_function(element):
                name = constant_keyword(element, "name")
                target = element.args[0] if element.args else keyword(element, "fn")
            if target is None or type(target) not in (ast.Name, ast.Attribute):
                function = FunctionRef(
                    FunctionKind.UNKNOWN,
                    text=self.text.label(element),
                )
            else:
                function = self.references.function_ref(target, scope, cls)
            self.registrations.append(
                Registration(
                    server=server,
                    server_text=server_text,
                    function=function,
                    tool_name=name,
                    position=self.text.start(element),
                    if_server_class=if_server_class,
                )
            )

    def name_argument(
        self, call: ast.Call, scope: Scope, cls: ClassContext | None
    ) -> tuple[int, str] | None:
        """The helper parameter that `server.tool(name)` / `server.tool(name=name)` names the
        tool with, if it is one."""
        name = call.args[0] if call.args else keyword(call, "name")
        if not isinstance(name, ast.Name):
            return None
        ref = self.references.function_ref(name, scope, cls)
        return ref.argument if ref.kind is FunctionKind.PARAMETER else None

    def register(
        self,
        server: ast.expr,
        target: ast.expr,
        tool_name: str | None,
        node: ast.Call,
        scope: Scope,
        cls: ClassContext | None,
        tool_name_argument: tuple[int, str] | None = None,
    ) -> None:
        if is_super(server):
            return  # a server subclass forwarding its own `tool()` to the framework
        self.registrations.append(
            Registration(
                server=self.references.server_ref(server, scope, cls),
                server_text=self.text.text(server),
                function=self.references.function_ref(target, scope, cls),
                tool_name=tool_name,
                position=self.text.start(node),
                tool_name_argument=tool_name_argument,
            )
        )


def _registers(call: ast.Call) -> bool:
    """`server.add_tool(fn)`, `server.tool(fn)`: a registration `call` records itself."""
    func = call.func
    if type(func) is not ast.Attribute:
        return False
    if func.attr == "add_tool":
        return bool(call.args) or keyword(call, "fn", "tool") is not None
    return bool(call.args) and not isinstance(call.args[0], ast.Constant)


def _tool_manager_of(expression: ast.expr) -> ast.expr | None:
    """The server in `server._tool_manager` (or `server._tool_manager._tools[...]`)."""
    while isinstance(expression, ast.Attribute | ast.Subscript):
        if isinstance(expression, ast.Attribute) and expression.attr == "_tool_manager":
            return expression.value
        expression = expression.value
    return None


def _tool_name(call: ast.Call | None) -> str | None:
    if call is None:
        return None
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return constant_keyword(call, "name")


def _is_from_function(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "from_function"
