"""Join the facts of many modules: which server each tool is registered on, which function it
runs, and what each parameter's annotation admits once aliases in any module are resolved."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import NamedTuple

from mcp_codemod.analysis.facades import Facade
from mcp_codemod.analysis.facts import (
    ExecFile,
    ExecText,
    Function,
    FunctionRef,
    ModuleFacts,
    RefKind,
    Registration,
    ServerRef,
)
from mcp_codemod.analysis.framework_tools import framework_tools
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.names import CallerLoader, ModuleLoader, ModulePreloader, ProjectNames
from mcp_codemod.analysis.reach import LibraryLoader, Reached, ToolReach, Unreached
from mcp_codemod.analysis.scope import STAR
from mcp_codemod.analysis.servers import ServerResolver
from mcp_codemod.analysis.subjects import (
    LinkResult,
    ResolvedServer,
    ToolParameter,
    UnresolvedTool,
)
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
    type_names,
)
from mcp_codemod.analysis.unseen import Unseen


class Linker:
    def __init__(
        self,
        load: ModuleLoader,
        loaded: Callable[[], Sequence[ModuleFacts]],
        load_callers: CallerLoader,
        load_library: LibraryLoader | None = None,
        runtime_copy: str | None = None,
        preload: ModulePreloader | None = None,
        parse_ahead: ModulePreloader | None = None,
        load_parsed: ModuleLoader | None = None,
    ) -> None:
        self.load_library = load_library
        self.runtime_copy = runtime_copy  # the `runtime-module` setting
        self.names = ProjectNames(load, loaded, load_callers, preload, parse_ahead, load_parsed)
        self.servers = ServerResolver(self.names, runtime_copy)
        # The files the checked modules exec, by normalised path (`analysis/exec_files.py`).
        self.executing: dict[str, tuple[ModuleFacts, ExecFile]] = {}
        # What each annotation admits, per module: the same few (`str | None`) recur in most
        # tools. An answer depends only on the names the module sees, which loading more
        # modules does not change; an annotation too deep to follow is never kept.
        self.classified: dict[tuple[str, TypeExpr | None], AnnotationFacts] = {}

    # ---- entry -----------------------------------------------------------------------------
    def link(self, modules: list[ModuleFacts], default: Framework | None) -> LinkResult:
        self.executing = _executing_modules(modules)
        # The modules the registrations' functions are imported from, parsed by the workers
        # while the servers are resolved and the tools reached, and loaded one by one as the
        # tools are reached: a search for a helper's callers looks among the modules loaded
        # before it.
        self.names.parse_ahead(
            (name, module)
            for module in modules
            for registration in module.registrations
            for name in _first_names(registration.function)
        )
        registrations = [
            (module, registration, self.server(module, registration.server))
            for module in modules
            for registration in module.registrations
        ]
        unseen_framework_tools = framework_tools(modules, self.servers.server)
        # Resolving servers loaded the modules that create them: their `guard()` calls count too.
        guarded = self.servers.guarded_origins(self.names.loaded())
        parameters: list[ToolParameter] = []
        unresolved: list[UnresolvedTool] = []
        # Each set of a framework's own tools counts as one registration; below, the tools a
        # helper or loop registers more than once are added.
        tools = len(registrations) + len(unseen_framework_tools)
        for tool in unseen_framework_tools:
            unresolved.append(replace(tool, server=_served(tool.server, default, guarded)))
        # Made per run, not kept: it refers to this linker (no reference cycle, see checker).
        reach = ToolReach(self.names, self.load_library)
        # What each registration registers first, then the modules its tools' annotations name,
        # loaded together (over the workers), then the tools' parameters.
        planned = [
            self.plan(reach, module, registration, server, default, guarded)
            for module, registration, server in registrations
        ]
        annotated: list[tuple[str, ModuleFacts]] = []
        classified: list[tuple[str, ModuleFacts]] = []  # of the parameters a facade leaves
        for plan in planned:
            facade = plan.server.facade
            for tool in plan.reached:
                if isinstance(tool, Reached):
                    names = _annotation_names(tool.function)
                    annotated.extend((name, tool.owner) for name in names)
                    if facade is not None:
                        names = _annotation_names(tool.function, facade)
                    classified.extend((name, tool.owner) for name in names)
        self.names.preload(annotated)
        # Then the modules of the aliases and classes they name, parsed by the workers while the
        # first tools' parameters are classified.
        self.names.parse_types_ahead(classified)
        for (module, registration, _), plan in zip(registrations, planned, strict=True):
            if plan.unseen is not None:
                unresolved.append(plan.unseen)
                continue
            server, executor, exec_file = plan.server, plan.executor, plan.exec_file
            tools += len(plan.reached) - 1
            for tool in plan.reached:
                if isinstance(tool, Unreached):
                    unresolved.append(
                        UnresolvedTool(tool.path, tool.line, tool.reason, tool.kind, server)
                    )
                elif tool.library:
                    parameters.extend(
                        self.library_parameters(module, tool, registration, server, unresolved)
                    )
                else:
                    named = registration
                    if tool.tool_name is not None:
                        named = replace(registration, tool_name=tool.tool_name)
                    found = self.parameters(tool.owner, tool.function, named, server, unresolved)
                    if (
                        executor is not None
                        and exec_file is not None
                        and exec_file.text is ExecText.GENERATED
                    ):
                        found = [
                            replace(p, generated_by=executor.path) if p.path == module.path else p
                            for p in found
                        ]
                    parameters.extend(found)
        return LinkResult(tuple(parameters), tuple(unresolved), tools)

    def plan(
        self,
        reach: ToolReach,
        module: ModuleFacts,
        registration: Registration,
        server: ResolvedServer,
        default: Framework | None,
        guarded: set[tuple[str, int]] | bool,
    ) -> _Plan:
        """The server a registration is on and the tools it registers, or why none is checked."""
        server = _served(server, default, guarded)
        if server.framework is None:
            reason = (
                f"server `{registration.server_text}` ({server.description}): framework unknown"
            )
            line = registration.position.line
            unseen = UnresolvedTool(module.path, line, reason, Unseen.UNKNOWN_FRAMEWORK, server)
            return _Plan(server, unseen=unseen)
        executor, exec_file = None, None
        if registration.server.kind is RefKind.FREE:
            executor, exec_file = self.execs(module) or (None, None)
        if executor is not None and exec_file is not None and exec_file.text is ExecText.OTHER:
            reason = (
                f"{executor.path}:{exec_file.line} execs a text compiled under this file's "
                "name, not provably the file's"
            )
            line = registration.position.line
            unseen = UnresolvedTool(module.path, line, reason, Unseen.EXEC_TEXT, server)
            return _Plan(server, unseen=unseen)
        reached = reach.tools(
            module,
            registration.function,
            registration.position.line,
            registration.tool_name_argument,
        )
        return _Plan(server, tuple(reached), executor, exec_file)

    def execs(self, module: ModuleFacts) -> tuple[ModuleFacts, ExecFile] | None:
        """The module that execs this one, and how."""
        return self.executing.get(os.path.normpath(module.path)) if self.executing else None

    def server(self, module: ModuleFacts, ref: ServerRef) -> ResolvedServer:
        """The server a registration is on; a name its file never binds is the name in the
        module that execs the file."""
        executed = self.execs(module) if ref.kind is RefKind.FREE else None
        if executed is not None:
            owner, _ = executed
            if ref.target in owner.servers:
                return self.servers.server(owner, owner.servers[ref.target])
            if ref.target in owner.imports:
                imported = ServerRef(RefKind.IMPORT, owner.imports[ref.target])
                return self.servers.server(owner, imported)
        return self.servers.server(module, ref)

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
        executed = self.execs(owner)
        executor = executed[0] if executed is not None else None
        result = []
        facade = server.facade
        for parameter in function.parameters:
            if facade is not None and not facade.tool_parameter(parameter):
                continue
            annotation = parameter.annotation
            if owner.star_imports and annotation is not None:
                annotation = _unstarred_type(
                    annotation, lambda name: self.names.unstarred(name, owner)
                )
            if executor is not None and annotation is not None:
                # `Text` that the exec'd file never binds is the exec'ing module's.
                annotation = _unstarred_type(
                    annotation, lambda name: _bound_in(executor, name), prefix="?"
                )
            key = (owner.path, annotation)
            facts = self.classified.get(key)
            try:
                if facts is None:
                    facts = self.classified[key] = classify(
                        annotation,
                        lambda name: self.names.alias_value(name, owner),
                        lambda name: self.names.class_fields(name, owner),
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
            result.append(ToolParameter(owner.path, tool, function, parameter, facts, server))
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
                library=tool.owner.path,
            )
            for found in self.parameters(
                tool.owner, tool.function, registration, server, unresolved
            )
        ]


class _Plan(NamedTuple):
    server: ResolvedServer
    reached: tuple[Reached | Unreached, ...] = ()
    executor: ModuleFacts | None = None
    exec_file: ExecFile | None = None
    unseen: UnresolvedTool | None = None  # why the registration's tools are not checked


def _first_names(ref: FunctionRef) -> Iterator[str]:
    """The qualified names whose modules reaching a function first loads: its factory's, its
    own, a wrapper's candidates'."""
    if ref.factory is not None:
        yield from _first_names(ref.factory)
    if ref.kind in (RefKind.IMPORT, RefKind.METHOD, RefKind.LOOP):
        yield ref.target
    elif ref.kind is RefKind.WRAPPED:
        for candidate in ref.candidates:
            yield from _first_names(candidate)


def _annotation_names(function: Function, facade: Facade | None = None) -> list[str]:
    """The qualified names a function's parameter annotations use, each once: where its types
    are. With a facade, of the parameters it leaves to the tool's callers only."""
    names = []
    for parameter in function.parameters:
        if facade is not None and not facade.tool_parameter(parameter):
            continue
        if parameter.alias is not None:
            names.append(parameter.alias)
        if parameter.annotation is not None:
            names.extend(type_names(parameter.annotation))
    return list(dict.fromkeys(names))


