"""Server resolution: the framework of the server a registration is on, whether it was made
here, by a factory, passed in by callers or annotated; where the fix can make it guarded; and
which servers `guard()` or `install()` guard."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from mcp_codemod.analysis.facades import FACADE_CLASSES
from mcp_codemod.analysis.facts import ModuleFacts, ServerKind, ServerRef, ServerSwap
from mcp_codemod.analysis.frameworks import (
    SERVER_CLASSES,
    Framework,
    is_guard,
    is_install,
    runtime_name,
)
from mcp_codemod.analysis.names import MAX_HOPS, ProjectNames, called_name
from mcp_codemod.analysis.subjects import ResolvedServer


class ServerResolver:
    def __init__(self, names: ProjectNames, runtime_copy: str | None) -> None:
        self.names = names
        self.runtime_copy = runtime_copy  # the `runtime-module` setting
        self.passed_servers: dict[tuple[str, str, tuple[int, str]], ResolvedServer] = {}
        self.resolved: dict[tuple[str, ServerRef], ResolvedServer] = {}

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
        server = self.server_passed_by(self.names.loaded(), module, function, argument, hops)
        if server is None:
            # Only when none of the files given calls it: look for callers in the project.
            callers = self.names.load_callers(called_name(function), module)
            server = self.server_passed_by(callers, module, function, argument, hops)
        if server is None:
            return ResolvedServer(
                None, f"parameter `{argument[1]}` of {function}(): no caller passes a server"
            )
        return server

    def server_passed_by(
        self,
        callers: Sequence[ModuleFacts],
        module: ModuleFacts,
        function: str,
        argument: tuple[int, str],
        hops: int,
    ) -> ResolvedServer | None:
        for caller, passed in self.passed_by(callers, module, function, argument):
            server = self.server(caller, passed, hops + 1)
            if server.framework is not None:
                return server
        return None

    def passed_by(
        self,
        callers: Sequence[ModuleFacts],
        module: ModuleFacts,
        function: str,
        argument: tuple[int, str],
        wanted: Callable[[ServerRef], bool] | None = None,
    ) -> Iterator[tuple[ModuleFacts, ServerRef]]:
        """What each call of `function` among `callers` (and the calls indexed before) passes
        to its parameter `argument`; with `wanted`, only what may be what it wants."""
        index, name = argument
        self.names.index_calls(callers)
        for caller, call, bound in self.names.calls_of(module, function):
            self.names.work.step()
            if wanted is not None and not any(
                ref is not None and wanted(ref)
                for ref in (
                    dict(call.keywords).get(name),
                    *call.arguments[max(index - 1, 0) : index + 1],
                )
            ):
                continue
            passed = dict(call.keywords).get(name)
            position = index - 1 if bound else index
            if passed is None and 0 <= position < len(call.arguments):
                passed = call.arguments[position]
            if passed is not None:
                yield caller, passed

    # ---- servers ---------------------------------------------------------------------------
    def server(self, module: ModuleFacts, ref: ServerRef, hops: int = 0) -> ResolvedServer:
        """The server a reference is, once per reference: a registrar's server is asked about
        by each of its registrations, a factory's by each of its callers. A reference met again
        while its own answer is being found (a factory returning what it makes through itself)
        adds nothing: it is a server of unknown framework until the first answer is known."""
        key = (module.path, ref)
        found = self.resolved.get(key)
        if found is None:
            self.names.work.step()
            self.resolved[key] = ResolvedServer(None, "a server made through itself")
            found = self.resolved[key] = self.resolve(module, ref, hops)
        return found

    def resolve(self, module: ModuleFacts, ref: ServerRef, hops: int) -> ResolvedServer:
        if hops > MAX_HOPS:
            # Past the first hop: no FREE or UNKNOWN reference (registrations, guards and escapes
            # hold those), so the name it was followed by, "" for a parameter
            return ResolvedServer(None, ref.qualified)
        if ref.kind is ServerKind.IMPORT:
            found = self.names.follow(ref.qualified, module, lambda m, name: name in m.servers)
            if found is None:
                return ResolvedServer(None, f"imported from {ref.qualified}, outside the project")
            owner, name = found
            return self.server(owner, owner.servers[name], hops + 1)
        if ref.argument is not None:
            passed = self.passed_server(module, ref.function, ref.argument, hops)
            if passed.framework is not None or ref.kind is ServerKind.PARAMETER:
                return passed
        if ref.kind in (ServerKind.UNKNOWN, ServerKind.FREE):
            return ResolvedServer(None, "not resolvable statically")
        guarded = bool(ref.guarded_by) and is_guard(ref.guarded_by, self.runtime_copy)
        if ref.guarded_by and not guarded:
            # `x = lib.guard(FastMCP(...))`: what another `guard` returns is not guessed at.
            return ResolvedServer(None, f"returned by {ref.guarded_by}()")
        if ref.facade:
            facade = FACADE_CLASSES[ref.facade]
            if ref.qualified != ref.facade:
                # `MCPApp(mcp=server)`: the app's tools go to that server.
                server = self.server(module, replace(ref, facade=""), hops)
                return replace(server, facade=facade)
            framework = facade.framework
            return ResolvedServer(
                framework.guarded if guarded else framework,
                f"the {framework.title} that {facade.title} makes for "
                f"{ref.qualified.rsplit('.', 1)[-1]}(...)",
                origin=(module.module, ref.line),
                facade=facade,
            )
        resolved = self.server_class(ref.qualified, module)
        if resolved is None and ref.kind is ServerKind.CONSTRUCT:
            factory = self.names.follow(ref.qualified, module, lambda m, name: name in m.functions)
            if factory is not None:
                owner, name = factory
                for returned in owner.functions[name].returns:
                    server = self.server(owner, returned, hops + 1)
                    if server.framework is not None:
                        return server
        if resolved is None:
            kind = "made by" if ref.kind is ServerKind.CONSTRUCT else "annotated as"
            return ResolvedServer(None, f"{kind} {ref.qualified}")
        framework, base = resolved
        if guarded:
            framework = framework.guarded
        if ref.kind is ServerKind.ANNOTATED:
            # Typed as a server class: the construction is out of sight, but a project subclass
            # can still be given the guarded base, which guards every instance.
            swap = base if framework in (Framework.MCP1, Framework.MCP2) else None
            return ResolvedServer(
                framework,
                f"an instance of {ref.qualified}",
                ref.strict_input_validation,
                None,
                swap,
            )
        swap = None
        if framework in (Framework.MCP1, Framework.MCP2) and ref.class_span is not None:
            swap = base or ServerSwap(module.path, ref.class_span, framework)
        return ResolvedServer(
            framework,
            f"{ref.qualified.rsplit('.', 1)[-1]}(...)",
            ref.strict_input_validation,
            (module.module, ref.line),
            swap,
            also_swaps=self.alternative_swaps(module, ref, hops),
        )

    def alternative_swaps(
        self, module: ModuleFacts, ref: ServerRef, hops: int
    ) -> tuple[ServerSwap, ...]:
        """The swaps of the pre-parsing constructions another branch binds the same name to."""
        swaps = []
        for alternative in ref.alternatives:
            server = self.server(module, alternative, hops + 1)
            if server.framework is not None and server.framework.pre_parses_json and server.swap:
                swaps.append(server.swap)
        return tuple(swaps)

    def server_class(
        self, qualified: str, near: ModuleFacts
    ) -> tuple[Framework, ServerSwap | None] | None:
        """The framework of a server class, and for a project subclass, the base to rename."""
        qualified = self.names.unstarred(qualified, near) or qualified
        if runtime_name(qualified, self.runtime_copy) in SERVER_CLASSES:
            return SERVER_CLASSES[runtime_name(qualified, self.runtime_copy)], None
        for module, name in self.names.project_classes(qualified, near):
            for base in module.classes[name]:
                base_class = runtime_name(base.qualified, self.runtime_copy)
                if base_class in SERVER_CLASSES:
                    framework = SERVER_CLASSES[base_class]
                    return framework, ServerSwap(module.path, base.span, framework)
        return None

    def guarded_origins(self, modules: Sequence[ModuleFacts]) -> set[tuple[str, int]] | bool:
        """Servers passed to `guard()`; True when `install()` guards every server in the process."""
        copy = self.runtime_copy
        if any(is_install(name, copy) for module in modules for name in module.install_calls):
            return True
        origins = set()
        for module in modules:
            for name, ref in module.guard_calls:
                if not is_guard(name, copy):
                    continue
                origin = self.server(module, ref).origin
                if origin is not None:
                    origins.add(origin)
        return origins
