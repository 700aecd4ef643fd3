"""Findings: what `check` reports and what `fix` consumes. Plain frozen data."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_codemod.analysis.facts import AnnotationSite
from mcp_codemod.analysis.linker import ServerSwap


@dataclass(frozen=True)
class MarkerEdit:
    """Add `marker` to the annotation at `site` in `path`."""

    path: str
    site: AnnotationSite
    marker: str


@dataclass(frozen=True)
class FixPlan:
    marker: MarkerEdit | None  # None when the parameter is marked and only its server is not
    server: ServerSwap | None  # make the server guarded, where its construction is in reach
    guard_advice: str | None  # otherwise: the line the user has to add


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    column: int  # 1-based, as editors and ruff count
    code: str
    tool: str
    parameter: str
    annotation: str | None
    framework: str
    message: str
    fixable: bool
    fix: FixPlan | None = field(default=None, compare=False)


@dataclass(frozen=True, order=True)
class FileError:
    path: str
    message: str