def _served(
    server: ResolvedServer, default: Framework | None, guarded: set[tuple[str, int]] | bool
) -> ResolvedServer:
    """The server as the run takes it: of the stated framework (`--framework`) when its own is
    unknown, and guarded when a `guard()` or `install()` covers it."""
    if server.framework is None and default is not None:
        server = ResolvedServer(default, server.description)
    if server.framework is not None and (guarded is True or server.origin in guarded):
        server = ResolvedServer(
            server.framework.guarded,
            server.description,
            server.strict_input_validation,
            facade=server.facade,
        )
    return server


def _executing_modules(modules: list[ModuleFacts]) -> dict[str, tuple[ModuleFacts, ExecFile]]:
    """The files that the modules exec, by normalised path, each with the module that execs it.
    A file that several modules exec runs in several namespaces: it is left out."""
    found: dict[str, tuple[ModuleFacts, ExecFile]] = {}
    shared = set()
    for module in modules:
        for exec_file in module.exec_files:
            path = os.path.normpath(os.path.join(os.path.dirname(module.path), exec_file.name))
            if path in found and found[path][0].path != module.path:
                shared.add(path)
            found[path] = (module, exec_file)
    return {path: execs for path, execs in found.items() if path not in shared}


def _bound_in(module: ModuleFacts, unbound: str) -> str | None:
    """The qualified name of `?name` in the module whose namespace binds it."""
    name = unbound[1:]
    if name in module.imports:
        return module.imports[name]
    if name in module.aliases or name in module.classes:
        return f"{module.module}.{name}"
    return None


def _unstarred_type(
    expr: TypeExpr, unstarred: Callable[[str], str | None], prefix: str = STAR
) -> TypeExpr:
    """The annotation with the names that star imports bring in (or another namespace binds:
    `prefix`) qualified."""
    if isinstance(expr, TName) and expr.qualified.startswith(prefix):
        return TName(unstarred(expr.qualified) or expr.qualified)
    if isinstance(expr, TSubscript):
        return TSubscript(
            _unstarred_type(expr.base, unstarred, prefix),
            tuple(_unstarred_type(arg, unstarred, prefix) for arg in expr.args),
        )
    if isinstance(expr, TUnion):
        return TUnion(tuple(_unstarred_type(member, unstarred, prefix) for member in expr.members))
    if isinstance(expr, TCall) and expr.function.startswith(prefix):
        return replace(expr, function=unstarred(expr.function) or expr.function)
    return expr
