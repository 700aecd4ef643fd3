"""Apply the fix plans that findings carry: the smallest edits a careful person would make.

Markers and server renames are text edits at the exact spans the analysis recorded, so nothing
outside them moves. The imports they need are text edits too, found with `ast` (`fix/imports/`):
placed as isort places them, spelled as the module already binds them, and the import of a
renamed server class removed when nothing uses it any more. Every edit is made in one pass over
the text. A result that does not parse is never written.
"""

from __future__ import annotations

import ast
import itertools
import os
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_codemod.analysis.facts import AnnotationSite, Position, Span
from mcp_codemod.analysis.frameworks import GUARDED_CLASS_NAME
from mcp_codemod.analysis.scan.positions import line_offsets
from mcp_codemod.engine.cycle_collection import without_cycle_collection
from mcp_codemod.engine.facts_cache import digest
from mcp_codemod.engine.file_io import (
    CHANGED,
    SourceError,
    create_new,
    read_for_rewrite,
    write_source,
)
from mcp_codemod.fix.format_style import FormatStyles
from mcp_codemod.fix.imports.dependents import Importers
from mcp_codemod.fix.imports.plan import (
    ANNOTATED,
    ANY,
    FIELD,
    GUARD,
    RUNTIME,
    first_party_names,
    plan_imports,
)
from mcp_codemod.fix.line_wrap import LineStyle, carries_pragma, wrap_edited_lines
from mcp_codemod.fix.runtime_names import ModuleImports, module_imports
from mcp_codemod.fix.text_edits import (
    FixError,
    annotate_parameter,
    append_metadata,
    changed_span,
    splice,
)
from mcp_codemod.fix.textdiff import unified_diff
from mcp_codemod.rules.findings import Finding, Fix

if TYPE_CHECKING:
    from mcp_codemod.engine.file_facts import KnownScans


@dataclass
class FilePlan:
    """Everything to change in one file, merged from all its findings."""

    markers: dict[Span, tuple[AnnotationSite, set[str]]] = field(default_factory=dict)
    swaps: dict[Span, str] = field(default_factory=dict)  # span → guarded class name
    # Constructions passed through `guard()`: their class is chosen at run time (docs/fix.md).
    guards: set[Span] = field(default_factory=set)
    # The end of an unannotated parameter's name → the markers of its new annotation.
    annotations: dict[Position, set[str]] = field(default_factory=dict)
    fixes: int = 0
    partly_fixed: int = 0  # findings with an edit here and another outside the given paths
    # The lines (1-based) of each counted finding's edits here: a finding whose edits are all on
    # lines `_edit` held back (a pragma comment's) is not fixed.
    fixed_lines: list[frozenset[int]] = field(default_factory=list)

    def fixed(self, held: frozenset[int]) -> int:
        return self.fixes - sum(bool(lines) and lines <= held for lines in self.fixed_lines)


@dataclass(frozen=True)
class FileFix:
    path: str
    original: str
    fixed: str
    encoding: str
    fixes: int
    data: bytes  # the bytes `original` was decoded from: the file is replaced only if it holds them
    generated: bool = False  # the guard module (`runtime-module`), not a file of the user's
    created: bool = False  # a file that does not exist yet (the generated guard module)
    partly_fixed: int = 0  # findings this change fixes in part (an edit is outside the paths)
    # The guarded classes swapped in for a server class bound once, outside any branch (also
    # through re-exports): the analysis found the module's server to be of that class's major.
    swapped: frozenset[str] = frozenset()
    # The import statements of `original` and of `fixed`, read from the trees the fix parsed:
    # what the confirmation that the fixed code imports reads (None: it parses the text).
    original_imports: ModuleImports | None = None
    fixed_imports: ModuleImports | None = None

    def diff(self) -> str:
        """The change as `git diff` prints it, so `git apply` and `patch -p1` take it: paths
        relative to the working directory under `a/` and `b/`, `/dev/null` for a new file."""
        path = Path(os.path.relpath(self.path)).as_posix()
        old = "/dev/null" if self.created else f"a/{path}"
        return unified_diff(self.original, self.fixed, old, f"b/{path}")


