"""Where a server leaves the code the analysis follows: a use it cannot see through
(`getattr(mcp, "tool")`, `mcp.tool` as a value), a call that hands it to code outside the
project, a store it does not follow. Each is an unchecked registration of that server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from mcp_codemod.analysis.facades import FACADE_CLASSES, SERVER_MAKERS
from mcp_codemod.analysis.facts import CallSite, FunctionKind, ModuleFacts, ServerKind, ServerRef
from mcp_codemod.analysis.frameworks import SERVER_CLASSES, runtime_name
from mcp_codemod.analysis.link.module_source import ModuleSource, ParsedOnly
from mcp_codemod.analysis.link.names import ProjectNames
from mcp_codemod.analysis.link.served import SDK_SERVERS, as_run
from mcp_codemod.analysis.link.server_resolution import ServerResolver
from mcp_codemod.analysis.link.work import OverBudget
from mcp_codemod.analysis.scan.scope import STANDARD_LIBRARY
from mcp_codemod.analysis.subjects import ResolvedServer, UncheckedRegistration
from mcp_codemod.analysis.unchecked import Unchecked


class ServerEscapes:
    def __init__(
        self,
        source: ModuleSource,
        names: ProjectNames,
        server: Callable[[ModuleFacts, ServerRef], ResolvedServer],
        runtime_copy: str | None,
    ) -> None:
        self.source = source
        self.names = names
        self.server = server  # the linker's: a name an exec'd file never binds is its execer's
        self.runtime_copy = runtime_copy
        # What each stored reference is (`stored_server`), once per run.
        self.stored: dict[tuple[str, ServerRef], ResolvedServer | None] = {}
        self.over_budget: set[tuple[str, ServerRef]] = set()

    def escapes(
        self, modules: list[ModuleFacts], guarded: set[tuple[str, int]] | bool
    ) -> list[UncheckedRegistration]:
        """Each use of a server that hands its registration on to code not followed, as an
        unchecked registration of that server (when its framework is known)."""
        found = []
        reader = self.reader()
        for module in modules:
            uses = [
                (line, ref, f"{use}: what is registered through it cannot be seen", False)
                for line, ref, use in module.escapes
            ]
            uses.extend(
                (line, ref, reason, True) for line, ref, reason in self.handed_on(module, reader)
            )
            for line, ref, reason, handed_on in uses:
                server = self.server(module, ref)
                if server.framework not in SDK_SERVERS:
                    continue  # a server that does not pre-parse cannot mangle them
                if handed_on and server.facade is not None:
                    continue  # an application object imported from where it is built
                served = as_run(server, None, guarded)
                found.append(
                    UncheckedRegistration(module.path, line, reason, Unchecked.UNKNOWN_USE, served)
                )
        return found

    def stores(self, guarded: set[tuple[str, int]] | bool) -> list[UncheckedRegistration]:
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
        found: list[UncheckedRegistration] = []
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
                    server is None or server.framework not in SDK_SERVERS or server.facade
                ):
                    server = None
                known[key] = server
            return known[key]

        def stored(path: str, line: int, use: str, server: ResolvedServer) -> UncheckedRegistration:
            if server.framework is None:
                reason = (
                    f"what is {use} could not be followed within the analysis's budget of "
                    f"{self.names.work.budget:,} steps: if it is a server, what is registered through "
                    "it cannot be seen"
                )
                return UncheckedRegistration(path, line, reason, Unchecked.OVER_BUDGET, server)
            reason = (
                f"the server is {use}, which the analysis does not follow: what is registered "
                "through it cannot be seen"
            )
            served = as_run(server, None, guarded)
            return UncheckedRegistration(path, line, reason, Unchecked.UNKNOWN_USE, served)

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
        names = ProjectNames(ParsedOnly(self.source), work=self.names.work)
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

    def handed_on(
        self, module: ModuleFacts, reader: ServerResolver
    ) -> Iterator[tuple[int, ServerRef, str]]:
        """A server given to a function outside the project (neither the standard library's
        nor an application object's): it may register tools on it."""
        for call in module.calls:
            if call.decorates is not None or call.function.kind is not FunctionKind.IMPORT:
                continue
            called = call.function.qualified
            given = self.servers_given(call)
            # Asked in the order of their cost: a callee among the modules read (then the call
            # is followed where it goes), what is given (most of it is no pre-parsing server:
            # a request's context), and only then a callee whose module must be read.
            if not given or reader.names.callee(module, call) is not None:
                continue
            servers = [ref for ref in given if self.server(module, ref).framework in SDK_SERVERS]
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

    def handed_names(self, module: ModuleFacts) -> Iterator[str]:
        """The qualified names `handed_on` asks about first: what a module hands to an
        imported function that may be a server."""
        for call in module.calls:
            if call.decorates is None and call.function.kind is FunctionKind.IMPORT:
                yield from (ref.qualified for ref in self.servers_given(call))

    def servers_given(self, call: CallSite) -> list[ServerRef]:
        """The servers a call passes, unless its callee is the standard library's, an
        application object's or an MCP client's."""
        function = call.function
        # A method's instance class stands for the callee (`registry.add(mcp)` on a `Registry`).
        target = (
            function.instance_class if function.kind is FunctionKind.METHOD else function.qualified
        )
        if (
            target.partition(".")[0] in STANDARD_LIBRARY
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


_APPLICATION_CALLS = frozenset((*FACADE_CLASSES, *SERVER_MAKERS))
# Servers named by what makes them: a parameter's server is its callers' (whose own calls count).
_NAMED_SERVERS = (ServerKind.CONSTRUCT, ServerKind.IMPORT, ServerKind.ANNOTATED)
# The frameworks' clients: given a server, they connect to it (in memory) and register nothing.
_CLIENTS = ("mcp.client.", "mcp.shared.memory.", "fastmcp.client.", "fastmcp.Client")
