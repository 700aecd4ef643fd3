"""Join the facts of many modules: which server each tool is registered on, which function it
runs, and what each parameter's annotation admits once aliases in any module are resolved."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from mcp_codemod.analysis.facts import (
    AnnotationSite,
    CallSite,
    Function,
    FunctionRef,
    ModuleFacts,
    Parameter,
    RefKind,
    Registration,
    ServerRef,
    ServerSwap,
)
from mcp_codemod.analysis.frameworks import SERVER_CLASSES, Framework, runtime_name
from mcp_codemod.analysis.reach import LibraryLoader, Reached, ToolReach, Unreached
from mcp_codemod.analysis.scope import STAR
from mcp_codemod.analysis.types import (
    MAX_ALIAS_DEPTH,
    AliasTooDeep,
    AnnotationFacts,
    TCall,
    TName,
    TSubscript,
    TUnion,
    TypeExpr,
    classify,
)
from mcp_codemod.analysis.unseen import Unseen

ModuleLoader = Callable[[str, "ModuleFacts"], "ModuleFacts | None"]
"""Loads a module by name, looking first beside the module that imports it."""
_MAX_HOPS = 12  # re-export chains longer than this are not followed (and cycles end here)


@dataclass(frozen=True)
class ResolvedServer:
    framework: Framework | None  # None: not resolvable; the tool is counted, not guessed at
    description: str  # how the server was made, for messages
    strict_input_validation: bool = False
    origin: tuple[str, int] | None = None  # (module, line) of its construction
    swap: ServerSwap | None = None  # where the fix can make it a guarded server


@dataclass(frozen=True)
class AliasSite:
    path: str
    site: AnnotationSite


@dataclass(frozen=True)
class ToolParameter:
    """One argument of one registered tool, with everything the rules and the fixer need."""

    path: str
    tool: str
    function: Function
    parameter: Parameter
    facts: AnnotationFacts
    server: ResolvedServer
    alias: AliasSite | None  # the annotation is this module-level alias: fix it there
    # Third-party: the file outside the project (found on `sys.path`) that defines the tool
    # function. `path`, the function's and the parameter's positions are then the
    # registration's, and no marker can be added: `fix_site` has no site; only the server can
    # be fixed.
    library: str | None = None

    @property
    def fix_site(self) -> tuple[str, AnnotationSite | None]:
        """Where a marker goes: at the alias's definition when the annotation is one; nowhere
        for a library's function."""
        if self.library is not None:
            return self.path, None
        if self.alias is not None:
            return self.alias.path, self.alias.site
        return self.path, self.parameter.site


@dataclass(frozen=True)
class UnresolvedTool:
    path: str
    line: int
    reason: str
    kind: Unseen
    server: ResolvedServer  # the server it lands on, as far as it is known


@dataclass(frozen=True)
class ServerTools:
    """A server of known framework and the registrations on it whose tools the analysis cannot
    see: the subject of the server-level rules."""

    server: ResolvedServer
    unseen: tuple[UnresolvedTool, ...]  # sorted by path and line


@dataclass(frozen=True)
class LinkResult:
    parameters: tuple[ToolParameter, ...]
    unresolved: tuple[UnresolvedTool, ...]
    tools: int

    @property
    def servers(self) -> tuple[ServerTools, ...]:
        """Each server of known framework with unseen registrations, once: by its construction
        where it is known, else by how it was reached."""
        grouped: dict[object, list[UnresolvedTool]] = {}
        servers: dict[object, ResolvedServer] = {}
        for tool in self.unresolved:
            if tool.server.framework is None:
                continue
            key = tool.server.origin or (tool.server.description, tool.server.swap)
            grouped.setdefault(key, []).append(tool)
            servers.setdefault(key, tool.server)
        return tuple(
            ServerTools(servers[key], tuple(sorted(tools, key=lambda t: (t.path, t.line))))
            for key, tools in grouped.items()
        )