@dataclass(frozen=True)
class FixFailure:
    path: str
    message: str


@dataclass(frozen=True)
class FixResult:
    files: tuple[FileFix, ...]  # only files whose text changes
    failures: tuple[FixFailure, ...]
    advice: tuple[str, ...]  # servers the fix cannot reach: what the user has to add
    outside: tuple[str, ...]  # `path:line: note: ...` for each edit outside the writable files
    incomplete: int  # findings left (partly) unfixed because an edit is outside


@dataclass
class Plan:
    files: dict[str, FilePlan]
    advice: tuple[str, ...]
    outside: tuple[str, ...]
    incomplete: int


def plan(findings: tuple[Finding, ...], writable: Callable[[str], bool]) -> Plan:
    """The edits per file; an edit in a file that is not `writable` becomes a note instead."""
    plans: dict[str, FilePlan] = defaultdict(FilePlan)
    advice: dict[str, str] = {}  # note → where it applies first
    outside: dict[str, None] = {}  # ordered, without repeats
    incomplete = 0
    for finding in findings:
        if finding.fix is None:
            continue
        complete = True
        for marker in finding.fix.markers:
            if not writable(marker.path):
                where = "the annotation is"
                outside[_outside_note(marker.path, marker.site.span.start.line, where)] = None
                complete = False
                continue
            file_plan = plans[marker.path]
            _, markers = file_plan.markers.setdefault(marker.site.span, (marker.site, set()))
            markers.add(marker.marker)
        for annotation in finding.fix.annotations:
            if not writable(annotation.path):
                where = "the parameter is"
                outside[_outside_note(annotation.path, annotation.after.line, where)] = None
                complete = False
                continue
            plans[annotation.path].annotations.setdefault(annotation.after, set()).add(
                annotation.marker
            )
        for swap in finding.fix.swaps:
            if not writable(swap.path):
                where = "the server is constructed"
                outside[_outside_note(swap.path, swap.span.start.line, where)] = None
                complete = False
                continue
            if swap.wrap:
                plans[swap.path].guards.add(swap.span)
            else:
                plans[swap.path].swaps[swap.span] = GUARDED_CLASS_NAME[swap.framework]
        # Counted where its first edit lands: a server built in another module is guarded
        # there, and the finding's own file may not change at all.
        edits = [*finding.fix.markers, *finding.fix.annotations, *finding.fix.swaps]
        if complete:
            counted = plans[edits[0].path if edits else finding.path]
            counted.fixes += 1
            counted.fixed_lines.append(
                frozenset(_lines(finding.fix, edits[0].path if edits else finding.path))
            )
        else:
            incomplete += 1
            # What the file's change did make of it: the summary counts what it changed.
            made = [edit.path for edit in edits if writable(edit.path)]
            if made:
                plans[made[0]].partly_fixed += 1
        if finding.fix.advice:
            # One note per server, at its first tool, however many parameters it exposes.
            advice.setdefault(finding.fix.advice, f"{finding.path}:{finding.line}")
    return Plan(
        dict(plans),
        tuple(f"{where}: {text}" for text, where in advice.items()),
        tuple(outside),
        incomplete,
    )


def _lines(fix: Fix, path: str) -> set[int]:
    """The lines (1-based) of the fix's edits in the file at `path`."""
    lines = {m.site.span.start.line for m in fix.markers if m.path == path}
    lines |= {m.site.span.end.line for m in fix.markers if m.path == path}
    lines |= {a.after.line for a in fix.annotations if a.path == path}
    return lines | {s.span.start.line for s in fix.swaps if s.path == path}


def _outside_note(path: str, line: int, what: str) -> str:
    return f"{path}:{line}: note: {what} outside the given paths; fix it there or pass that path"


