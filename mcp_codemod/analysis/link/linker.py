"""Join the facts of many modules: which server each tool is registered on, which function it
runs, and what each parameter's annotation admits once aliases in any module are resolved."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple, TypeVar

from mcp_codemod.analysis.facades import Facade
from mcp_codemod.analysis.facts import (
    ExecFile,
    ExecText,
    Function,
    FunctionKind,
    FunctionRef,
    ModuleFacts,
    Registration,
    ServerKind,
    ServerRef,
    ServerSwap,
)
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.link.escapes import ServerEscapes
from mcp_codemod.analysis.link.framework_tools import framework_tools
from mcp_codemod.analysis.link.module_source import ModuleSource
from mcp_codemod.analysis.link.names import ProjectNames
from mcp_codemod.analysis.link.reach import Reached, ToolReach, UncheckedTool
from mcp_codemod.analysis.link.served import as_run
from mcp_codemod.analysis.link.server_resolution import ServerResolver
from mcp_codemod.analysis.link.tool_parameters import ToolParameters, arguments
from mcp_codemod.analysis.subjects import (
    LinkResult,
    RegisteredTool,
    ResolvedServer,
    ToolParameter,
    UncheckedRegistration,
)
from mcp_codemod.analysis.type_exprs import (
    type_names,
)
from mcp_codemod.analysis.unchecked import Unchecked


class Linker:
    def __init__(self, source: ModuleSource, runtime_copy: str | None = None) -> None:
        self.source = source
        self.runtime_copy = runtime_copy  # the `runtime-module` setting
        self.names = ProjectNames(source)
        self.servers = ServerResolver(self.names, runtime_copy)
        # The files the checked modules exec, by normalised path (`analysis/scan/exec_files.py`).
        self.executing: dict[str, tuple[ModuleFacts, ExecFile]] = {}
        self.escaping = ServerEscapes(source, self.names, self.server, runtime_copy)
        self.tool_parameters = ToolParameters(source, self.names, self.execs, runtime_copy)

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
        # And the modules the search for escaping servers asks about, near the end, one at a
        # time: of what the checked modules hand to an imported function.
        self.names.parse_ahead(
            (name, module) for module in modules for name in self.escaping.handed_names(module)
        )
        registrations = [
            (module, registration, self.server(module, registration.server))
            for module in modules
            for registration in module.registrations
            if not registration.if_server_class
            or self.servers.server_classes(registration.server, module)[0]
        ]
        unchecked_framework_tools = framework_tools(modules, self.servers.server)
        # Resolving servers loaded the modules that create them: their `guard()` calls count too.
        guarded = self.servers.guarded_origins(self.names.loaded())
        parameters: list[ToolParameter] = []
        registered: list[RegisteredTool] = []
        unchecked: list[UncheckedRegistration] = []
        # Each set of a framework's own tools counts as one registration; below, the tools a
        # helper or loop registers more than once are added.
        tools = len(registrations) + len(unchecked_framework_tools)
        for tool in unchecked_framework_tools:
            unchecked.append(replace(tool, server=as_run(tool.server, default, guarded)))
        # Made per run, not kept: it refers to this linker (no reference cycle, see checker).
        reach = ToolReach(self.names)
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
            if plan.unchecked is not None:
                unchecked.append(plan.unchecked)
                continue
            server, executor, exec_file = plan.server, plan.executor, plan.exec_file
            tools += len(plan.reached) - 1
            for tool in plan.reached:
                if isinstance(tool, UncheckedTool):
                    unchecked.append(
                        UncheckedRegistration(tool.path, tool.line, tool.reason, tool.kind, server)
                    )
                elif tool.library:
                    found = self.tool_parameters.library_parameters(
                        module, tool, registration, server, unchecked
                    )
                    parameters.extend(found)
                    function = replace(tool.function, position=registration.position)
                    registered.append(
                        self.tool_parameters.registered(module.path, function, registration, server)
                    )
                else:
                    named = registration
                    if tool.tool_name is not None:
                        named = replace(registration, tool_name=tool.tool_name)
                    found = self.tool_parameters.parameters(
                        tool.owner, tool.function, named, server, unchecked
                    )
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
                        self.tool_parameters.registered(
                            tool.owner.path, tool.function, named, server
                        )
                    )
        escaped = self.escaping.escapes(modules, guarded)
        tools += len(escaped)
        unchecked.extend(escaped)
        constructed = self.constructed(modules, guarded)
        stored = self.escaping.stores(guarded)
        tools += len(stored)
        unchecked.extend(stored)
        if constructed:
            package_of_module = {m.module: _package_of(m) for m in modules}
            package_of_path = {m.path: _package_of(m) for m in modules}
            unchecked = _tied(unchecked, constructed, package_of_module, package_of_path)
            guards = _ProjectGuards(constructed, package_of_module, package_of_path)
            parameters = [guards.swapped(p) for p in parameters]
            registered = [guards.swapped(t) for t in registered]
            unchecked = [guards.swapped(t) for t in unchecked]
        return LinkResult(
            tuple(parameters), tuple(unchecked), tools, tuple(registered), self.names.work.steps
        )

    def constructed(
        self, modules: list[ModuleFacts], guarded: set[tuple[str, int]] | bool
    ) -> dict[tuple[str, int], ResolvedServer]:
        """The pre-parsing servers, not guarded, that the checked modules build."""
        found = {}
        for module in modules:
            for ref in module.constructions:
                server = as_run(self.servers.server(module, ref), None, guarded)
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
        server = as_run(server, default, guarded)
        if server.framework is None:
            reason = (
                f"server `{registration.server_text}` ({server.description}): framework unknown"
            )
            line = registration.position.line
            unchecked = UncheckedRegistration(
                module.path, line, reason, Unchecked.UNKNOWN_FRAMEWORK, server
            )
            return _Plan(server, unchecked=unchecked)
        executor, exec_file = None, None
        if registration.server.kind is ServerKind.FREE:
            executor, exec_file = self.execs(module) or (None, None)
        if executor is not None and exec_file is not None and exec_file.text is ExecText.OTHER:
            reason = (
                f"{executor.path}:{exec_file.line} execs a text compiled under this file's "
                "name, not provably the file's"
            )
            line = registration.position.line
            unchecked = UncheckedRegistration(
                module.path, line, reason, Unchecked.EXEC_TEXT, server
            )
            return _Plan(server, unchecked=unchecked)
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


class _Plan(NamedTuple):
    server: ResolvedServer
    reached: tuple[Reached | UncheckedTool, ...] = ()
    executor: ModuleFacts | None = None
    exec_file: ExecFile | None = None
    unchecked: UncheckedRegistration | None = None  # why the registration's tools are not checked


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
    for parameter in arguments(function, facade):
        if parameter.alias is not None:
            names.append(parameter.alias)
        if parameter.annotation is not None:
            names.extend(type_names(parameter.annotation))
    return list(dict.fromkeys(names))


_NAMED_AT_MOST = 3  # servers a registration counted against each is listed with


def _package_of(module: ModuleFacts) -> tuple[str, str]:
    """Where a module is imported from and its top-level package ("" for a top-level module):
    the code a registration of unknown framework may share a server with."""
    path = Path(module.path)
    depth = module.module.count(".") + (path.name == "__init__.py")
    root = str(path.parents[depth]) if depth < len(path.parents) else ""
    return root, module.module.split(".")[0] if depth else ""


Key = TypeVar("Key")
_Subject = TypeVar("_Subject", ToolParameter, RegisteredTool, UncheckedRegistration)


def _built_in(
    constructed: dict[tuple[str, int], ResolvedServer],
    package_of_module: dict[str, tuple[str, str]],
    key: Callable[[tuple[str, str]], Key],
) -> dict[Key, list[ResolvedServer]]:
    """The servers the checked modules build, by `key` of their module's package (its import
    root and top-level package; ("", "") when not known)."""
    built: dict[Key, list[ResolvedServer]] = {}
    for (module, _line), server in constructed.items():
        built.setdefault(key(package_of_module.get(module, ("", ""))), []).append(server)
    return built


def _tied(
    unchecked: list[UncheckedRegistration],
    constructed: dict[tuple[str, int], ResolvedServer],
    package_of_module: dict[str, tuple[str, str]],
    package_of_path: dict[str, tuple[str, str]],
) -> list[UncheckedRegistration]:
    """A registration on a server of unknown framework, in a package that builds pre-parsing
    servers, counts against each of them: it may be on any. Servers of other packages beside
    it in the tree (a tree of several projects) are not its. A registration whose package is
    not known counts against every server the checked files build."""
    built_in = _built_in(constructed, package_of_module, lambda package: package)

    def tie(tool: UncheckedRegistration) -> UncheckedRegistration:
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
            kind=Unchecked.UNTIED,
            server=servers[0],
            also_on=tuple(servers[1:]),
        )

    return [tie(tool) for tool in unchecked]


class _ProjectGuards:
    """What the fix guards for a pre-parsing server whose construction is out of sight (an
    annotated parameter no caller passes a server to): every server of its framework that its
    project builds, the project being the directory its modules are imported from (a
    `server.py` beside a `tools/` package is one project; the distributions of a tree of several
    projects are not one). Each project's swaps are gathered once per framework and shared by
    its servers. A project that builds more than `_GUARDED_AT_MOST` such servers gets none: one
    fix naming them all, for each of its parameters, would cost the square of the tree. Its
    server is then to be guarded by hand, and until it is, a marker protects nothing
    (`ResolvedServer.guard_by_hand`; docs/analysis.md, "Out of sight")."""

    def __init__(
        self,
        constructed: dict[tuple[str, int], ResolvedServer],
        package_of_module: dict[str, tuple[str, str]],
        package_of_path: dict[str, tuple[str, str]],
    ) -> None:
        self.package_of_path = package_of_path
        self.everywhere = list(constructed.values())
        self.built_in = _built_in(constructed, package_of_module, lambda package: package[0])
        self.swaps: dict[tuple[str | None, Framework], tuple[ServerSwap, ...] | None] = {}

    def swapped(self, subject: _Subject) -> _Subject:
        """A parameter, tool or unchecked registration with its server `swappable`: the same
        object when that changes nothing (most servers are built in sight)."""
        server = self.swappable(subject.server, subject.path)
        return subject if server is subject.server else replace(subject, server=server)

    def swappable(self, server: ResolvedServer, path: str) -> ResolvedServer:
        """The server, with the swaps of the project of `path` when its construction is out of
        sight."""
        if (
            server.swap is not None
            or server.also_swaps
            or server.facade is not None
            or server.framework is None
            or not server.framework.pre_parses_json
        ):
            return server
        package = self.package_of_path.get(path)
        swaps = self.project_swaps(package[0] if package else None, server.framework)
        if swaps is None:
            return replace(server, guard_by_hand=True)
        return replace(server, also_swaps=swaps) if swaps else server

    def project_swaps(
        self, root: str | None, framework: Framework
    ) -> tuple[ServerSwap, ...] | None:
        """The swaps of the servers of `framework` a project builds (every checked module's,
        when the project is not known); None when they are more than one fix may guard."""
        key = (root, framework)
        if key not in self.swaps:
            servers = self.everywhere if root is None else self.built_in.get(root, [])
            swaps = tuple(
                swap
                for built in servers
                if built.runs_on(framework)
                for swap in (built.swap, *built.also_swaps)
                if swap is not None
            )
            self.swaps[key] = swaps if len(swaps) <= _GUARDED_AT_MOST else None
        return self.swaps[key]


# Servers one fix may guard for a server built out of sight (`_ProjectGuards`).
_GUARDED_AT_MOST = 64


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
