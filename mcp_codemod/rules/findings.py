"""Findings: what `check` reports and what `fix` consumes. Plain frozen data."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a stored result's findings are read without the analysis (run cache)
    from mcp_codemod.analysis.facts import AnnotationSite, Position, ServerSwap


class Safety(str, Enum):
    """Whether `fix --write` applies a fix (safe) or only `fix --write --unsafe-fixes` does: an
    unsafe fix can change what a correct tool receives, as ruff's unsafe fixes can change what a
    correct program does."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class MarkerEdit:
    """Add `marker` to the annotation at `site` in `path`."""

    path: str
    site: AnnotationSite
    marker: str


@dataclass(frozen=True)
class AnnotationEdit:
    """Annotate the unannotated parameter whose name ends at `after` in `path` as
    `Annotated[Any, marker]`: the type it has for the SDK, with the marker."""

    path: str
    after: Position
    marker: str


@dataclass(frozen=True)
class Fix:
    title: str  # what applying it does, in the imperative ("Guard the server")
    safety: Safety
    markers: tuple[MarkerEdit, ...] = ()
    swaps: tuple[ServerSwap, ...] = ()
    # Where a part of the fix is out of reach (a server built outside the project): the line the
    # user has to add. The rest of the fix still applies.
    advice: str | None = None
    annotations: tuple[AnnotationEdit, ...] = ()


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    column: int  # 1-based, as editors and ruff count
    code: str
    message: str
    framework: str
    # What the finding is about: a tool parameter, or (both None) a server.
    tool: str | None = None
    parameter: str | None = None
    annotation: str | None = None
    fix: Fix | None = field(default=None, compare=False)

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def applies(self, unsafe_fixes: bool) -> bool:
        """Whether `fix --write` applies this finding's fix under the given choice."""
        return self.fix is not None and (unsafe_fixes or self.fix.safety is Safety.SAFE)


@dataclass(frozen=True, order=True)
class FileError:
    path: str
    message: str