def fix_findings(
    findings: tuple[Finding, ...],
    digests: Mapping[str, bytes],
    writable: Collection[Path],
    runtime: str = RUNTIME,
    importers: Importers | None = None,
    unsaved: Mapping[str, bytes] | None = None,
    scans: KnownScans | None = None,
) -> FixResult:
    """The fixed text of each file the findings' fixes edit (`unsaved`: the bytes of a buffer,
    by absolute path, to fix instead of the file's). Only files in `writable` (resolved
    paths: what discovery found under the paths given) are planned; a file is fixed only if it
    still holds the bytes the analysis read (`digests`, by absolute path). Markers and guarded
    classes are imported from `runtime` (the `runtime-module` setting, or mcp_codemod.runtime).
    `importers` tells which server class imports other modules of the project take from a
    fixed module (default: its project as discovered with the default settings). `scans`: the
    scans of a `fix` run whose checks will read the fixed texts, which gets the scan of each
    from the tree parsed to confirm that it parses. Every failure is one file's, and one
    line."""
    importers = importers or Importers()
    resolved: dict[str, Path] = {}

    def is_writable(path: str) -> bool:
        if path not in resolved:
            resolved[path] = Path(path).resolve()
        return resolved[path] in writable

    planned = plan(findings, is_writable)
    styles = FormatStyles()
    files: list[FileFix] = []
    failures: list[FixFailure] = []
    targets: set[Path] = set()
    for path in sorted(planned.files):
        target = Path(path).resolve()
        if target in targets:  # the same file under another name (a symbolic link): same edits
            continue
        targets.add(target)
        try:
            buffer = (unsaved or {}).get(os.path.abspath(path))
            data, source = read_for_rewrite(Path(path), buffer)
            # A buffer is the very bytes the analysis read; a file may have changed since.
            if buffer is None and digest(data) != digests.get(os.path.abspath(path)):
                raise SourceError(CHANGED)
            edited = edit(
                source.text,
                planned.files[path],
                path=Path(path),
                runtime=runtime,
                style=styles.of(Path(path)),
                importers=importers,
                tree_of=scans.tree_of if scans is not None else None,
                fixed_tree=partial(scans.add_fixed, path) if scans is not None else None,
            )
        except (SourceError, FixError) as error:
            failures.append(FixFailure(path, str(error)))
            continue
        except Exception as error:  # a bug of ours: report it, leave the file, fix the others
            failures.append(FixFailure(path, f"internal error, file left unchanged: {error!r}"))
            continue
        fixed = edited.text
        if fixed != source.text:
            file_plan = planned.files[path]
            files.append(
                FileFix(
                    path,
                    source.text,
                    fixed,
                    source.encoding,
                    file_plan.fixed(edited.held),
                    data,
                    partly_fixed=file_plan.partly_fixed,
                    swapped=frozenset(file_plan.swaps.values()),
                    original_imports=edited.original_imports,
                    fixed_imports=edited.fixed_imports,
                )
            )
    if scans is not None:
        scans.kept = None  # kept for the fixer only: not for the rest of the run
    return FixResult(
        tuple(files), tuple(failures), planned.advice, planned.outside, planned.incomplete
    )


def write(fix: FileFix) -> None:
    """Replace the file with the fixed text if it still holds the bytes the fix was made from;
    raises SourceError (ChangedError when it changed) and leaves the file as it was."""
    path = Path(fix.path)
    if fix.created and not path.exists():
        create_new(path)
    write_source(path, fix.fixed, fix.encoding, fix.data)


def apply(
    text: str,
    file_plan: FilePlan,
    *,
    path: Path | None = None,
    runtime: str = RUNTIME,
    style: LineStyle | None = None,
    importers: Importers | None = None,
) -> str:
    """The text with the plan's edits and the imports they need; raises FixError.

    `path` tells first-party modules from third-party ones (where an import goes); `runtime` is
    the module the markers and guarded classes are imported from; `style`: the project's
    formatter settings, to which an edited line that grew too long is split (default: ruff's);
    with `importers`, an import that another module of the project takes from this one (at
    `path`) is never removed.
    """
    return edit(text, file_plan, path=path, runtime=runtime, style=style, importers=importers).text


