"""Imports for fixed code, as text edits at exact offsets found with `ast`.

Which names a fix needs (`Annotated`, `NoPreParse`, `GuardedFastMCP`...) and how the module spells
them: an import of the right thing is reused (`from typing_extensions import Annotated`,
`import typing as t` gives `t.Annotated`); a name the module binds to something else is imported
under a free alias (`Annotated as _Annotated`). New imports go where isort and ruff's `I` rules
(default settings) put them: merged into a `from` import of the same module in the leading import
block, else a statement in sorted position in its section (standard library, third party, first
party), or a new section between the others. The import of a server class that a swap left
unused is removed. No other import line moves.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcp_codemod.analysis.scan.positions import line_offsets
from mcp_codemod.engine.module_paths import module_name, project_root
from mcp_codemod.fix.imports.bindings import free_name, module_bindings, reusable
from mcp_codemod.fix.imports.order import member_key, new_statement_key
from mcp_codemod.fix.imports.placement import Edit, LeadingBlock, line_ending
from mcp_codemod.fix.imports.usage import occurrences_outside, still_used
from mcp_codemod.fix.line_wrap import LineStyle

RUNTIME = "mcp_codemod.runtime"
ANNOTATED = "Annotated"
ANY = "Any"  # for the annotation an unannotated parameter gets
GUARD = "guard"  # for a server whose class is chosen at run time
FIELD = "Field"  # for the description standalone fastmcp reads from a lone string
_TYPING_MODULES = ("typing", "typing_extensions")
_PYDANTIC_MODULES = ("pydantic", "pydantic.fields")


@dataclass(frozen=True)
class ImportPlan:
    spellings: dict[str, str]  # each needed name → how this module refers to it
    edits: list[Edit]


def first_party_names(path: Path | None) -> Callable[[str], bool]:
    """Whether a top-level module is the project's own, as ruff decides it by default: it exists
    in the project's root or its `src/`, or where the file is importable from."""
    if path is None:
        return lambda _: False
    path = path.resolve()
    roots = {module_name(path)[1], project_root(path), project_root(path) / "src"}

    def first_party(top: str) -> bool:
        return any((r / top).is_dir() or (r / f"{top}.py").is_file() for r in roots)

    return first_party


def plan_imports(
    text: str,
    tree: ast.Module,
    needed: set[str],
    swapped: list[tuple[int, int]],
    runtime: str = RUNTIME,
    first_party: Callable[[str], bool] = lambda _: False,
    first_use: Mapping[str, int] | None = None,
    taken_elsewhere: Callable[[str], bool] = lambda _: False,
    style: LineStyle | None = None,
) -> ImportPlan:
    """How to spell each `needed` name, and the import edits that make them available where
    they are used: before `first_use[name]` (the offset of the first edit that spells it;
    default: the end of the text). The server class imports that only the `swapped` spans used
    are removed, unless another module takes the name from this one (`taken_elsewhere`)."""
    offsets = line_offsets(text)
    eol = line_ending(text)
    first_use = {name: (first_use or {}).get(name, len(text)) for name in needed}
    bindings = module_bindings(tree, text, offsets)
    spellings: dict[str, str] = {}
    additions: dict[str, list[tuple[str, str | None]]] = {}  # module → (name, alias)
    for name in sorted(needed):
        if name in (ANNOTATED, ANY):
            modules = _TYPING_MODULES
        else:
            modules = _PYDANTIC_MODULES if name == FIELD else (runtime,)
        spelling = reusable(name, modules, bindings, runtime, first_use[name])
        if spelling is None:
            local = free_name(name, text, bindings)
            additions.setdefault(modules[0], []).append((name, None if local == name else local))
            spelling = local
        spellings[name] = spelling
    block = LeadingBlock(text, tree, offsets, first_party, first_use, style or LineStyle())
    for base in {text[start:end].split(".")[0] for start, end in swapped}:
        outside = occurrences_outside(base, text, tree, offsets, swapped)
        if still_used(base, text, tree, offsets, swapped, bindings, outside):
            continue
        if taken_elsewhere(base):
            block.keep_binding(base)
        else:
            # Mentions outside the module's imports are imports in functions, or comments.
            block.remove_binding(base, everywhere=bool(outside))
    for module, names in sorted(additions.items(), key=lambda item: block.section(item[0])):
        plain = sorted((n for n, alias in names if alias is None), key=member_key)
        statements = []
        if plain and not block.merge(module, plain, eol):
            statements.append([(n, None) for n in plain])
        # isort keeps `as` imports in statements of their own (combine-as-imports off).
        statements += [[(n, alias)] for n, alias in names if alias is not None]
        if statements:
            block.add(
                module, sorted(statements, key=lambda s: new_statement_key(module, *s[0])), eol
            )
    return ImportPlan(spellings, block.edits(eol))
