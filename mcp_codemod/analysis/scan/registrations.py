"""Registration patterns: `@server.tool`, `server.tool(...)(fn)`, `server.add_tool(fn)`, and the
calls around them that matter (`guard(server)`, `install()`, calls that pass a server on)."""

from __future__ import annotations

import ast
import sys
from bisect import bisect_left
from collections.abc import Collection, Iterable, Mapping

from mcp_codemod.analysis.facades import FACADE_CLASSES
from mcp_codemod.analysis.facts import (
    UNPACKED,
    CallSite,
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
)
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.scope import ClassContext, Names, Scope, SymbolKind
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
_INERT = frozenset((ast.Constant, ast.JoinedStr))
_GUARD_OR_INSTALL = ("guard", "install")
_STANDARD_LIBRARY = frozenset((*sys.stdlib_module_names, "builtins"))


class Registrations:
    """Collects a module's registrations and the calls that matter to them."""

    def __init__(self, text: SourceText, names: Names, references: References) -> None:
        self.text = text
        self.names = names
        self.references = references
        self.registrations: list[Registration] = []
        self.calls: list[CallSite] = []
        self.guard_calls: list[tuple[str, ServerRef]] = []
        self.install_calls: list[str] = []
        self.escapes: list[tuple[int, ServerRef, str]] = []
        # Each store once, in the order met: a dict, since a module can store thousands.
        self.stores: dict[tuple[int, ServerRef, str], None] = {}
        # `exec(...)` / `eval(...)` calls, judged once the files a module execs are known.
        self.texts_run: list[tuple[ast.Call, Scope, ClassContext | None]] = []
        registers = _REGISTERS_OR_FACADES if "MCPApp" in text.source else _REGISTERS
        self.registering_lines = text.lines_with(registers)
        self.text_running_lines = text.lines_with(_RUNS_TEXT_NAMES)
        self.may_write_privately = text.may_name("_tool_manager")
        self.may_make_facades = any(
            text.may_name(name.rpartition(".")[2]) for name in FACADE_CLASSES
        )

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
            self.decorator_site(node, qualname, scope, cls)

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

    def calls_in(self, node: ast.AST, scope: Scope, cls: ClassContext | None) -> None:
        if self.may_write_privately and type(node) is ast.Assign:
            self.private_write(node, scope, cls)
        if type(node) in _MAY_STORE:
            self.stores_in(node, scope, cls)  # type: ignore[arg-type]
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
            if kind is ast.Attribute and sub.attr in _HANDED_ON and not is_super(sub.value):
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
                    isinstance(sub.args[1], ast.Constant) and sub.args[1].value not in _HANDED_ON
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
                and func.id in _RUNS_TEXT_NAMES  # type: ignore[attr-defined]
                and self.names.qualify(func, scope) in _RUNS_TEXT
            ):
                self.texts_run.append((call, scope, cls))

    def run_texts(self, exec_file_lines: Collection[int], texts: Mapping[str, ast.expr]) -> None:
        """Text given to `exec` / `eval`, other than a file's text `analysis/scan/exec_files.py`
        follows (at `exec_file_lines`), may register tools on any server it sees: each server
        it may name is an unseen use. Literal text is read: it counts only when it names a
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
            given = _given_namespace(namespace)
            text = call.args[0]
            if type(text) is ast.Name and scope.owner(text.id) is _module_scope(scope):  # type: ignore[attr-defined]
                text = texts.get(text.id, text)  # type: ignore[attr-defined]
            literal = _literal(text)
            if literal is None:
                names = None  # any name
            else:
                try:
                    tree = ast.parse(literal)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    continue  # it raises, registering nothing
                names, imported = _names_in_text(tree)
                for qualified in imported:
                    self.escapes.append(
                        (call.lineno, self.references.imported_server(qualified), use)
                    )
                if names is not None and not names:
                    continue
            counted = len(self.escapes)
            for candidate in _visible(scope, cls) if given is None else given:
                if names is None or _first_name(candidate) in names:
                    self.escape(candidate, call.lineno, use, scope, cls)
            if (
                literal is not None
                and names is None
                and (len(self.escapes) == counted or _builds_server(tree))
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

    def stores_in(
        self,
        node: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Return | ast.Expr,
        scope: Scope,
        cls: ClassContext | None,
    ) -> None:
        """The server object put where the analysis does not follow it: an item, or an
        attribute of anything but `self` (`servers[name] = mcp`, `state.server = mcp`), or a
        literal container (`servers = [mcp]`, `{"a": mcp}`, `return mcp, app`, `yield
        {"server": mcp}`). Code that reads it back may register tools on it. Binding a name
        (also `a, b = mcp, app`) and `self.mcp = mcp` are followed."""
        value = node.value
        kind = type(node)
        if kind is ast.Expr:
            if type(value) is not ast.Yield:
                return
            value = value.value  # type: ignore[union-attr]
        elif kind is not ast.Return:
            targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[union-attr]
            if value is not None:
                for target in targets:
                    if type(target) is ast.Subscript or (
                        type(target) is ast.Attribute and not _is_self(target.value, cls)
                    ):
                        use = f"stored in `{self.text.label(target)}`"
                        self.store(value, node.lineno, use, scope, cls)
            if kind is ast.Assign and any(type(t) in (ast.Tuple, ast.List) for t in targets):
                return  # unpacking binds names
        if value is not None:
            self.store_elements(value, node.lineno, scope, cls)

    def store_elements(
        self, value: ast.expr, line: int, scope: Scope, cls: ClassContext | None
    ) -> None:
        """The server among the elements of a literal container (nested ones too)."""
        kind = type(value)
        if kind is ast.Dict:
            elements = [*filter(None, value.keys), *value.values]  # type: ignore[attr-defined]
        elif kind in _SEQUENCES:
            elements = value.elts  # type: ignore[attr-defined]
        else:
            return
        for element in elements:
            if type(element) is ast.Starred:
                element = element.value
            if type(element) in _CONTAINER_NAMES:
                self.store_elements(element, line, scope, cls)
            else:
                self.store(element, line, f"stored in a {_CONTAINER_NAMES[kind]}", scope, cls)

    def given_on(
        self, call: ast.Call, scope: Scope, cls: ClassContext | None, first: int = 0
    ) -> None:
        """The server passed to a call the analysis does not follow (`registry.append(mcp)`,
        `setattr(state, "server", mcp)`): that code may keep it. The arguments before `first`
        are not kept (`setattr`'s object and name)."""
        use = f"given to `{self.text.label(call.func)}`"
        for argument in (*call.args[first:], *(k.value for k in call.keywords)):
            if type(argument) is ast.Starred:
                argument = argument.value
            self.store(argument, call.lineno, use, scope, cls)

    def store(
        self, value: ast.expr, line: int, use: str, scope: Scope, cls: ClassContext | None
    ) -> None:
        server = self.stored_server(value, scope, cls)
        if server is not None:
            self.stores[line, server, use] = None

    def stored_server(
        self, node: ast.expr, scope: Scope, cls: ClassContext | None
    ) -> ServerRef | None:
        """The server an expression may be: a name bound to one (made here, imported, a
        parameter) or `self.<attribute>` holding one; not what the standard library makes."""
        kind = type(node)
        if kind is ast.Name:
            symbol = scope.lookup(node.id)  # type: ignore[attr-defined]
            if symbol is None:
                return None
            if symbol.kind is SymbolKind.EXPRESSION:
                return self.stored_server(symbol.node, symbol.scope, cls)  # type: ignore[arg-type]
            if symbol.kind is SymbolKind.IMPORT:
                server = self.references.imported_server(symbol.qualified)
            elif symbol.kind is SymbolKind.SERVER:
                server = symbol.server
            else:
                return None
        elif kind is ast.Attribute and cls is not None and _is_self(node.value, cls):  # type: ignore[attr-defined]
            server = cls.attributes.get(node.attr)  # type: ignore[attr-defined]
        else:
            return None
        if server is None or server.qualified.partition(".")[0] in _STANDARD_LIBRARY:
            return None
        return server

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
            self.call_site(node, scope, cls, returned_by)
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
                self.call_site(node, scope, cls, returned_by)

    def is_server_class(self, func: ast.expr, scope: Scope) -> bool:
        """Whether a called name may be a framework's server class, under any of its names."""
        qualified = self.names.qualify(func, scope) or ""
        return any(
            name.rpartition(".")[2] in SERVER_CLASS_NAMES
            for name in (qualified, *self.names.alternatives(func, scope))
        )

    def constructor_tools(
        self, call: ast.Call, given: ast.expr, scope: Scope, cls: ClassContext | None
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
                )
            )

    def call_site(
        self, node: ast.Call, scope: Scope, cls: ClassContext | None, returned_by: str = ""
    ) -> None:
        """Record a call that passes a possible server or function, so that a callee's
        parameter can be resolved to it (`register_tools(mcp)`, `register_tool("a", a)`), and
        a call of the project that a function returns (it may return a decorator)."""
        if not returned_by and _passes_constants_only(node):
            return  # `f()`, `f("text", n=1)`: nothing a callee could register or be given
        for argument in node.args:
            self.store_elements(argument, node.lineno, scope, cls)
        for k in node.keywords:
            self.store_elements(k.value, node.lineno, scope, cls)
        references = self.references
        callee: FunctionRef | None = None  # what the call calls, once it is asked
        library = self.is_library_call(node.func, scope)
        if library:
            # `len(x)`, `json.dumps(x)`: no helper of the project; only a server matters.
            arguments = tuple([references.argument_server(a, scope, cls) for a in node.args])
            functions: tuple[FunctionRef | None, ...] = (None,) * len(arguments)
            if _last_name(node.func) in _STORING_NAMES:
                stored = _STORING_CALLS.get(self.names.qualify(node.func, scope) or "")
                if stored is not None:
                    self.given_on(node, scope, cls, stored)
        else:
            if not self.may_make_facades:
                # Resolving the arguments changes nothing (only a facade's construction is
                # recorded), and a callee that cannot be followed is never recorded: ask first.
                callee = references.followed(node.func, scope, cls)
                if callee is None or callee.kind is FunctionKind.UNKNOWN:
                    self.given_on(node, scope, cls)
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
                self.given_on(node, scope, cls)
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
            and symbol.qualified.partition(".")[0] in _STANDARD_LIBRARY
        )

    def is_bound(self, function: FunctionRef, callee: ast.expr, cls: ClassContext | None) -> bool:
        """Whether the call passes `self` implicitly: `instance.method(...)`, `self.method(...)`."""
        return function.kind is FunctionKind.METHOD or (
            cls is not None
            and isinstance(callee, ast.Attribute)
            and isinstance(callee.value, ast.Name)
            and callee.value.id == cls.self_name
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


_RUNS_TEXT_NAMES = ("exec", "eval")
_RUNS_TEXT = frozenset(f"builtins.{name}" for name in _RUNS_TEXT_NAMES)
# In literal text, names that reach the namespace by text themselves: any server may be named.
_REACHES_BY_TEXT = frozenset(
    ("getattr", "exec", "eval", "compile", "globals", "locals", "vars", "__import__")
)
_TEXT_REACHES = frozenset(("_tool_manager", "__dict__"))


def _literal(node: ast.expr) -> str | None:
    """The text of a literal string or bytes (also one spelled with `+`), else None."""
    if type(node) is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else None
    if type(node) is ast.BinOp and type(node.op) is ast.Add:  # type: ignore[attr-defined]
        left, right = _literal(node.left), _literal(node.right)  # type: ignore[attr-defined]
        return left + right if left is not None and right is not None else None
    return None


def _names_in_text(tree: ast.Module) -> tuple[set[str] | None, list[str]]:
    """The names literal text reads (None: any, it registers, reaches names by text or builds
    a server) and the absolute names it imports."""
    names: set[str] = set()
    imported: list[str] = []
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Name:
            names.add(node.id)  # type: ignore[attr-defined]
            if node.id in _REACHES_BY_TEXT or node.id in SERVER_CLASS_NAMES:  # type: ignore[attr-defined]
                return None, imported
        elif kind is ast.Attribute:
            attribute = node.attr  # type: ignore[attr-defined]
            if (
                attribute in _HANDED_ON
                or attribute in _TEXT_REACHES
                or attribute in SERVER_CLASS_NAMES
            ):
                return None, imported
        elif kind is ast.Import:
            imported.extend(alias.name for alias in node.names)  # type: ignore[attr-defined]
        elif kind is ast.ImportFrom and node.level == 0 and node.module:  # type: ignore[attr-defined]
            imported.extend(f"{node.module}.{a.name}" for a in node.names if a.name != "*")  # type: ignore[attr-defined]
    return names, [name for name in imported if name.partition(".")[0] not in _STANDARD_LIBRARY]


def _module_scope(scope: Scope) -> Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


def _builds_server(tree: ast.Module) -> bool:
    """Whether the text calls a server class by its name (`FastMCP(...)`)."""
    for node in ast.walk(tree):
        if type(node) is ast.Call and _last_name(node.func) in SERVER_CLASS_NAMES:  # type: ignore[attr-defined]
            return True
    return False


def _given_namespace(namespace: list[ast.expr]) -> list[ast.expr] | None:
    """The values a namespace given to `exec` / `eval` holds, when every one is a literal
    dictionary; None when the text runs in the scope's own namespace (none given, or
    `globals()` / `locals()` / `vars()`) or in one the analysis cannot read."""
    if not namespace:
        return None
    held: list[ast.expr] = []
    for given in namespace:
        if type(given) is ast.Dict:
            held.extend(value for value in given.values)  # type: ignore[attr-defined]
        elif type(given) is not ast.Constant:  # `None` is the scope's own
            return None
    return held


def _visible(scope: Scope, cls: ClassContext | None) -> list[ast.expr]:
    """The names of the scope and around it that may hold a server, as expressions to
    resolve, and `self`'s attributes holding one."""
    seen: set[str] = set()
    found: list[ast.expr] = []
    for names in scope.chain:
        for name, symbol in names.items():
            if name in seen:
                continue
            seen.add(name)
            if symbol.kind is SymbolKind.SERVER or (
                symbol.kind is SymbolKind.IMPORT
                and symbol.qualified.partition(".")[0] not in _STANDARD_LIBRARY
            ):
                found.append(ast.Name(id=name, ctx=ast.Load()))
    if cls is not None and cls.self_name:
        for attribute in cls.attributes:
            found.append(
                ast.Attribute(
                    value=ast.Name(id=cls.self_name, ctx=ast.Load()), attr=attribute, ctx=ast.Load()
                )
            )
    return found


def _first_name(node: ast.expr) -> str:
    while type(node) is ast.Attribute:
        node = node.value  # type: ignore[attr-defined]
    return node.id if type(node) is ast.Name else ""  # type: ignore[attr-defined]


# The attributes through which a server registers tools.
_HANDED_ON = REGISTRATION_ATTRIBUTES | {"add_tool"}
# Statements that may put a value where the analysis does not follow it (`stores_in`).
_MAY_STORE = frozenset((ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr))
_SEQUENCES = frozenset((ast.List, ast.Tuple, ast.Set))
_CONTAINER_NAMES = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set", ast.Dict: "dictionary"}
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


def _is_self(node: ast.expr, cls: ClassContext | None) -> bool:
    return cls is not None and type(node) is ast.Name and node.id == cls.self_name


def _last_name(node: ast.expr) -> str:
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined]
    return node.attr if kind is ast.Attribute else ""  # type: ignore[attr-defined]


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
        return function.qualified.partition(".")[0] not in _STANDARD_LIBRARY
    return function.kind in (FunctionKind.LOCAL, FunctionKind.METHOD)


def _tool_name(call: ast.Call | None) -> str | None:
    if call is None:
        return None
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return constant_keyword(call, "name")


def _is_from_function(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "from_function"
