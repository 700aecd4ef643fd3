"""Server resolution: the framework of the server a registration is on, whether it was made
here, by a factory, passed in by callers or annotated; where the fix can make it guarded; and
which servers `guard()` or `install()` guard."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from mcp_codemod.analysis.facades import FACADE_CLASSES
from mcp_codemod.analysis.facts import ModuleFacts, ServerKind, ServerRef, ServerSwap
from mcp_codemod.analysis.frameworks import (
    NOT_SERVERS,
    SERVER_CLASSES,
    Framework,
    is_guard,
    is_install,
    runtime_name,
)
from mcp_codemod.analysis.link.names import MAX_HOPS, ProjectNames, called_name
from mcp_codemod.analysis.scan.scope import OTHER_BINDING, STAR
from mcp_codemod.analysis.subjects import ResolvedServer


class ServerResolver:
    def __init__(self, names: ProjectNames, runtime_copy: str | None) -> None:
        self.names = names
        self.runtime_copy = runtime_copy  # the `runtime-module` setting
        self.passed_servers: dict[tuple[str, str, tuple[int, str]], ResolvedServer] = {}
        # The frameworks of each class name as a module refers to it (`class_frameworks`).
        self.classes_of: dict[tuple[str, str], list[tuple[Framework, ServerSwap | None]]] = {}
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
        if ref.argument is not None and ref.qualified not in NOT_SERVERS:
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
        classes = self.server_classes(ref, module)
        if not classes and ref.kind is ServerKind.CONSTRUCT:
            factory = self.names.follow(ref.qualified, module, lambda m, name: name in m.functions)
            if factory is not None:
                owner, name = factory
                for returned in owner.functions[name].returns:
                    server = self.server(owner, returned, hops + 1)
                    if server.framework is not None:
                        return server
        if not classes:
            kind = "made by" if ref.kind is ServerKind.CONSTRUCT else "annotated as"
            return ResolvedServer(None, f"{kind} {ref.qualified}")
        alternatives = (
            [self.server(module, other, hops + 1) for other in ref.alternatives]
            if ref.kind is ServerKind.CONSTRUCT
            else []
        )
        frameworks = [framework for framework, _ in classes]
        for other in alternatives:
            frameworks.extend(other.frameworks or filter(None, (other.framework,)))
        if guarded:
            frameworks = [framework.guarded for framework in frameworks]
        frameworks = list(dict.fromkeys(frameworks))
        framework = _judged_by(frameworks)
        # One class, bound once, and no other branch's construction: the guarded class can
        # take its place. Otherwise the class is chosen at run time, and the guarded class of
        # one major would not import under the other: the construction is wrapped in `guard()`.
        chosen = (
            len(frameworks) > 1
            or len(classes) > 1
            or bool(ref.class_choices)
            or any(other.class_choices for other in ref.alternatives)
        )
        pre_parses = framework in _UNGUARDED
        if ref.kind is ServerKind.ANNOTATED:
            # Typed as a server class: the construction is out of sight, but a project subclass
            # can still be given the guarded base, which guards every instance.
            swap = classes[0][1] if pre_parses and not chosen else None
            return ResolvedServer(
                framework,
                "an instance of "
                + " or ".join(c for c in (*ref.class_choices, ref.qualified) if c != OTHER_BINDING),
                ref.strict_input_validation,
                None,
                swap,
                frameworks=tuple(frameworks) if len(frameworks) > 1 else (),
            )
        swap = None
        also_swaps: tuple[ServerSwap, ...] = ()
        if pre_parses and chosen:
            swap = self.wrap(module, ref, framework)
            also_swaps = tuple(
                wrap
                for other, resolved in zip(ref.alternatives, alternatives, strict=True)
                if resolved.framework in _UNGUARDED
                and (wrap := self.wrap(module, other, resolved.framework))
            )
        elif pre_parses and ref.class_span is not None:
            swap = classes[0][1] or ServerSwap(module.path, ref.class_span, framework)
            also_swaps = self.alternative_swaps(module, ref, hops)
        return ResolvedServer(
            framework,
            f"{ref.qualified.rsplit('.', 1)[-1]}(...)",
            ref.strict_input_validation,
            (module.module, ref.line),
            swap,
            also_swaps=also_swaps,
            frameworks=tuple(frameworks) if len(frameworks) > 1 else (),
        )

    def wrap(self, module: ModuleFacts, ref: ServerRef, framework: Framework) -> ServerSwap | None:
        """The fix that passes a construction through `guard()`, where it can be seen whole."""
        if ref.call_span is None or ref.guarded_by:
            return None
        return ServerSwap(module.path, ref.call_span, framework, wrap=True)

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

    def server_classes(
        self, ref: ServerRef, near: ModuleFacts
    ) -> list[tuple[Framework, ServerSwap | None]]:
        """Each framework an instance of the reference's class can be of, with the base to
        rename for a project subclass: every class its name is bound to in some branch."""
        found: dict[Framework, ServerSwap | None] = {}
        for qualified in (*ref.class_choices, ref.qualified):
            for framework, base in self.class_frameworks(qualified, near, 0):
                found.setdefault(framework, base)
        return list(found.items())

    def class_frameworks(
        self, qualified: str, near: ModuleFacts, hops: int
    ) -> list[tuple[Framework, ServerSwap | None]]:
        """The frameworks of a class by qualified name: a framework's server class (unless a
        module of the project has that name: then what it binds there too, as it shadows the
        framework where it runs), a project subclass of one, or a name another module re-exports,
        through every branch of that module that binds it."""
        if qualified == OTHER_BINDING or hops > MAX_HOPS:
            return []
        key = (qualified, near.path)
        known_frameworks = self.classes_of.get(key)
        if known_frameworks is None:
            # Each (name, module) once: branches that re-export the same class meet again, and
            # a chain of them would otherwise be walked once per way through it.
            self.names.work.step()
            self.classes_of[key] = []  # a cycle of re-exports ends here
            known_frameworks = self.classes_of[key] = self.find_class_frameworks(
                qualified, near, hops
            )
        return known_frameworks

    def find_class_frameworks(
        self, qualified: str, near: ModuleFacts, hops: int
    ) -> list[tuple[Framework, ServerSwap | None]]:
        qualified = self.names.unstarred(qualified, near) or qualified
        known = SERVER_CLASSES.get(runtime_name(qualified, self.runtime_copy))
        module_name, _, name = qualified.rpartition(".")
        module = self.names.load(module_name, near) if module_name else None
        found: list[tuple[Framework, ServerSwap | None]] = []
        if known is not None:
            found.append((known, None))
            if (
                qualified.partition(".")[0] not in _FRAMEWORK_PACKAGES
                or module is None
                or _import_root(module) != _import_root(near)
            ):
                # The runtime's own classes, or the project's copy of them; or a framework's
                # class that no module beside the importing one shadows.
                return found
        if module is None:
            return found
        if name in module.classes:
            for base in module.classes[name]:
                for choice in (*base.choices, base.qualified):
                    for framework, swap in self.class_frameworks(choice, module, hops + 1):
                        direct = SERVER_CLASSES.get(runtime_name(choice, self.runtime_copy))
                        if swap is None and direct is framework and not base.choices:
                            swap = ServerSwap(module.path, base.span, framework)
                        found.append((framework, swap))
            return found
        if name in module.imports:
            for choice in (*module.import_alternatives.get(name, ()), module.imports[name]):
                found.extend(self.class_frameworks(choice, module, hops + 1))
        elif module.star_imports and not module_name.startswith(STAR):
            found.extend(self.class_frameworks(f"{STAR}{name}", module, hops + 1))
        return found

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


_UNGUARDED = (Framework.MCP1, Framework.MCP2)
# The packages whose server classes a module of the project can shadow (a `fastmcp.py` of its own).
_FRAMEWORK_PACKAGES = frozenset(("mcp", "fastmcp"))


def _judged_by(frameworks: Sequence[Framework]) -> Framework:
    """The framework the rules judge a server by: the first that pre-parses, else the first
    guarded one, else the first. When in doubt, a server counts as pre-parsing."""
    for wanted in (_UNGUARDED, (Framework.GUARDED_MCP1, Framework.GUARDED_MCP2)):
        for framework in frameworks:
            if framework in wanted:
                return framework
    return frameworks[0]


def _import_root(module: ModuleFacts) -> Path:
    """The directory a module is imported from (the one that holds its top-level package): a
    module of that name there shadows an installed package where the importing module runs."""
    path = Path(module.path)
    depth = module.module.count(".") + (path.name == "__init__.py")
    return path.parents[depth] if depth < len(path.parents) else path.parent
