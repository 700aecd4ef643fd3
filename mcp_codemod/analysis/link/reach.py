"""Which functions a registration's tool reference reaches: through helpers that take the tool as
a parameter (`register_tool("a", a)`, decorator factories, registry methods), wrappers with more
than one argument, loops over collections of another module, star imports, and into libraries
whose source is installed. What cannot be followed exactly is unchecked, with the reason's kind."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from mcp_codemod.analysis.facts import (
    UNPACKED,
    CallSite,
    Function,
    FunctionKind,
    FunctionRef,
    ModuleFacts,
)
from mcp_codemod.analysis.frameworks import REGISTRATION_ATTRIBUTES
from mcp_codemod.analysis.link.names import ProjectNames
from mcp_codemod.analysis.link.work import OverBudget
from mcp_codemod.analysis.unchecked import Unchecked

"""Facts of a module found on `sys.path` outside the project, by its dotted name."""
T = TypeVar("T")
_MAX_HOPS = 12  # helper chains longer than this are not followed
# A reference to follow, where it is met: the module, the reference, the line its tools are
# reported at, and the helper parameter that names them.
ReachKey = tuple[str, FunctionRef, int, "tuple[int, str] | None"]


@dataclass(frozen=True)
class Reached:
    owner: ModuleFacts
    function: Function
    library: bool  # defined outside the project: its source was found on `sys.path`
    tool_name: str | None = None  # the name a helper's caller gives it


@dataclass(frozen=True)
class UncheckedTool:
    kind: Unchecked
    reason: str
    path: str
    line: int


class ToolReach:
    def __init__(self, names: ProjectNames) -> None:
        self.names = names
        self.generated: dict[str, set[tuple[str, str]]] = {}
        self.answers: dict[ReachKey, list[Reached | UncheckedTool]] = {}
        self.visited: set[ReachKey] = set()  # by the registration being followed
        self.incomplete = False  # whether the answer being found met a way back
        # The decorations of each decorator factory, by its module's path and qualname.
        self.decorated: dict[tuple[str, str], list[tuple[ModuleFacts, CallSite, bool, bool]]] = {}

    def tools(
        self,
        module: ModuleFacts,
        ref: FunctionRef,
        line: int,
        name_argument: tuple[int, str] | None = None,
    ) -> list[Reached | UncheckedTool]:
        """The tools a registration registers; `name_argument`: the helper parameter that names
        them, read from each call of the helper. A registration whose tools take more than its
        budget of work to find (`analysis/link/work.py`) is unchecked."""
        self.visited, self.incomplete = set(), False
        try:
            with self.names.work.question():
                found = self.resolve(module, ref, line, 0, name_argument)
        except OverBudget:
            reason = (
                f"`{_message_name(ref)}`: its tools could not be followed within the analysis's "
                f"budget of {self.names.work.budget:,} steps"
            )
            return [UncheckedTool(Unchecked.OVER_BUDGET, reason, module.path, line)]
        if not found and self.incomplete:
            # Only the helper itself passes the tool on (`register(fn, attempt + 1)`).
            reason = f"`{_message_name(ref)}`: only the helper that registers it passes it on"
            return [UncheckedTool(Unchecked.HELPER_PARAMETER, reason, module.path, line)]
        return found

    def resolve(
        self,
        module: ModuleFacts,
        ref: FunctionRef,
        line: int,
        hops: int,
        name_argument: tuple[int, str] | None = None,
    ) -> list[Reached | UncheckedTool]:
        """What a reference reaches, each way to it followed once per registration: a helper
        that calls itself (retrying with the function it was given) or its callers in turn
        adds nothing the first way did not find. An answer found without meeting such a way
        back holds for every registration, and is kept."""
        key = (module.path, ref, line, name_argument)
        if key in self.answers:
            return self.answers[key]
        if key in self.visited:
            self.incomplete = True  # its tools are found where it was first met
            return []
        self.visited.add(key)
        self.names.work.step()
        outer, self.incomplete = self.incomplete, False
        found = self.find(module, ref, line, hops, name_argument)
        if not self.incomplete:
            self.answers[key] = found
        self.incomplete = outer or self.incomplete
        return found

    def find(
        self,
        module: ModuleFacts,
        ref: FunctionRef,
        line: int,
        hops: int,
        name_argument: tuple[int, str] | None,
    ) -> list[Reached | UncheckedTool]:
        if hops > _MAX_HOPS:
            reason = f"`{_message_name(ref)}`: too many hops"
            return [UncheckedTool(Unchecked.NOT_FOUND, reason, module.path, line)]
        factory = ref.factory
        if factory is not None and self.generates_signature(module, factory):
            called = (
                factory.method if factory.kind is FunctionKind.METHOD else _message_name(factory)
            )
            reason = (
                f"`{_message_name(ref)}` is made by `{called}`, "
                "which gives it its signature at run time (`__signature__`)"
            )
            return [UncheckedTool(Unchecked.GENERATED_SIGNATURE, reason, module.path, line)]
        if ref.kind is FunctionKind.PARAMETER:
            return self.passed_functions(module, ref, line, hops, name_argument)
        if ref.kind is FunctionKind.WRAPPED:
            return self.wrapped(module, ref, line, hops, name_argument)
        if ref.kind is FunctionKind.LOOP:
            return self.loop(module, ref, line, hops)
        found = self.names.function(module, ref)
        if found is not None:
            owner, function = found
            if function.wraps is not None:
                # A `functools.wraps` wrapper: the SDK reads the wrapped function's signature.
                return self.resolve(owner, function.wraps, line, hops + 1, name_argument)
            return [self.checked(owner, function, False, line, module)]
        if ref.kind is FunctionKind.IMPORT:
            library = self.library_function(ref.qualified, module)
            if library is not None:
                owner, function = library
                return [self.checked(owner, function, True, line, module)]
            reason = f"tool function `{ref.qualified}` not found (its source is not installed)"
            return [UncheckedTool(Unchecked.THIRD_PARTY, reason, module.path, line)]
        reason = f"tool function `{_message_name(ref)}` not found"
        return [UncheckedTool(Unchecked.NOT_FOUND, reason, module.path, line)]

    def checked(
        self, owner: ModuleFacts, function: Function, library: bool, line: int, at: ModuleFacts
    ) -> Reached | UncheckedTool:
        """A function whose `__signature__` its own module, or the module that registers it,
        assigns is unchecked: the SDK reads that signature, not the `def`."""
        key = (owner.path, function.qualname)
        if key in self.generated_by(owner) or key in self.generated_by(at):
            reason = (
                f"`{function.qualname}` gets its signature at run time (`__signature__`, "
                "`__annotations__` or `__wrapped__` set after its `def`)"
            )
            return UncheckedTool(Unchecked.GENERATED_SIGNATURE, reason, at.path, line)
        return Reached(owner, function, library)

    def generates_signature(self, module: ModuleFacts, factory: FunctionRef) -> bool:
        """Whether the function called returns only functions (or None) whose `__signature__`
        it assigns."""
        found = self.names.function(module, factory)
        return found is not None and found[1].returns_signed_functions

    def generated_by(self, module: ModuleFacts) -> set[tuple[str, str]]:
        """The functions whose `__signature__` the module assigns, by module path and qualname."""
        if module.path not in self.generated:
            found = set()
            for ref in module.generated_signatures:
                function = self.names.function(module, ref)
                if function is not None:
                    found.add((function[0].path, function[1].qualname))
            self.generated[module.path] = found
        return self.generated[module.path]

    def wrapped(
        self,
        module: ModuleFacts,
        ref: FunctionRef,
        line: int,
        hops: int,
        name_argument: tuple[int, str] | None = None,
    ) -> list[Reached | UncheckedTool]:
        """`paginating(name, fn)`: the tool is whichever argument reaches a function."""
        found = [
            r
            for c in ref.candidates
            for r in self.resolve(module, c, line, hops + 1, name_argument)
        ]
        reached = [r for r in found if isinstance(r, Reached)]
        if reached:
            return reached
        # One registration, one unchecked tool: the most precise reason the arguments give.
        unchecked = [r for r in found if isinstance(r, UncheckedTool)]
        reason = f"no argument of `{ref.text}` is a function in sight"
        return unchecked[:1] or [UncheckedTool(Unchecked.NOT_FOUND, reason, module.path, line)]

    def loop(
        self, module: ModuleFacts, ref: FunctionRef, line: int, hops: int
    ) -> list[Reached | UncheckedTool]:
        """A loop over a collection another module defines as a literal."""
        found = None
        if ref.collection:
            found = self.names.follow(ref.collection, module, lambda m, name: name in m.collections)
        if found is None:
            collection = ref.collection or ref.text
            reason = f"the tool comes from a loop over `{collection}`, not a literal collection"
            return [UncheckedTool(Unchecked.LOOP_VARIABLE, reason, module.path, line)]
        owner, name = found
        reached = [
            tool
            for element in owner.collections[name]
            if element is not None
            for tool in self.resolve(owner, element, line, hops + 1)
        ]
        # An element that cannot be seen is reported at the loop's registration.
        return [
            replace(tool, path=module.path)
            if isinstance(tool, UncheckedTool) and tool.path == owner.path and tool.line == line
            else tool
            for tool in reached
        ]

    def passed_functions(
        self,
        module: ModuleFacts,
        ref: FunctionRef,
        line: int,
        hops: int,
        name_argument: tuple[int, str] | None = None,
    ) -> list[Reached | UncheckedTool]:
        """The functions that callers pass to a helper's parameter, and for a decorator that a
        factory returns (`def tool(**kw): def deco(fn): ...; return deco`), the functions that
        `@tool(...)` decorates."""
        assert ref.argument is not None
        index, name = ref.argument
        found: list[Reached | UncheckedTool] = []
        # A helper taking one argument may be a decorator (`@tools.register`), applied in files
        # with no registration word.
        helper = module.functions.get(ref.helper)
        decorator = helper is not None and len(helper.parameters) == 1
        calls = self.names.calls_to(module, ref.helper, decorations=decorator)
        # The functions the callers import, loaded together before each is followed.
        self.names.preload(
            (passed.qualified, caller)
            for caller, call, bound in calls
            if (passed := _passed(call, bound, index, name)) is not None
            and passed.kind is FunctionKind.IMPORT
        )
        for caller, call, bound in calls:
            passed = _passed(call, bound, index, name)
            if (
                passed is not None
                and passed.kind is FunctionKind.UNKNOWN
                and not (passed.factory and self.generates_signature(caller, passed.factory))
            ):
                reason = f"what is passed to {ref.helper}() as `{name}` cannot be followed"
                found.append(
                    UncheckedTool(Unchecked.HELPER_PARAMETER, reason, caller.path, call.line)
                )
            elif passed is not None:
                reached = self.resolve(caller, passed, call.line, hops + 1)
                tool_name = _passed_string(call, bound, *name_argument) if name_argument else None
                found.extend(_named(reached, tool_name))
        parent = ref.helper.rpartition(".")[0]
        factory = module.functions.get(parent)
        decorations: list[tuple[ModuleFacts, CallSite, bool, bool]] = []
        if (
            factory is not None
            and ref.helper in factory.returns_functions
            and index == 0
            # `@x.tool(...)` is a registration where it stands: a class's `tool()` method (the
            # framework's own, read when its source is in the tree, or a server class's
            # override) needs no search for its decorations.
            and not _is_registration_method(module, parent)
        ):
            decorations = self.decorations(module, parent, hops)
            # `def named(self, name): def deco(fn): self.server.tool(name=name)(fn)`: the name
            # is what `@tools.named("x")` passes, when it is a literal.
            by_factory = name_argument is not None and _binds(
                factory, module.functions[ref.helper], name_argument[1]
            )
            for caller, call, bound, direct in decorations:
                assert call.decorates is not None
                reached = self.resolve(caller, call.decorates, call.line, hops + 1)
                tool_name = None
                if by_factory and direct and name_argument is not None:
                    tool_name = _passed_string(call, bound, *name_argument)
                found.extend(_named(reached, tool_name))
        if not calls and not decorations:
            reason = f"the tool is parameter `{name}` of {ref.helper}(), and no call passes it"
            return [UncheckedTool(Unchecked.HELPER_PARAMETER, reason, module.path, line)]
        return found

    def decorations(
        self, module: ModuleFacts, factory: str, hops: int
    ) -> list[tuple[ModuleFacts, CallSite, bool, bool]]:
        """The decorations `@factory(...)` of the project, each with whether it passes `self`
        and whether it calls the factory itself; also through the functions that return what the
        factory returns: `def reader(self, title): return self._register(title)` makes
        `@tools.reader("Title")` a decoration of `_register`'s. Once per factory."""
        key = (module.path, factory)
        if key in self.decorated:
            return self.decorated[key]
        self.decorated[key] = []  # a factory returning what it returns through itself adds none
        found = []
        for caller, call, bound in self.names.calls_to(module, factory, decorations=True):
            self.names.work.step()
            if call.decorates is not None:
                found.append((caller, call, bound, True))
            elif call.returned_by and hops < _MAX_HOPS:
                forwarded = self.decorations(caller, call.returned_by, hops + 1)
                found.extend((c, d, b, False) for c, d, b, _ in forwarded)
        self.decorated[key] = found
        return found

    def library_function(
        self, qualified: str, near: ModuleFacts
    ) -> tuple[ModuleFacts, Function] | None:
        """A function of a module outside the project, read from its source on `sys.path`."""
        qualified = self.names.unstarred(qualified, near) or qualified
        module_name, _, name = qualified.rpartition(".")
        library = self.names.source.load_library(module_name) if module_name else None
        if library is None:
            return None
        if name in library.functions:
            return library, library.functions[name]
        if name in library.imports:  # a package re-exporting it: `from .tools import search`
            ref = FunctionRef(FunctionKind.IMPORT, qualified=library.imports[name])
            return self.names.function(library, ref)
        return None