@dataclass(frozen=True)
class EditedText:
    text: str  # the fixed text
    # What `text` was made of: (start, end, replacement) in character offsets of the original,
    # in order; insertions at one offset in the order they are made. An editor applies these
    # to its buffer (the language server) and gets `text`.
    edits: tuple[tuple[int, int, str], ...]
    # Lines (1-based) whose edits were held back: each ends in a pragma comment and would have
    # had to be split.
    held: frozenset[int] = frozenset()
    # The import statements of the original text and of `text`, read from the trees parsed here
    # (`runtime_names.missing_names` takes them instead of parsing both again).
    original_imports: ModuleImports | None = None
    fixed_imports: ModuleImports | None = None


def edit(
    text: str,
    file_plan: FilePlan,
    *,
    path: Path | None = None,
    runtime: str = RUNTIME,
    style: LineStyle | None = None,
    importers: Importers | None = None,
    tree_of: Callable[[str], ast.Module | None] | None = None,
    fixed_tree: Callable[[str, ast.Module], None] | None = None,
) -> EditedText:
    """`apply`, with the edits that make the fixed text; raises FixError. `tree_of` gives the
    syntax tree of a text parsed before, when one was kept, which the edit takes instead of
    parsing the text again; `fixed_tree` is given the fixed text and its syntax tree, which
    the edit does not use afterwards."""
    with without_cycle_collection():
        return _edit(
            text, file_plan, path, runtime, style or LineStyle(), importers, tree_of, fixed_tree
        )


