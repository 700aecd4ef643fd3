"""What the link stage asks of the project for the modules it needs (`ModuleSource`): the
engine's `Project` answers, and decides when and where each file is parsed; the link stage
never reads a file itself."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from mcp_codemod.analysis.facts import ModuleFacts


class NotParsed(Exception):
    """Raised by `ModuleSource.load_parsed`: the module of the project that `name` names, as
    `near` imports it, is not parsed yet."""

    def __init__(self, name: str, near: ModuleFacts) -> None:
        super().__init__(name, near)
        self.name = name
        self.near = near


class ModuleSource(Protocol):
    def load(self, name: str, near: ModuleFacts) -> ModuleFacts | None:
        """The facts of module `name` as `near` imports it, parsed now if need be; None when
        the project has no such module, or it cannot be parsed."""
        ...

    def load_parsed(self, name: str, near: ModuleFacts) -> ModuleFacts | None:
        """`load`, of a module loaded or parsed ahead already; raises NotParsed for a module of
        the project that is neither. Loads nothing, waits for nothing."""
        ...

    def loaded(self) -> Sequence[ModuleFacts]:
        """The modules loaded so far: the same sequence until another is loaded."""
        ...

    def load_callers(self, name: str, near: ModuleFacts) -> list[ModuleFacts]:
        """Loads the project's modules that may call `name` (their text names it)."""
        ...

    def load_library(self, name: str) -> ModuleFacts | None:
        """A module outside the project, read from its source where the run's Python finds it."""
        ...

    def preload(self, modules: Iterable[tuple[str, ModuleFacts]]) -> None:
        """Loads together these modules (each name with the module that imports it): `load`
        is about to be asked for them."""
        ...

    def parse_ahead(self, modules: Iterable[tuple[str, ModuleFacts]]) -> None:
        """As `preload`, but each module is loaded only when `load` asks for it."""
        ...


class ParsedOnly:
    """The modules parsed already, and nothing more: one that would have to be parsed is taken
    for one outside the project (or, `raising`, NotParsed is raised for it); no caller is
    searched for, no library read, nothing scheduled."""

    def __init__(self, source: ModuleSource, raising: bool = False) -> None:
        self.source = source
        self.raising = raising
        self.loaded = source.loaded
        self.load_parsed = source.load_parsed

    def load(self, name: str, near: ModuleFacts) -> ModuleFacts | None:
        try:
            return self.source.load_parsed(name, near)
        except NotParsed:
            if self.raising:
                raise
            return None

    def load_callers(self, name: str, near: ModuleFacts) -> list[ModuleFacts]:
        return []

    def load_library(self, name: str) -> ModuleFacts | None:
        return None

    def preload(self, modules: Iterable[tuple[str, ModuleFacts]]) -> None:
        pass

    def parse_ahead(self, modules: Iterable[tuple[str, ModuleFacts]]) -> None:
        pass
