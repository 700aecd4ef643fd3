"""What a module binds at module level, read with `ast`: which statements bind which names to
which imports, so a fix can reuse an import of the name it needs or pick a free spelling; and the
import statements that bind a name."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

from mcp_codemod.analysis.scan.syntax import statement_nodes


class BindingKind(Enum):
    FROM = "from"  # `from module import name`
    MODULE = "module"  # `import module`
    OTHER = "other"  # anything else, `del` included


@dataclass(frozen=True)
class Binding:
    """What a module-level statement binds a name to (or unbinds it from: `del`)."""

    kind: BindingKind
    module: str = ""
    name: str = ""  # FROM: the imported name; MODULE: how to spell the module
    unconditional: bool = True  # not under `if`, `for`, `while` or `match`
    end: int = 0  # where the statement ends (a character offset): the name is bound after it


def module_statements(
    body: list[ast.stmt], unconditional: bool = True
) -> Iterator[tuple[ast.stmt, bool]]:
    """Module-level statements, also inside compound statements (not in functions or classes)."""
    for statement in body:
        yield statement, unconditional
        if isinstance(statement, ast.If | ast.For | ast.AsyncFor | ast.While):
            yield from module_statements(statement.body + statement.orelse, False)
        elif isinstance(statement, ast.With | ast.AsyncWith):
            yield from module_statements(statement.body, unconditional)
        elif isinstance(statement, ast.Try | getattr(ast, "TryStar", ast.Try)):
            parts = statement.body + statement.orelse + statement.finalbody
            for handler in statement.handlers:
                parts += handler.body
            yield from module_statements(parts, unconditional)
        elif isinstance(statement, getattr(ast, "Match", ())):
            for case in statement.cases:
                yield from module_statements(case.body, False)


def module_bindings(tree: ast.Module, text: str, offsets: list[int]) -> dict[str, list[Binding]]:
    """Every name the module binds at module level, with what to: imports, and as "other" any
    other statement that binds or unbinds it (assignments, definitions, `del`, `except ... as`,
    `match` captures, `:=`, and a `global` declaration in a function, which may rebind it)."""
    bindings: dict[str, list[Binding]] = {}

    def bind(name: str, binding: Binding) -> None:
        bindings.setdefault(name, []).append(binding)

    for statement, unconditional in module_statements(tree.body):
        end = char_offset(text, offsets, statement.end_lineno, statement.end_col_offset)
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    bind(
                        alias.asname,
                        Binding(BindingKind.MODULE, alias.name, alias.asname, unconditional, end),
                    )
                else:
                    top = alias.name.split(".")[0]
                    bind(
                        top, Binding(BindingKind.MODULE, alias.name, alias.name, unconditional, end)
                    )
        elif isinstance(statement, ast.ImportFrom):
            module = statement.module if statement.level == 0 else None
            for alias in statement.names:
                if alias.name == "*":
                    continue
                local = alias.asname or alias.name
                if module is None:
                    bind(local, Binding(BindingKind.OTHER))
                else:
                    bind(local, Binding(BindingKind.FROM, module, alias.name, unconditional, end))
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bind(statement.name, Binding(BindingKind.OTHER))
        else:
            for target in _targets(statement):
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        bind(node.id, Binding(BindingKind.OTHER))
    # Only `:=` binds inside an expression: without it in the text, the statements (and the
    # patterns of `match`) hold every node `_rebound` names, and the expressions, most of a
    # large module's tree, are not walked.
    for node in ast.walk(tree) if ":=" in text else _statements_and_patterns(tree):
        for name in _rebound(node):
            bind(name, Binding(BindingKind.OTHER))
    return bindings


def _statements_and_patterns(tree: ast.Module) -> Iterator[ast.AST]:
    """The module's statements, `except` clauses and `match` patterns, wherever they are."""
    for node in statement_nodes(tree):
        yield node
        if isinstance(node, ast.match_case):
            yield from ast.walk(node.pattern)


def _rebound(node: ast.AST) -> list[str]:
    """Names that a node binds or unbinds wherever it stands, which `_targets` does not see:
    `global` (the function may assign the module's name), `:=` (in a comprehension it binds in
    the enclosing scope), `except ... as` (unbound again after the handler), `match` captures.
    Counted also in functions, where most bind only there: a name counted too many is spelled
    `_Name`, a name missed is a NameError."""
    if isinstance(node, ast.Global):
        return list(node.names)
    if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    return []