def _edit(
    text: str,
    file_plan: FilePlan,
    path: Path | None,
    runtime: str,
    style: LineStyle,
    importers: Importers | None,
    tree_of: Callable[[str], ast.Module | None] | None,
    fixed_tree: Callable[[str, ast.Module], None] | None,
) -> EditedText:
    # Taken, not held by the caller: deleted below, it is freed before the result is parsed.
    tree = tree_of(text) if tree_of is not None else None
    try:
        if tree is None:
            tree = ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError) as error:
        raise FixError(f"cannot parse: {getattr(error, 'msg', error)}") from None
    offsets = line_offsets(text)

    def offset(position: Position) -> int:
        if position.line > len(offsets):
            raise FixError("the file changed since it was analysed")
        return offsets[position.line - 1] + position.column

    swaps = [
        (offset(span.start), offset(span.end), guarded) for span, guarded in file_plan.swaps.items()
    ]
    # The names the edits spell, each with where it is first spelled: its import must run
    # before that.
    first_use: dict[str, int] = {}

    def use(name: str, at: int) -> None:
        first_use[name] = min(at, first_use.get(name, at))

    for site, markers in file_plan.markers.values():
        at = offset(site.append_at if site.append_at is not None else site.span.start)
        for name in markers | ({ANNOTATED} if site.append_at is None else set()):
            use(name, at)
        if site.sole_description is not None:
            use(FIELD, offset(site.sole_description.start))
    for after, markers in file_plan.annotations.items():
        for name in markers | {ANNOTATED, ANY}:
            use(name, offset(after))
    for start, _, guarded in swaps:
        use(guarded, start)
    guarded_calls = sorted((offset(span.start), offset(span.end)) for span in file_plan.guards)
    for start, _ in guarded_calls:
        use(GUARD, start)
    imports = plan_imports(
        text,
        tree,
        set(first_use),
        [(start, end) for start, end, _ in swaps],
        runtime,
        first_party_names(path),
        first_use,
        partial(importers.takes, path, text=text, tree=tree)
        if importers and path
        else lambda _: False,
        style=style,
    )
    original_imports = module_imports(tree, everywhere=False)
    del tree  # before the result's own parse: two trees of a large file do not fit twice
    spell = imports.spellings
    edits: list[tuple[int, int, str]] = list(imports.edits)
    for site, markers in file_plan.markers.values():
        names = ", ".join(spell[marker] for marker in sorted(markers))
        if site.sole_description is not None:  # standalone fastmcp's description, kept
            start, end = offset(site.sole_description.start), offset(site.sole_description.end)
            edits.append((start, start, f"{spell[FIELD]}(description="))
            edits.append((end, end, ")"))
        if site.append_at is not None:
            edits.append(append_metadata(text, offset(site.append_at), names))
        else:
            start, end = offset(site.span.start), offset(site.span.end)
            edits.append((start, start, f"{spell[ANNOTATED]}["))
            edits.append((end, end, f", {names}]"))
    for after, markers in file_plan.annotations.items():
        names = ", ".join(spell[marker] for marker in sorted(markers))
        edits.append(
            annotate_parameter(text, offset(after), f"{spell[ANNOTATED]}[{spell[ANY]}, {names}]")
        )
    edits += [(start, end, spell[guarded]) for start, end, guarded in swaps]
    for start, end in guarded_calls:
        edits += [(start, start, f"{spell[GUARD]}("), (end, end, ")")]
    edits.sort(key=lambda edit: (edit[0], edit[1]))  # stable: insertions keep their order
    original = text
    starts = [*offsets, len(text)]
    original_lines = [text[a:b].rstrip("\r\n") for a, b in itertools.pairwise(starts)]
    spliced, edited = splice(text, edits)
    # Only where the input fitted: a line that was too long before is the user's layout.
    fitted = {
        line
        for line, before in edited.items()
        if before is None or before >= len(original_lines) or style.fits(original_lines[before])
    }
    # A line that would be split while it ends in a pragma comment (ruff's or mypy's: a code
    # suppressed, an error ignored) is not edited: the comment covers the code of its own line, and no split
    # keeps all of that code on one line (ruff's formatter itself moves the comment to the last
    # one, off the code it covers). Its findings are left to the author, and reported.
    spliced_lines = spliced.splitlines()
    held = {
        before
        for line, before in edited.items()
        if line in fitted
        and before is not None
        and line < len(spliced_lines)
        and not style.fits(spliced_lines[line])
        and carries_pragma(spliced_lines[line])
    }
    if held:
        kept = _without_lines(file_plan, held)
        result = _edit(original, kept, path, runtime, style, importers, tree_of, fixed_tree)
        return replace(result, held=result.held | {line + 1 for line in held})
    text = wrap_edited_lines(spliced, fitted, style)
    try:
        tree = ast.parse(text)
    except SyntaxError as error:  # a bug of ours: never write it
        raise FixError(f"the fixed text would not parse ({error.msg}); left unchanged") from None
    fixed_imports = module_imports(tree)
    if fixed_tree is not None:
        fixed_tree(text, tree)
    del tree
    # Wrapping moved text the edits do not say: one edit over what changed makes the same text.
    made = tuple(edits) if text == spliced else (changed_span(original, text),)
    return EditedText(text, made, original_imports=original_imports, fixed_imports=fixed_imports)


def _without_lines(file_plan: FilePlan, lines: set[int]) -> FilePlan:
    """The plan without its edits on `lines` (0-based)."""

    def clear(*positions: Position | None) -> bool:
        return all(p is None or p.line - 1 not in lines for p in positions)

    return replace(
        file_plan,
        markers={
            span: (site, markers)
            for span, (site, markers) in file_plan.markers.items()
            if clear(site.span.start, site.span.end, site.append_at)
        },
        swaps={span: name for span, name in file_plan.swaps.items() if clear(span.start, span.end)},
        guards={span for span in file_plan.guards if clear(span.start, span.end)},
        annotations={at: markers for at, markers in file_plan.annotations.items() if clear(at)},
    )
