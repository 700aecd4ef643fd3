"""Names across the project's modules: the module that defines a qualified name (through
re-exports and star imports), aliases, classes and their fields, functions and methods, and the
calls of a function, indexed by the name they call."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from mcp_codemod.analysis.facts import (
    CallSite,
    Function,
    FunctionKind,
    FunctionRef,
    ModuleFacts,
    ServerKind,
)
from mcp_codemod.analysis.link.module_source import ModuleSource, NotParsed, ParsedOnly
from mcp_codemod.analysis.link.work import Work
from mcp_codemod.analysis.scan.scope import STAR
from mcp_codemod.analysis.shapes import KNOWN_NAMES
from mcp_codemod.analysis.type_exprs import TypeExpr, type_names

MAX_HOPS = 12  # re-export chains longer than this are not followed (and cycles end here)


class ProjectNames:
    def __init__(self, source: ModuleSource, work: Work | None = None) -> None:
        self.source = source
        self.work = work if work is not None else Work()
        self.calls_to_function: dict[
            tuple[str, str, bool], list[tuple[ModuleFacts, CallSite, bool]]
        ] = {}
        # Asked hundreds of thousands of times on a large tree: bound once.
        self.load = source.load
        self.loaded = source.loaded
        self.load_callers = source.load_callers
        # Calls that pass a possible server, by the name they call, so that finding the callers
        # of one registrar does not resolve every call of every module.
        self.calls_by_name: dict[str, list[tuple[ModuleFacts, CallSite]]] = {}
        self.indexed: set[str] = set()
        self.fully_indexed: tuple[ModuleFacts, ...] = ()  # the modules last indexed together
        # The function each call runs, by the call's identity: a registrar's calls are asked
        # about by every question that follows a value through them.
        self.callees: dict[int, tuple[ModuleFacts, Function, bool] | None] = {}
        # The calls of each name by the function they run (`calls_of`), and how many of the
        # name's calls are sorted so.
        self.calls_by_callee: dict[
            str, dict[tuple[str, str], list[tuple[ModuleFacts, CallSite, bool]]]
        ] = {}
        self.sorted_calls: dict[str, int] = {}

    def follow(
        self, qualified: str, near: ModuleFacts, has: Callable[[ModuleFacts, str], bool]
    ) -> tuple[ModuleFacts, str] | None:
        """The module of the project that defines `pkg.mod.name`, following re-exports
        (`from .server import mcp` in an `__init__`), and the name there."""
        for _ in range(MAX_HOPS):
            self.work.step()
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

    def preload(self, names: Iterable[tuple[str, ModuleFacts]]) -> None:
        """Load together the modules of these qualified names (the first module of each chain of
        re-exports), each as `near` imports it: what `follow` is about to be asked for."""
        self.source.preload(_modules_of(names))

    def parse_ahead(self, names: Iterable[tuple[str, ModuleFacts]]) -> None:
        """As `preload`, but each module is loaded only when `follow` asks for it: the modules
        loaded, and their order, are what they would be without it."""
        self.source.parse_ahead(_modules_of(names))

    def parse_types_ahead(self, names: Sequence[tuple[str, ModuleFacts]]) -> None:
        """Start parsing the modules that describing annotations which use these names will
        load first: followed through aliases (`Text = str | None`) and the fields and first
        bases of project classes over the modules parsed already, the first module of each way
        that is not."""
        parsed = ProjectNames(ParsedOnly(self.source, raising=True), work=self.work)
        followed: set[tuple[str, str]] = set()
        unparsed: list[tuple[str, ModuleFacts]] = []
        pending = list(names)
        while pending:
            qualified, near = pending.pop()
            key = (qualified, near.path)
            if key in followed or qualified in KNOWN_NAMES:
                continue
            followed.add(key)
            try:
                pending.extend(parsed.types_used_by(qualified, near))
            except NotParsed as missing:
                unparsed.append((missing.name, missing.near))
        self.source.parse_ahead(unparsed)

    def types_used_by(self, qualified: str, near: ModuleFacts) -> list[tuple[str, ModuleFacts]]:
        """The names that describing `qualified` goes on to (`shapes._Shaper.name`): the value's,
        if it is an alias, else the fields' of the project class, and its first base (whose
        fields `class_fields` adds)."""
        found = self.alias(qualified, near)
        if found is not None:
            module, name = found
            return [(used, module) for used in type_names(module.aliases[name].value)]
        found = self.follow(qualified, near, lambda module, name: name in module.classes)
        if found is None:
            return []
        module, name = found
        used = [
            (used, module)
            for field in module.class_fields.get(name, ())
            for used in type_names(field)
        ]
        bases = module.classes[name]
        if bases:
            used.append((bases[0].qualified, module))
        return used

    def unstarred(self, qualified: str, near: ModuleFacts, hops: int = 0) -> str | None:
        """The qualified name of `*name` (a name the module binds by no statement): what one of
        its star imports brings in, honouring `__all__`."""
        if not qualified.startswith(STAR):
            return qualified
        name = qualified[len(STAR) :]
        for star in near.star_imports:
            module = self.load(star, near)
            if module is None or hops > MAX_HOPS:
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
        self, module: ModuleFacts, function: str, decorations: bool = False
    ) -> list[tuple[ModuleFacts, CallSite, bool]]:
        """The calls of a function of `module` (by qualname), each with its caller and whether it
        passes `self` implicitly: in the loaded modules, else in the project's. A decorator
        factory's (`decorations`) in both: its decorations need not be where tools are."""
        key = (module.path, function, decorations)
        if key not in self.calls_to_function:
            if decorations:
                self.load_callers(called_name(function), module)
            found = self.calls_among(self.loaded(), module, function)
            if not found and not decorations:
                callers = self.load_callers(called_name(function), module)
                found = self.calls_among(callers, module, function)
            self.calls_to_function[key] = found
        return self.calls_to_function[key]

    def calls_among(
        self, callers: Sequence[ModuleFacts], module: ModuleFacts, function: str
    ) -> list[tuple[ModuleFacts, CallSite, bool]]:
        self.index_calls(callers)
        return self.calls_of(module, function)

    def calls_of(
        self, module: ModuleFacts, function: str
    ) -> list[tuple[ModuleFacts, CallSite, bool]]:
        """The calls indexed so far that run a function of `module` (by qualname), with their
        callers and whether they pass `self` implicitly. The calls of a name are sorted by
        callee once, as they are indexed: a project's many `send` methods are each asked
        about, and each asking would otherwise go over every call of every `send`."""
        name = called_name(function)
        calls = self.calls_by_name.get(name, ())
        by_callee = self.calls_by_callee.setdefault(name, {})
        with self.work.shared():  # once per call for the run, whichever question asks first
            for caller, call in calls[self.sorted_calls.get(name, 0) :]:
                self.work.step()
                callee = self.callee(caller, call)
                if callee is not None:
                    owner, target, bound = callee
                    by_callee.setdefault((owner.path, target.qualname), []).append(
                        (caller, call, bound)
                    )
        self.sorted_calls[name] = len(calls)
        return by_callee.get((module.path, function), [])

    def index_calls(self, callers: Sequence[ModuleFacts]) -> None:
        if callers is self.fully_indexed:  # `loaded()`'s tuple again: nothing loaded since
            return
        by_name, indexed = self.calls_by_name, self.indexed
        for caller in callers:
            if caller.path not in indexed:
                indexed.add(caller.path)
                with self.work.shared():
                    self.work.step(len(caller.calls))
                for call in caller.calls:
                    # The name the call spells, `register` in `tools.register(mcp)`, `Handler`
                    # in `Handler(mcp)`: worked out here, where every loaded module's calls pass.
                    function = call.function
                    if function.kind is FunctionKind.METHOD:
                        name = function.method
                    elif function.kind is FunctionKind.LOCAL:
                        name = function.qualname.rpartition(".")[2]
                    elif function.kind is FunctionKind.IMPORT:
                        name = function.qualified.rpartition(".")[2]
                    else:
                        continue  # `callee` follows no other kind
                    called = by_name.get(name)
                    if called is None:
                        by_name[name] = [(caller, call)]
                    else:
                        called.append((caller, call))
        if isinstance(callers, tuple):  # a tuple cannot change: met again, it holds nothing new
            self.fully_indexed = callers

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
        if ref.kind is FunctionKind.LOCAL:
            function = module.functions.get(ref.qualname)
            return (module, function) if function is not None else None
        if ref.kind is FunctionKind.IMPORT:
            found = self.follow(ref.qualified, module, lambda m, name: name in m.functions)
            if found is not None:
                owner, name = found
                return owner, owner.functions[name]
            return self.instance_method(module, ref.qualified)
        if ref.kind is FunctionKind.METHOD:
            return self.method(module, ref.instance_class, ref.method)
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

    def instance_method(
        self, module: ModuleFacts, qualified: str
    ) -> tuple[ModuleFacts, Function] | None:
        """`pkg.server.tools.reader`: a method of an instance another module makes at module
        level (`tools = ToolRegistry(mcp)`) and this one imports."""
        instance, _, method = qualified.rpartition(".")
        if not instance:
            return None
        found = self.follow(instance, module, lambda m, name: name in m.servers)
        if found is None:
            return None
        owner, name = found
        made = owner.servers[name]
        if made.kind not in (ServerKind.CONSTRUCT, ServerKind.ANNOTATED):
            return None
        return self.method(owner, made.qualified, method)

    def project_classes(
        self, qualified: str, near: ModuleFacts
    ) -> Iterator[tuple[ModuleFacts, str]]:
        """A class of the project and, up the chain of first bases, those of its ancestors that
        are project classes too: each with the module that defines it."""
        for _ in range(MAX_HOPS):
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
        key = id(call)
        if key not in self.callees:
            self.callees[key] = self.find_callee(caller, call)
        return self.callees[key]

    def find_callee(
        self, caller: ModuleFacts, call: CallSite
    ) -> tuple[ModuleFacts, Function, bool] | None:
        found = self.function(caller, call.function)
        if found is not None:
            # An imported instance's method (`tools.reader`) is bound all the same.
            bound = call.bound or (
                call.function.kind is FunctionKind.IMPORT and "." in found[1].qualname
            )
            return found[0], found[1], bound
        if call.function.kind in (FunctionKind.LOCAL, FunctionKind.IMPORT):
            qualified = call.function.qualified
            if call.function.kind is FunctionKind.LOCAL:
                qualified = f"{caller.module}.{call.function.qualname}"
            constructor = self.method(caller, qualified, "__init__")
            if constructor is not None:
                return constructor[0], constructor[1], True
        return None


def _modules_of(names: Iterable[tuple[str, ModuleFacts]]) -> list[tuple[str, ModuleFacts]]:
    """The first module of each qualified name's chain of re-exports, with the module importing
    it: each once per importing module (the same types recur in many tools), in the order first
    asked, the order in which they are parsed and kept."""
    modules: dict[tuple[str, str], ModuleFacts] = {}
    for qualified, near in names:
        if not qualified.startswith(STAR):
            module = qualified.rpartition(".")[0]
            if module and (module, near.path) not in modules:
                modules[module, near.path] = near
    return [(module, near) for (module, _), near in modules.items()]


def called_name(qualname: str) -> str:
    """The name a call of this function spells: the class for a constructor."""
    parts = qualname.split(".")
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]