def _message_name(ref: FunctionRef) -> str:
    """How a message names what a reference refers to: by the name it is followed by (a method
    by its instance's class, a helper's parameter by the helper), else by its source text."""
    if ref.kind is FunctionKind.LOCAL:
        return ref.qualname
    if ref.kind is FunctionKind.IMPORT:
        return ref.qualified
    if ref.kind is FunctionKind.METHOD:
        return ref.instance_class
    if ref.kind is FunctionKind.PARAMETER:
        return ref.helper
    if ref.kind is FunctionKind.LOOP:
        # "?": a loop over what is no name (`loop`'s own message leaves the mark out)
        return ref.collection or f"?{ref.text}"
    return ref.text  # WRAPPED, UNKNOWN


def _named(
    reached: list[Reached | UncheckedTool], tool_name: str | None
) -> list[Reached | UncheckedTool]:
    if tool_name is None:
        return reached
    return [
        replace(tool, tool_name=tool_name) if isinstance(tool, Reached) else tool
        for tool in reached
    ]


def _binds(factory: Function, decorator: Function, name: str) -> bool:
    """Whether `name` in the decorator's body is the factory's parameter (not its own)."""
    return all(p.name != name for p in decorator.parameters) and any(
        p.name == name for p in factory.parameters
    )


def _passed_string(call: CallSite, bound: bool, index: int, name: str) -> str | None:
    return _argument(call.strings, call.string_keywords, bound, index, name)


def _passed(call: CallSite, bound: bool, index: int, name: str) -> FunctionRef | None:
    return _argument(call.functions, call.function_keywords, bound, index, name)


def _argument(
    positional: tuple[T | None, ...],
    keywords: tuple[tuple[str, T], ...],
    bound: bool,
    index: int,
    name: str,
) -> T | None:
    """What a call passes to the parameter at `index` (counting `self`) named `name`."""
    passed = dict(keywords).get(name)
    position = index - 1 if bound else index
    if passed is None and 0 <= position < len(positional):
        passed = positional[position]
    return passed if passed is not None else dict(keywords).get(UNPACKED)


def _is_registration_method(module: ModuleFacts, qualname: str) -> bool:
    owner, _, name = qualname.rpartition(".")
    return name in REGISTRATION_ATTRIBUTES and owner in module.classes
