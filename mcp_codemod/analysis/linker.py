"""Join the facts of many modules: which server each tool is registered on, which function it
runs, and what each parameter's annotation admits once aliases in any module are resolved."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mcp_codemod.analysis.facts import Function, ModuleFacts, Registration
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.names import ModuleLoader, ProjectNames
from mcp_codemod.analysis.reach import LibraryLoader, Reached, ToolReach, Unreached
from mcp_codemod.analysis.scope import STAR
from mcp_codemod.analysis.servers import ServerResolver
from mcp_codemod.analysis.subjects import (
    AliasSite,
    LinkResult,
    ResolvedServer,
    ToolParameter,
    UnresolvedTool,
)
from mcp_codemod.analysis.types import (
    MAX_ALIAS_DEPTH,
    AliasTooDeep,
    TCall,
    TName,
    TSubscript,
    TUnion,
    TypeExpr,
    classify,
)
from mcp_codemod.analysis.unseen import Unseen


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
        self.runtime_copy = runtime_copy  # the `runtime-module` setting
        self.names = ProjectNames(load, loaded, load_callers)
        self.servers = ServerResolver(self.names, runtime_copy)

    # ---- entry -----------------------------------------------------------------------------
    def link(self, modules: list[ModuleFacts], default: Framework | None) -> LinkResult:
        registrations = [
            (module, registration, self.servers.server(module, registration.server))
            for module in modules
            for registration in module.registrations
        ]
        # Resolving servers loaded the modules that create them: their `guard()` calls count too.
        guarded = self.servers.guarded_origins(self.names.loaded())
        parameters: list[ToolParameter] = []
        unresolved: list[UnresolvedTool] = []
        tools = len(registrations)  # and those a helper or loop registers more than once
        # Made per run, not kept: it refers to this linker (no reference cycle, see checker).
        reach = ToolReach(self.names, self.load_library)
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
                    server.framework.guarded,
                    server.description,
                    server.strict_input_validation,
                    facade=server.facade,
                )
            reached = reach.tools(
                module,
                registration.function,
                registration.position.line,
                registration.tool_name_argument,
            )
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
                    named = registration
                    if tool.tool_name is not None:
                        named = replace(registration, tool_name=tool.tool_name)
                    parameters.extend(
                        self.parameters(tool.owner, tool.function, named, server, unresolved)
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
        facade = server.facade
        for parameter in function.parameters:
            if facade is not None and not facade.tool_parameter(parameter):
                continue
            alias = None
            if parameter.alias is not None:
                found = self.names.alias(parameter.alias, owner)
                if found is not None:
                    module, name = found
                    alias = AliasSite(module.path, module.aliases[name].site)
            annotation = parameter.annotation
            if owner.star_imports and annotation is not None:
                annotation = _unstarred_type(
                    annotation, lambda name: self.names.unstarred(name, owner)
                )
            try:
                facts = classify(
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