def _targets(statement: ast.stmt) -> list[ast.AST]:
    if isinstance(statement, ast.Assign):
        return list(statement.targets)
    if isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        return [statement.target]
    if isinstance(statement, ast.Delete):
        return list(statement.targets)
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [item.optional_vars for item in statement.items if item.optional_vars]
    if isinstance(statement, getattr(ast, "TypeAlias", ())):
        return [statement.name]
    return []


def _provides(binding: Binding, name: str, modules: tuple[str, ...], runtime: str) -> bool:
    """Whether `binding` is an import of `name` from one of `modules` (or a runtime submodule)."""

    def right_module(module: str) -> bool:
        return module in modules or (runtime in modules and module.startswith(runtime + "."))

    if binding.kind is BindingKind.FROM:
        return binding.name == name and right_module(binding.module)
    return False


def reusable(
    name: str,
    modules: tuple[str, ...],
    bindings: dict[str, list[Binding]],
    runtime: str,
    first_use: int,
) -> str | None:
    """How the module already refers to `name` from `modules`, if every binding of that
    spelling agrees and one of them holds, whatever the branches do, before `first_use` (the
    offset of the first edit that will use it)."""

    def agreed(local: str, test: Callable[[Binding], bool]) -> bool:
        found = bindings.get(local, [])
        return all(test(b) for b in found) and any(
            b.unconditional and b.end <= first_use for b in found
        )

    imported = [
        local
        for local, found in bindings.items()
        if any(_provides(b, name, modules, runtime) for b in found)
        and agreed(local, lambda b: _provides(b, name, modules, runtime))
    ]
    if imported:
        return name if name in imported else sorted(imported)[0]
    for local, found in sorted(bindings.items()):
        spellings = {b.name for b in found if b.kind is BindingKind.MODULE and b.module in modules}
        if len(spellings) == 1 and agreed(
            local, lambda b: b.kind is BindingKind.MODULE and b.module in modules
        ):
            return f"{spellings.pop()}.{name}"
    return None


def free_name(name: str, text: str, bindings: dict[str, list[Binding]]) -> str:
    """`name` when the module does not bind it, else the first of `_name`, `_name_2`... that
    appears nowhere in the text."""
    if name not in bindings:
        return name
    candidate, number = f"_{name}", 1
    while re.search(rf"\b{re.escape(candidate)}\b", text):
        number += 1
        candidate = f"_{name}_{number}"
    return candidate


def char_offset(text: str, offsets: list[int], line: int, byte_column: int) -> int:
    """The character offset of an `ast` position (a line and a UTF-8 byte column)."""
    start = offsets[line - 1]
    if text[start : start + byte_column].isascii():
        return start + byte_column
    end = offsets[line] if line < len(offsets) else len(text)
    return start + len(text[start:end].encode("utf-8")[:byte_column].decode("utf-8", "replace"))


def import_statements(
    tree: ast.Module, everywhere: bool
) -> Iterator[tuple[ast.Import | ast.ImportFrom, list[ast.stmt]]]:
    """Import statements with the body that holds them: at module level (also in `if` and
    `try`), or `everywhere`."""
    if not everywhere:
        bodies = [tree.body]
        for statement, _ in module_statements(tree.body):
            bodies += [getattr(statement, f, None) for f in ("body", "orelse", "finalbody")]
            bodies += [handler.body for handler in getattr(statement, "handlers", [])]
        bodies = [b for b in bodies if isinstance(b, list)]
    else:
        bodies = [
            block
            for node in ast.walk(tree)
            for block in (getattr(node, f, None) for f in ("body", "orelse", "finalbody"))
            if isinstance(block, list)
        ]
    seen: set[int] = set()
    for body in bodies:
        for statement in body:
            if isinstance(statement, ast.Import | ast.ImportFrom) and id(statement) not in seen:
                seen.add(id(statement))
                yield statement, body


def bound_by(alias: ast.alias, statement: ast.Import | ast.ImportFrom) -> str:
    if alias.asname:
        return alias.asname
    return alias.name.split(".")[0] if isinstance(statement, ast.Import) else alias.name
