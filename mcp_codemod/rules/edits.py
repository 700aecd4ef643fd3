"""The edits that rules put in their fixes: a marker on a tool parameter's annotation, and the
guarded class for a server (the `fix` package applies them)."""

from __future__ import annotations

from mcp_codemod.analysis.facts import Position, ServerSwap
from mcp_codemod.analysis.frameworks import GUARDED_CLASS_NAME
from mcp_codemod.analysis.subjects import ResolvedServer, ToolParameter
from mcp_codemod.rules.findings import AnnotationEdit, Fix, MarkerEdit, Safety


def add_marker(parameter: ToolParameter, marker: str) -> tuple[MarkerEdit, ...]:
    """The edit that marks the parameter's own annotation, also when that is a type alias; none
    when the annotation as a whole carries the marker already."""
    if marker in parameter.shape.markers:
        return ()
    path, site = parameter.fix_site
    return (MarkerEdit(path, site, marker),) if site is not None else ()


def marker_fix(parameter: ToolParameter, marker: str) -> Fix | None:
    """The safe fix that marks the parameter's annotation with `marker`; None where no edit
    can (`add_marker`)."""
    edits = add_marker(parameter, marker)
    return Fix(f"Mark it `{marker}`", Safety.SAFE, edits) if edits else None


def annotate_with_marker(parameter: ToolParameter, marker: str) -> tuple[AnnotationEdit, ...]:
    """The edit that gives an unannotated parameter `Annotated[Any, marker]`; none for a
    library's function or a file generated at each start, which cannot be edited here."""
    if parameter.library is not None or parameter.generated_by is not None:
        return ()
    start = parameter.parameter.position
    after = Position(start.line, start.column + len(parameter.parameter.name))
    return (AnnotationEdit(parameter.path, after, marker),)


def guard_server(server: ResolvedServer) -> tuple[tuple[ServerSwap, ...], str | None]:
    """The swap to the guarded class where the server's construction or project base is in
    reach; otherwise the advice to guard it where it is built."""
    if server.swap is not None or server.also_swaps:
        own = (server.swap,) if server.swap is not None else ()
        return (*own, *server.also_swaps), None
    if server.facade is not None:
        return (), server.facade.guard_advice(server.description)
    return (), (
        f"the server ({server.description}) is built outside the code this fix can rewrite: "
        "pass it through `mcp_codemod.runtime.guard(server)` before it serves requests"
    )


def guarding(server: ResolvedServer) -> str:
    """What the fix does to the server, for fix titles: "make the server a `GuardedFastMCP`", or
    where its class is chosen at run time, "pass the server through `guard()`"."""
    swaps = (server.swap, *server.also_swaps)
    if any(swap is not None and swap.wrap for swap in swaps):
        return "pass the server through `guard()`"
    guarded = GUARDED_CLASS_NAME.get(server.framework, "the guarded server class")
    return f"make the server a `{guarded}`"