class Linker:
    def __init__(
        self,
        load: ModuleLoader,
        loaded: Callable[[], list[ModuleFacts]],
        load_callers: Callable[[str, ModuleFacts], list[ModuleFacts]],
        load_library: LibraryLoader | None = None,
        runtime_copy: str | None = None,
    ) -> None:
        self.load_library = load_library
        self.calls_to_function: dict[tuple[str, str], list[tuple[ModuleFacts, CallSite, bool]]] = {}
        self.load = load
        self.runtime_copy = runtime_copy  # the `runtime-module` setting
        self.loaded = loaded
        self.load_callers = load_callers
        self.passed_servers: dict[tuple[str, str, tuple[int, str]], ResolvedServer] = {}
        # Calls that pass a possible server, by the name they call, so that finding the callers
        # of one registrar does not resolve every call of every module.
        self.calls_by_name: dict[str, list[tuple[ModuleFacts, CallSite]]] = {}
        self.indexed: set[str] = set()

    # ---- entry -----------------------------------------------------------------------------
    def link(self, modules: list[ModuleFacts], default: Framework | None) -> LinkResult:
        registrations = [
            (module, registration, self.server(module, registration.server))
            for module in modules
            for registration in module.registrations
        ]
        # Resolving servers loaded the modules that create them: their `guard()` calls count too.
        guarded = self.guarded_origins(self.loaded())
        parameters: list[ToolParameter] = []
        unresolved: list[UnresolvedTool] = []
        tools = len(registrations)  # and those a helper or loop registers more than once
        # Made per run, not kept: it refers to this linker (no reference cycle, see checker).
        reach = ToolReach(self, self.load_library)
        for module, registration, server in registrations:
            if server.framework is None and default is not None:
                server = ResolvedServer(default, server.description)
            if server.framework is None:
                reason = (
                    f"server `{registration.server_text}` ({server.description}): framework unknown"
                )
                unresolved.append(
                    UnresolvedTool(
                        module.path,
                        registration.position.line,
                        reason,
                        Unseen.UNKNOWN_FRAMEWORK,
                        server,
                    )
                )
                continue
            if guarded is True or server.origin in guarded:
                server = ResolvedServer(
                    server.framework.guarded, server.description, server.strict_input_validation
                )
            reached = reach.tools(module, registration.function, registration.position.line)
            tools += len(reached) - 1
            for tool in reached:
                if isinstance(tool, Unreached):
                    unresolved.append(
                        UnresolvedTool(tool.path, tool.line, tool.reason, tool.kind, server)
                    )
                elif tool.library:
                    parameters.extend(
                        self.library_parameters(module, tool, registration, server, unresolved)
                    )
                else:
                    parameters.extend(
                        self.parameters(tool.owner, tool.function, registration, server, unresolved)
                    )
        return LinkResult(tuple(parameters), tuple(unresolved), tools)

    def parameters(
        self,
        owner: ModuleFacts,
        function: Function,
        registration: Registration,
        server: ResolvedServer,
        unresolved: list[UnresolvedTool],
    ) -> list[ToolParameter]:
        """The tool's parameters; one whose annotation cannot be followed goes to `unresolved`."""
        tool = registration.tool_name or function.qualname.rsplit(".", 1)[-1]
        result = []
        for parameter in function.parameters:
            alias = None
            if parameter.alias is not None:
                found = self.alias(parameter.alias, owner)
                if found is not None:
                    module, name = found
                    alias = AliasSite(module.path, module.aliases[name].site)
            annotation = parameter.annotation
            if owner.star_imports and annotation is not None:
                annotation = _unstarred_type(annotation, lambda name: self.unstarred(name, owner))
            try:
                facts = classify(
                    annotation,
                    lambda name: self.alias_value(name, owner),
                    lambda name: self.class_fields(name, owner),
                    self.runtime_copy,
                )
            except AliasTooDeep:
                unresolved.append(
                    UnresolvedTool(
                        owner.path,
                        parameter.position.line,
                        f"`{parameter.name}`: its annotation nests more than {MAX_ALIAS_DEPTH} "
                        "type aliases; too deep to follow",
                        Unseen.NOT_FOUND,
                        server,
                    )
                )
                continue
            result.append(
                ToolParameter(owner.path, tool, function, parameter, facts, server, alias)
            )
        return result

    def library_parameters(
        self,
        module: ModuleFacts,
        tool: Reached,
        registration: Registration,
        server: ResolvedServer,
        unresolved: list[UnresolvedTool],
    ) -> list[ToolParameter]:
        """A library's tool function: reported on the registration, where the project is."""
        at = registration.position
        function = replace(tool.function, position=at)
        return [
            replace(
                found,
                path=module.path,
                function=function,
                parameter=replace(found.parameter, position=at, site=None),
                alias=None,
                library=tool.owner.path,
            )
            for found in self.parameters(
                tool.owner, tool.function, registration, server, unresolved
            )
        ]

    # ---- names across modules --------------------------------------------------------------
    def follow(
        self, qualified: str, near: ModuleFacts, has: Callable[[ModuleFacts, str], bool]
    ) -> tuple[ModuleFacts, str] | None:
        """The module of the project that defines `pkg.mod.name`, following re-exports
        (`from .server import mcp` in an `__init__`), and the name there."""
        for _ in range(_MAX_HOPS):
            if qualified.startswith(STAR):
                unstarred = self.unstarred(qualified, near)
                if unstarred is None:
                    return None
                qualified = unstarred
            module_name, _, name = qualified.rpartition(".")
            module = self.load(module_name, near) if module_name else None
            if module is None:
                return None
            if has(module, name):
                return module, name
            if name in module.imports:
                qualified, near = module.imports[name], module
            elif module.star_imports:
                qualified, near = f"{STAR}{name}", module
            else:
                return None
        return None

    def unstarred(self, qualified: str, near: ModuleFacts, hops: int = 0) -> str | None:
        """The qualified name of `*name` (a name the module binds by no statement): what one of
        its star imports brings in, honouring `__all__`."""
        if not qualified.startswith(STAR):
            return qualified
        name = qualified[len(STAR) :]
        for star in near.star_imports:
            module = self.load(star, near)
            if module is None or hops > _MAX_HOPS:
                continue
            exported = name in module.exports if module.exports is not None else name[0] != "_"
            if not exported:
                continue
            if name in module.imports:
                return module.imports[name]
            if any(
                name in names
                for names in (
                    module.functions,
                    module.classes,
                    module.aliases,
                    module.servers,
                    module.collections,
                )
            ):
                return f"{module.module}.{name}"
            deeper = self.unstarred(qualified, module, hops + 1)
            if deeper is not None:
                return deeper
        return None

    def calls_to(
        self, module: ModuleFacts, function: str
    ) -> list[tuple[ModuleFacts, CallSite, bool]]:
        """The calls of a function of `module` (by qualname), each with its caller and whether it
        passes `self` implicitly: in the loaded modules, else in the project's."""
        key = (module.path, function)
        if key not in self.calls_to_function:
            found = self.calls_among(self.loaded(), module, function)
            if not found:
                callers = self.load_callers(_called_name(function), module)
                found = self.calls_among(callers, module, function)
            self.calls_to_function[key] = found
        return self.calls_to_function[key]

    def calls_among(
        self, callers: list[ModuleFacts], module: ModuleFacts, function: str
    ) -> list[tuple[ModuleFacts, CallSite, bool]]:
        self.index_calls(callers)
        found = []
        for caller, call in self.calls_by_name.get(_called_name(function), ()):
            callee = self.callee(caller, call)
            if callee is not None:
                owner, target, bound = callee
                if owner.path == module.path and target.qualname == function:
                    found.append((caller, call, bound))
        return found

    def index_calls(self, callers: list[ModuleFacts]) -> None:
        for caller in callers:
            if caller.path not in self.indexed:
                self.indexed.add(caller.path)
                for call in caller.calls:
                    self.calls_by_name.setdefault(_call_name(call), []).append((caller, call))

    def alias(self, qualified: str, near: ModuleFacts) -> tuple[ModuleFacts, str] | None:
        return self.follow(qualified, near, lambda module, name: name in module.aliases)

    def alias_value(self, qualified: str, near: ModuleFacts) -> tuple[TypeExpr, bool] | None:
        found = self.alias(qualified, near)
        if found is None:
            return None
        module, name = found
        alias = module.aliases[name]
        return alias.value, alias.type_statement

    def class_fields(self, qualified: str, near: ModuleFacts) -> tuple[TypeExpr, ...] | None:
        """The field annotations of a project class and its project bases; None when the name
        is not a project class or it declares no fields (an enum, a plain class)."""
        fields = [
            expr
            for module, name in self.project_classes(qualified, near)
            for expr in module.class_fields.get(name, ())
        ]
        return tuple(fields) or None

    def function(
        self, module: ModuleFacts, ref: FunctionRef
    ) -> tuple[ModuleFacts, Function] | None:
        if ref.kind is RefKind.LOCAL:
            function = module.functions.get(ref.target)
            return (module, function) if function is not None else None
        if ref.kind is RefKind.IMPORT:
            found = self.follow(ref.target, module, lambda m, name: name in m.functions)
            if found is not None:
                owner, name = found
                return owner, owner.functions[name]
        if ref.kind is RefKind.METHOD:
            return self.method(module, ref.target, ref.method)
        return None

    def method(
        self, module: ModuleFacts, class_name: str, method: str
    ) -> tuple[ModuleFacts, Function] | None:
        """A method of a project class, defined there or inherited from a project base."""
        for owner, name in self.project_classes(class_name, module):
            function = owner.functions.get(f"{name}.{method}")
            if function is not None:
                return owner, function
        return None

    def project_classes(
        self, qualified: str, near: ModuleFacts
    ) -> Iterator[tuple[ModuleFacts, str]]:
        """A class of the project and, up the chain of first bases, those of its ancestors that
        are project classes too: each with the module that defines it."""
        for _ in range(_MAX_HOPS):
            found = self.follow(qualified, near, lambda m, name: name in m.classes)
            if found is None:
                return
            yield found
            module, name = found
            bases = module.classes[name]
            if not bases:
                return
            qualified, near = bases[0].qualified, module

    def callee(
        self, caller: ModuleFacts, call: CallSite
    ) -> tuple[ModuleFacts, Function, bool] | None:
        """The function a call runs, and whether `self` is passed implicitly: a method called on
        an instance, or `__init__` when a project class is called."""
        found = self.function(caller, call.function)
        if found is not None:
            return found[0], found[1], call.bound
        if call.function.kind in (RefKind.LOCAL, RefKind.IMPORT):
            qualified = call.function.target
            if call.function.kind is RefKind.LOCAL:
                qualified = f"{caller.module}.{qualified}"
            constructor = self.method(caller, qualified, "__init__")
            if constructor is not None:
                return constructor[0], constructor[1], True
        return None

    def passed_server(
        self, module: ModuleFacts, function: str, argument: tuple[int, str], hops: int
    ) -> ResolvedServer:
        """The server that callers pass to an unannotated parameter (`register_tools(mcp)`)."""
        key = (module.path, function, argument)
        if key not in self.passed_servers:
            self.passed_servers[key] = ResolvedServer(
                None, "a parameter: no caller passes a server"
            )
            self.passed_servers[key] = self.find_passed_server(module, function, argument, hops)
        return self.passed_servers[key]

    def find_passed_server(
        self, module: ModuleFacts, function: str, argument: tuple[int, str], hops: int
    ) -> ResolvedServer:
        server = self.server_passed_by(self.loaded(), module, function, argument, hops)
        if server is None:
            # Only when none of the files given calls it: look for callers in the project.
            callers = self.load_callers(_called_name(function), module)
            server = self.server_passed_by(callers, module, function, argument, hops)
        if server is None:
            return ResolvedServer(
                None, f"parameter `{argument[1]}` of {function}(): no caller passes a server"
            )
        return server

    def server_passed_by(
        self,
        callers: list[ModuleFacts],
        module: ModuleFacts,
        function: str,
        argument: tuple[int, str],
        hops: int,
    ) -> ResolvedServer | None:
        index, name = argument
        self.index_calls(callers)
        for caller, call in self.calls_by_name.get(_called_name(function), ()):
            callee = self.callee(caller, call)
            if callee is None:
                continue
            owner, target, bound = callee
            if owner.path != module.path or target.qualname != function:
                continue
            passed = dict(call.keywords).get(name)
            position = index - 1 if bound else index
            if passed is None and 0 <= position < len(call.arguments):
                passed = call.arguments[position]
            if passed is not None:
                server = self.server(caller, passed, hops + 1)
                if server.framework is not None:
                    return server
        return None

    # ---- servers ---------------------------------------------------------------------------
    def server(self, module: ModuleFacts, ref: ServerRef, hops: int = 0) -> ResolvedServer:
        if hops > _MAX_HOPS:
            return ResolvedServer(None, ref.target)
        if ref.kind is RefKind.IMPORT:
            found = self.follow(ref.target, module, lambda m, name: name in m.servers)
            if found is None:
                return ResolvedServer(None, f"imported from {ref.target}, outside the project")
            owner, name = found
            return self.server(owner, owner.servers[name], hops + 1)
        if ref.argument is not None:
            passed = self.passed_server(module, ref.function, ref.argument, hops)
            if passed.framework is not None or ref.kind is RefKind.PARAMETER:
                return passed
        if ref.kind is RefKind.UNKNOWN:
            return ResolvedServer(None, "not resolvable statically")
        resolved = self.server_class(ref.target, module)
        if resolved is None and ref.kind is RefKind.CONSTRUCT:
            factory = self.follow(ref.target, module, lambda m, name: name in m.functions)
            if factory is not None:
                owner, name = factory
                for returned in owner.functions[name].returns:
                    server = self.server(owner, returned, hops + 1)
                    if server.framework is not None:
                        return server
        if resolved is None:
            kind = "made by" if ref.kind is RefKind.CONSTRUCT else "annotated as"
            return ResolvedServer(None, f"{kind} {ref.target}")
        framework, base = resolved
        if ref.guarded_by_call:
            framework = framework.guarded
        if ref.kind is RefKind.ANNOTATED:
            # Typed as a server class: the construction is out of sight, but a project subclass
            # can still be given the guarded base, which guards every instance.
            swap = base if framework in (Framework.MCP1, Framework.MCP2) else None
            return ResolvedServer(
                framework, f"an instance of {ref.target}", ref.strict_input_validation, None, swap
            )
        swap = None
        if framework in (Framework.MCP1, Framework.MCP2) and ref.class_span is not None:
            swap = base or ServerSwap(module.path, ref.class_span, framework)
        return ResolvedServer(
            framework,
            f"{ref.target.rsplit('.', 1)[-1]}(...)",
            ref.strict_input_validation,
            (module.module, ref.line),
            swap,
        )

    def server_class(
        self, qualified: str, near: ModuleFacts
    ) -> tuple[Framework, ServerSwap | None] | None:
        """The framework of a server class, and for a project subclass, the base to rename."""
        qualified = self.unstarred(qualified, near) or qualified
        if runtime_name(qualified, self.runtime_copy) in SERVER_CLASSES:
            return SERVER_CLASSES[runtime_name(qualified, self.runtime_copy)], None
        for module, name in self.project_classes(qualified, near):
            for base in module.classes[name]:
                base_class = runtime_name(base.qualified, self.runtime_copy)
                if base_class in SERVER_CLASSES:
                    framework = SERVER_CLASSES[base_class]
                    return framework, ServerSwap(module.path, base.span, framework)
        return None

    def guarded_origins(self, modules: list[ModuleFacts]) -> set[tuple[str, int]] | bool:
        """Servers passed to `guard()`; True when `install()` guards every server in the process."""
        if any(module.installs_guard for module in modules):
            return True
        origins = set()
        for module in modules:
            for ref in module.guard_calls:
                origin = self.server(module, ref).origin
                if origin is not None:
                    origins.add(origin)
        return origins


def _unstarred_type(expr: TypeExpr, unstarred: Callable[[str], str | None]) -> TypeExpr:
    """The annotation with the names that star imports bring in qualified."""
    if isinstance(expr, TName) and expr.qualified.startswith(STAR):
        return TName(unstarred(expr.qualified) or expr.qualified)
    if isinstance(expr, TSubscript):
        return TSubscript(
            _unstarred_type(expr.base, unstarred),
            tuple(_unstarred_type(arg, unstarred) for arg in expr.args),
        )
    if isinstance(expr, TUnion):
        return TUnion(tuple(_unstarred_type(member, unstarred) for member in expr.members))
    if isinstance(expr, TCall) and expr.function.startswith(STAR):
        return TCall(unstarred(expr.function) or expr.function, expr.strict)
    return expr


def _call_name(call: CallSite) -> str:
    """The name a call spells: `register` in `tools.register(mcp)`, `Handler` in `Handler(mcp)`."""
    if call.function.kind is RefKind.METHOD:
        return call.function.method
    return call.function.target.rsplit(".", 1)[-1]


def _called_name(qualname: str) -> str:
    """The name a call of this function spells: the class for a constructor."""
    parts = qualname.split(".")
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]
