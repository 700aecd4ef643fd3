"""Join the facts of many modules: which server each tool is registered on, which function it
runs, and what each parameter's annotation admits once aliases in any module are resolved."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from mcp_codemod.analysis.facades import FACADE_CLASSES, SERVER_MAKERS, Facade
from mcp_codemod.analysis.facts import (
    CallSite,
    ExecFile,
    ExecText,
    Function,
    FunctionKind,
    FunctionRef,
    ModuleFacts,
    Parameter,
    Registration,
    ServerKind,
    ServerRef,
    ServerSwap,
)
from mcp_codemod.analysis.frameworks import SERVER_CLASSES, Framework, runtime_name
from mcp_codemod.analysis.link.framework_tools import framework_tools
from mcp_codemod.analysis.link.names import (
    MAX_HOPS,
    CallerLoader,
    ModuleLoader,
    ModulePreloader,
    NotParsed,
    ProjectNames,
)
from mcp_codemod.analysis.link.reach import LibraryLoader, Reached, ToolReach, Unreached
from mcp_codemod.analysis.link.server_resolution import ServerResolver
from mcp_codemod.analysis.link.work import OverBudget
from mcp_codemod.analysis.scan.scope import STAR
from mcp_codemod.analysis.shape_questions import Text, text_treatment, unknown_reason
from mcp_codemod.analysis.shapes import MAX_ALIAS_DEPTH, AliasTooDeep, Kind, Shape, shape_of
from mcp_codemod.analysis.subjects import (
    LinkResult,
    RegisteredTool,
    ResolvedServer,
    ToolParameter,
    UnresolvedTool,
)
from mcp_codemod.analysis.type_exprs import (
    TCall,
    TName,
    TSubscript,
    TUnion,
    TypeExpr,
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
        # The files the checked modules exec, by normalised path (`analysis/scan/exec_files.py`).
        self.executing: dict[str, tuple[ModuleFacts, ExecFile]] = {}
        # What each annotation admits, per module: the same few (`str | None`) recur in most
        # tools. An answer depends only on the names the module sees, which loading more
        # modules does not change; an annotation too deep to follow is never kept.
        self.shaped: dict[tuple[str, TypeExpr | None], Shape] = {}
        # What each stored reference is (`stored_server`), once per run.
        self.stored: dict[tuple[str, ServerRef], ResolvedServer | None] = {}
        self.over_budget: set[tuple[str, ServerRef]] = set()

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
        registered: list[RegisteredTool] = []
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
        described: list[tuple[str, ModuleFacts]] = []  # of the parameters a facade leaves
        for plan in planned:
            facade = plan.server.facade
            for tool in plan.reached:
                if isinstance(tool, Reached):
                    names = _annotation_names(tool.function)
                    annotated.extend((name, tool.owner) for name in names)
                    if facade is not None:
                        names = _annotation_names(tool.function, facade)
                    described.extend((name, tool.owner) for name in names)
        self.names.preload(annotated)
        # Then the modules of the aliases and classes they name, parsed by the workers while the
        # first tools' parameters are described.
        self.names.parse_types_ahead(described)
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
                    found = self.library_parameters(module, tool, registration, server, unresolved)
                    parameters.extend(found)
                    function = replace(tool.function, position=registration.position)
                    registered.append(self.registered(module.path, function, registration, server))
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
                    registered.append(
                        self.registered(tool.owner.path, tool.function, named, server)
                    )
        escaped = self.escapes(modules, guarded)
        tools += len(escaped)
        unresolved.extend(escaped)
        constructed = self.constructed(modules, guarded)
        stored = self.stores(guarded)
        tools += len(stored)
        unresolved.extend(stored)
        if constructed:
            unresolved = _tied(
                unresolved,
                constructed,
                {m.module: _package_of(m) for m in modules},
                {m.path: _package_of(m) for m in modules},
            )
            parameters = [replace(p, server=_swappable(p.server, constructed)) for p in parameters]
            registered = [replace(t, server=_swappable(t.server, constructed)) for t in registered]
            unresolved = [replace(t, server=_swappable(t.server, constructed)) for t in unresolved]
        return LinkResult(
            tuple(parameters), tuple(unresolved), tools, tuple(registered), self.names.work.steps
        )

    def escapes(
        self, modules: list[ModuleFacts], guarded: set[tuple[str, int]] | bool
    ) -> list[UnresolvedTool]:
        """Each use of a server that hands its registration on to code not followed, as an
        unseen registration of that server (when its framework is known)."""
        found = []
        for module in modules:
            uses = [
                (line, ref, f"{use}: what is registered through it cannot be seen", False)
                for line, ref, use in module.escapes
            ]
            uses.extend((line, ref, reason, True) for line, ref, reason in self.handed_on(module))
            for line, ref, reason, handed_on in uses:
                server = self.server(module, ref)
                if server.framework not in _SDK_SERVERS:
                    continue  # a server that does not pre-parse cannot mangle them
                if handed_on and server.facade is not None:
                    continue  # an application object imported from where it is built
                served = _served(server, None, guarded)
                found.append(UnresolvedTool(module.path, line, reason, Unseen.UNKNOWN_USE, served))
        return found

    def stores(self, guarded: set[tuple[str, int]] | bool) -> list[UnresolvedTool]:
        """Each server stored where the analysis does not follow it (`ModuleFacts.stores`), in
        any module read: the checked ones, and those their servers were followed into (a
        helper `remember(server)` that keeps it says no registration word). Also a server
        given to a method the analysis cannot find, of an object whose class is outside the
        project (`PluginRegistry().register(mcp)`) or does not define it, or to a class of
        the project without a constructor of its own (a dataclass, a model, a class whose
        constructor a library defines).

        Most of what is stored is no server, and finding out by reading more modules would
        cost more than the rest of the run: what is stored, and what a call is, are resolved
        over the modules read only (`reader`)."""
        found: list[UnresolvedTool] = []
        loaded = self.names.loaded()
        read = frozenset(module.module for module in loaded)
        reader = self.reader()
        known: dict[tuple[str, ServerRef], ResolvedServer | None] = {}

        def sdk_server(module: ModuleFacts, ref: ServerRef) -> ResolvedServer | None:
            # The same names are stored and passed many times: each is resolved once.
            key = (module.path, ref)
            if key not in known:
                server = self.stored_server(reader, module, ref, read)
                # An application object (`MCPApp`) is no server: its framework's own tools
                # are counted where it is built (analysis/link/framework_tools.py). What could not
                # be followed within its budget may be any server.
                if key not in self.over_budget and (
                    server is None or server.framework not in _SDK_SERVERS or server.facade
                ):
                    server = None
                known[key] = server
            return known[key]

        def stored(path: str, line: int, use: str, server: ResolvedServer) -> UnresolvedTool:
            if server.framework is None:
                reason = (
                    f"what is {use} could not be followed within the analysis's budget of "
                    f"{self.names.work.budget:,} steps: if it is a server, what is registered through "
                    "it cannot be seen"
                )
                return UnresolvedTool(path, line, reason, Unseen.OVER_BUDGET, server)
            reason = (
                f"the server is {use}, which the analysis does not follow: what is registered "
                "through it cannot be seen"
            )
            served = _served(server, None, guarded)
            return UnresolvedTool(path, line, reason, Unseen.UNKNOWN_USE, served)

        for module in loaded:
            for line, ref, use in module.stores:
                server = sdk_server(module, ref)
                if server is not None:
                    found.append(stored(module.path, line, use, server))
            for call in module.calls:
                kind = call.function.kind
                if call.decorates is not None or kind not in (
                    FunctionKind.METHOD,
                    FunctionKind.IMPORT,
                ):
                    continue
                # Asked first: finding the callee costs more than resolving what it is given.
                given = [
                    server
                    for ref in self.servers_given(call)
                    if (server := sdk_server(module, ref)) is not None
                ]
                if not given or reader.names.callee(module, call) is not None:
                    continue
                called = call.function
                if kind is FunctionKind.METHOD:
                    use = f"given to `{called.instance_class}.{called.method}`"
                elif self.in_project(called.qualified, module) and (
                    next(reader.names.project_classes(called.qualified, module), None) is not None
                ):
                    use = f"stored in an instance of `{called.qualified}`"
                else:
                    continue  # outside the project: `handed_on`'s
                found.extend(stored(module.path, call.line, use, server) for server in given)
        return found

    def reader(self) -> ServerResolver:
        """A server resolution over the modules read (or parsed ahead) only: a module it would
        have to read is taken for one outside the project, and no caller is searched for."""
        load_parsed = self.names.load_parsed
        if load_parsed is None:
            return self.servers

        def read_only(name: str, near: ModuleFacts) -> ModuleFacts | None:
            try:
                return load_parsed(name, near)
            except NotParsed:
                return None

        names = ProjectNames(
            read_only, self.names.loaded, lambda name, near: [], work=self.names.work
        )
        return ServerResolver(names, self.runtime_copy)

    def stored_server(
        self,
        reader: ServerResolver,
        module: ModuleFacts,
        ref: ServerRef,
        read: frozenset[str],
    ) -> ResolvedServer | None:
        """The server a stored reference is, as far as the modules read tell: a server class,
        or a name of a module read (every module that makes a server is read); for a
        parameter, what a caller among the modules read passes (its own parameter in turn:
        `keep(server)` calling `remember(server)`), else the server class its annotation names
        (`server: FastMCP`).

        The parameters are searched once each, however many ways lead to them (a method that
        retries by calling itself with what it stores); a search over its budget
        (`analysis/link/work.py`) is a server of unknown framework."""
        key = (module.path, ref)
        if key in self.stored:
            return self.stored[key]
        searched: set[tuple[str, ServerRef]] = set()
        try:
            with self.names.work.question():
                found = self.search_stored(reader, module, ref, read, searched)
        except OverBudget:
            self.over_budget.add(key)
            found = ResolvedServer(None, "followed further than the analysis's budget")
        if found is None:
            # Nothing the search went through reaches a server: each of them is answered too.
            self.stored.update(dict.fromkeys(searched))
        self.stored[key] = found
        return found

    def search_stored(
        self,
        reader: ServerResolver,
        module: ModuleFacts,
        ref: ServerRef,
        read: frozenset[str],
        searched: set[tuple[str, ServerRef]],
    ) -> ResolvedServer | None:
        key = (module.path, ref)
        if key in self.stored:
            return self.stored[key]
        if key in searched:
            return None  # on the way here already, or found to reach no server
        searched.add(key)
        self.names.work.step()
        if ref.argument is None:
            return reader.server(module, ref) if self.named_in(ref, read) else None

        def followed(passed: ServerRef) -> bool:
            return passed.argument is not None or self.named_in(passed, read)

        for caller, passed in reader.passed_by(
            self.names.loaded(), module, ref.function, ref.argument, followed
        ):
            if followed(passed):
                server = self.search_stored(reader, caller, passed, read, searched)
                if server is not None and server.framework is not None:
                    self.stored[key] = server  # every way here reaches it
                    return server
        if ref.kind is ServerKind.ANNOTATED and runtime_name(ref.qualified, self.runtime_copy) in (
            SERVER_CLASSES
        ):
            return reader.server(module, replace(ref, function="", argument=None))
        return None

    def named_in(self, ref: ServerRef, read: frozenset[str]) -> bool:
        """Whether a reference names a server class, or something of a module read."""
        target = runtime_name(ref.qualified, self.runtime_copy)
        return target in SERVER_CLASSES or target.rpartition(".")[0] in read

    def handed_on(self, module: ModuleFacts) -> Iterator[tuple[int, ServerRef, str]]:
        """A server given to a function outside the project (neither the standard library's
        nor an application object's): it may register tools on it."""
        for call in module.calls:
            if call.decorates is not None or call.function.kind is not FunctionKind.IMPORT:
                continue
            called = call.function.qualified
            servers = self.servers_given(call)
            if not servers or self.names.callee(module, call) is not None:
                continue
            if self.in_project(called, module):
                continue  # its own registrations are the project's, found where they are
            reason = (
                f"the server is given to `{called}`, which the analysis does not follow: "
                "what it registers cannot be seen"
            )
            for ref in servers:
                yield call.line, ref, reason

    def servers_given(self, call: CallSite) -> list[ServerRef]:
        """The servers a call passes, unless its callee is the standard library's, an
        application object's or an MCP client's."""
        function = call.function
        # A method's instance class stands for the callee (`registry.add(mcp)` on a `Registry`).
        target = (
            function.instance_class if function.kind is FunctionKind.METHOD else function.qualified
        )
        if (
            target.partition(".")[0] in _STANDARD_LIBRARY
            or target in _APPLICATION_CALLS
            or target.startswith(_CLIENTS)
        ):
            return []
        # An application object (`MCPApp`) is no server: its framework's own tools are
        # counted where it is built (analysis/link/framework_tools.py).
        return [
            ref
            for ref in (*call.arguments, *(ref for _, ref in call.keywords))
            if ref is not None and ref.kind in _NAMED_SERVERS and not ref.facade
        ]

    def in_project(self, qualified: str, near: ModuleFacts) -> bool:
        """Whether a qualified name is defined in the project: a class, a class's method, a
        module's function (any prefix of it a module of the project)."""
        parts = qualified.split(".")
        return any(
            self.names.load(".".join(parts[:end]), near) is not None
            for end in range(len(parts) - 1, 0, -1)
        )

    def constructed(
        self, modules: list[ModuleFacts], guarded: set[tuple[str, int]] | bool
    ) -> dict[tuple[str, int], ResolvedServer]:
        """The pre-parsing servers, not guarded, that the checked modules build."""
        found = {}
        for module in modules:
            for ref in module.constructions:
                server = _served(self.servers.server(module, ref), None, guarded)
                if (
                    server.framework is not None
                    and server.framework.pre_parses_json
                    and server.origin is not None
                    and server.facade is None
                ):
                    found.setdefault(server.origin, server)
        return found

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
        if registration.server.kind is ServerKind.FREE:
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
        executed = self.execs(module) if ref.kind is ServerKind.FREE else None
        if executed is not None:
            owner, _ = executed
            if ref.free_name in owner.servers:
                return self.servers.server(owner, owner.servers[ref.free_name])
            if ref.free_name in owner.imports:
                imported = ServerRef(ServerKind.IMPORT, qualified=owner.imports[ref.free_name])
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
        tool = _tool_name(registration, function)
        executed = self.execs(owner)
        executor = executed[0] if executed is not None else None
        result = []
        for parameter in _arguments(function, server.facade):
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
            shape = self.shaped.get(key)
            try:
                if shape is None:
                    shape = self.shaped[key] = shape_of(
                        annotation,
                        lambda name: self.names.alias_value(name, owner),
                        lambda name: self.names.class_fields(name, owner),
                        self.runtime_copy,
                        lambda name: self.class_or_library_alias(name, owner),
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
            if server.framework in _SDK_SERVERS and text_treatment(shape) is Text.UNKNOWN:
                # What the SDK does with its text is unknown: as unseen as a tool not found.
                unresolved.append(
                    UnresolvedTool(
                        owner.path,
                        parameter.position.line,
                        f"tool `{tool}`: `{parameter.name}: {parameter.annotation_text}` names "
                        f"{unknown_reason(shape)}",
                        Unseen.UNRESOLVED_ANNOTATION,
                        server,
                    )
                )
            result.append(ToolParameter(owner.path, tool, function, parameter, shape, server))
        return result

    def registered(
        self, path: str, function: Function, registration: Registration, server: ResolvedServer
    ) -> RegisteredTool:
        tool = _tool_name(registration, function)
        return RegisteredTool(path, tool, function, server, _arguments(function, server.facade))

    def class_or_library_alias(
        self, qualified: str, near: ModuleFacts, hops: int = 0
    ) -> Shape | tuple[TypeExpr, bool] | None:
        """What a class admits, of the project (an enum, a model without fields, a plain class)
        or of a library read from `sys.path`; or the value of a library's alias."""
        chain = list(self.names.project_classes(qualified, near))
        if chain:
            bases = [base.qualified for module, name in chain for base in module.classes[name]]
            hooks = any(_has_schema_hook(module, name) for module, name in chain)
            return self.class_admits(qualified, bases, hooks, chain[-1][0], hops)
        found = self.library_definition(qualified, near)
        if found is None:
            return None
        module, name = found
        if name in module.aliases:
            alias = module.aliases[name]
            return alias.value, alias.type_statement
        bases = [base.qualified for base in module.classes[name]]
        return self.class_admits(qualified, bases, _has_schema_hook(module, name), module, hops)

    def class_admits(
        self, qualified: str, bases: list[str], hooks: bool, near: ModuleFacts, hops: int
    ) -> Shape:
        if any(base in _ENUM_BASES for base in bases):
            if "builtins.str" in bases or "enum.StrEnum" in bases:
                # A member's text may be one the pre-parse decodes (`NULL = "null"`): the values
                # are not read.
                return _unknown(qualified, "an enum of texts whose values it does not read")
            return Shape(Kind.OTHER, source=qualified)
        if any(base in _MODEL_BASES for base in bases):
            return Shape(Kind.MODEL, source=qualified)
        if hooks:
            return _unknown(qualified, "a class with its own pydantic schema")
        if "builtins.str" in bases:
            return _unknown(qualified, "a subclass of str")
        for base in bases:
            if base in ("builtins.object", "typing.Generic") or hops >= _MAX_BASES:
                continue
            found = self.class_or_library_alias(base, near, hops + 1)
            if not isinstance(found, Shape) or found.kind is Kind.UNKNOWN:
                return _unknown(qualified, f"a class whose base `{base}` it cannot read")
            return replace(found, source=qualified)
        # A plain class: pydantic checks that the value is an instance, which no text is.
        return Shape(Kind.OTHER, source=qualified)

    def library_definition(
        self, qualified: str, near: ModuleFacts
    ) -> tuple[ModuleFacts, str] | None:
        """The module on `sys.path`, outside the project, that defines a class or an alias,
        following re-exports; its source is read, never imported."""
        if self.load_library is None or qualified.startswith("?"):
            return None
        qualified = self.names.unstarred(qualified, near) or qualified
        for _ in range(MAX_HOPS):
            module_name, _, name = qualified.rpartition(".")
            if not module_name or self.names.load(module_name, near) is not None:
                return None  # a module of the project: what it defines was asked already
            library = self.load_library(module_name)
            if library is None:
                return None
            if name in library.classes or name in library.aliases:
                return library, name
            if name not in library.imports:
                return None
            qualified = library.imports[name]
        return None

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
        # Its unchecked parameters are reported where the project registers it, too.
        unchecked: list[UnresolvedTool] = []
        found = self.parameters(tool.owner, tool.function, registration, server, unchecked)
        unresolved.extend(replace(u, path=module.path, line=at.line) for u in unchecked)
        return [
            replace(
                found,
                path=module.path,
                function=function,
                parameter=replace(found.parameter, position=at, site=None),
                library=tool.owner.path,
            )
            for found in found
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
    if ref.kind is FunctionKind.IMPORT:
        yield ref.qualified
    elif ref.kind is FunctionKind.METHOD:
        yield ref.instance_class
    elif ref.kind is FunctionKind.LOOP and ref.collection:
        yield ref.collection
    elif ref.kind is FunctionKind.WRAPPED:
        for candidate in ref.candidates:
            yield from _first_names(candidate)


def _annotation_names(function: Function, facade: Facade | None = None) -> list[str]:
    """The qualified names a function's parameter annotations use, each once: where its types
    are. With a facade, of the parameters it leaves to the tool's callers only."""
    names = []
    for parameter in _arguments(function, facade):
        if parameter.alias is not None:
            names.append(parameter.alias)
        if parameter.annotation is not None:
            names.extend(type_names(parameter.annotation))
    return list(dict.fromkeys(names))


def _tool_name(registration: Registration, function: Function) -> str:
    return registration.tool_name or function.qualname.rsplit(".", 1)[-1]


def _arguments(function: Function, facade: Facade | None) -> tuple[Parameter, ...]:
    """The parameters the SDK lists as the tool's arguments: a facade's framework fills some."""
    if facade is None:
        return function.parameters
    return tuple(p for p in function.parameters if facade.tool_parameter(p))


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
            frameworks=tuple(dict.fromkeys(f.guarded for f in server.frameworks)),
        )
    return server


_STANDARD_LIBRARY = frozenset((*sys.stdlib_module_names, "builtins"))
# The servers of the mcp SDK, guarded or not: what they receive unseen is counted on both, so the
# count does not change when the fix guards them.
_SDK_SERVERS = frozenset(
    (Framework.MCP1, Framework.MCP2, Framework.GUARDED_MCP1, Framework.GUARDED_MCP2)
)
_APPLICATION_CALLS = frozenset((*FACADE_CLASSES, *SERVER_MAKERS))
# Servers named by what makes them: a parameter's server is its callers' (whose own calls count).
_NAMED_SERVERS = (ServerKind.CONSTRUCT, ServerKind.IMPORT, ServerKind.ANNOTATED)
_ENUM_BASES = frozenset(
    f"enum.{name}" for name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag")
)
_MODEL_BASES = frozenset(
    (
        "pydantic.BaseModel",
        "pydantic.main.BaseModel",
        "typing.TypedDict",
        "typing_extensions.TypedDict",
        "typing.NamedTuple",
    )
)
_SCHEMA_HOOKS = ("__get_pydantic_core_schema__", "__get_validators__")
_MAX_BASES = 8  # classes up a chain of library bases that are read
_NAMED_AT_MOST = 3  # servers a registration counted against each is listed with
# The frameworks' clients: given a server, they connect to it (in memory) and register nothing.
_CLIENTS = ("mcp.client.", "mcp.shared.memory.", "fastmcp.client.", "fastmcp.Client")


def _unknown(qualified: str, why: str) -> Shape:
    return Shape(Kind.UNKNOWN, source=qualified, unresolved=f"`{qualified}`, {why}")


def _has_schema_hook(module: ModuleFacts, name: str) -> bool:
    return any(f"{name}.{hook}" in module.functions for hook in _SCHEMA_HOOKS)


def _package_of(module: ModuleFacts) -> tuple[str, str]:
    """Where a module is imported from and its top-level package ("" for a top-level module):
    the code a registration of unknown framework may share a server with."""
    path = Path(module.path)
    depth = module.module.count(".") + (path.name == "__init__.py")
    root = str(path.parents[depth]) if depth < len(path.parents) else ""
    return root, module.module.split(".")[0] if depth else ""


def _tied(
    unresolved: list[UnresolvedTool],
    constructed: dict[tuple[str, int], ResolvedServer],
    package_of_module: dict[str, tuple[str, str]],
    package_of_path: dict[str, tuple[str, str]],
) -> list[UnresolvedTool]:
    """A registration on a server of unknown framework, in a package that builds pre-parsing
    servers, counts against each of them: it may be on any. Servers of other packages beside
    it in the tree (a tree of several projects) are not its. A registration whose package is
    not known counts against every server the checked files build."""
    built_in: dict[tuple[str, str], list[ResolvedServer]] = {}
    for (module, _line), server in constructed.items():
        built_in.setdefault(package_of_module.get(module, ("", "")), []).append(server)

    def tie(tool: UnresolvedTool) -> UnresolvedTool:
        package = package_of_path.get(tool.path)
        servers = list(constructed.values()) if package is None else built_in.get(package, [])
        if tool.server.framework is not None or not servers:
            return tool
        if len(servers) <= _NAMED_AT_MOST:
            against = ", ".join(f"{s.description} at {s.origin[0]}:{s.origin[1]}" for s in servers)
        else:
            against = f"each of the {len(servers)} pre-parsing servers its package builds"
        return replace(
            tool,
            reason=f"{tool.reason}; counted against {against}",
            kind=Unseen.UNTIED,
            server=servers[0],
            also_on=tuple(servers[1:]),
        )

    return [tie(tool) for tool in unresolved]


def _swappable(
    server: ResolvedServer, constructed: dict[tuple[str, int], ResolvedServer]
) -> ResolvedServer:
    """A pre-parsing server whose construction is out of sight (an annotated parameter no
    caller passes a server to): the fix guards every server of its framework the tree builds."""
    if (
        server.swap is not None
        or server.also_swaps
        or server.facade is not None
        or server.framework is None
        or not server.framework.pre_parses_json
    ):
        return server
    swaps: tuple[ServerSwap, ...] = tuple(
        swap
        for built in constructed.values()
        if built.runs_on(server.framework)
        for swap in (built.swap, *built.also_swaps)
        if swap is not None
    )
    return replace(server, also_swaps=swaps) if swaps else server


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
