"""Text given to `exec` / `eval`: what literal text reads (its names, the modules it imports,
whether it builds a server), the namespace given to it, and the names in reach where it runs in
its scope's own. `Registrations.run_texts` makes unchecked uses of the servers they may name."""

from __future__ import annotations

import ast

from mcp_codemod.analysis.frameworks import SERVER_CLASS_NAMES, TOOL_ATTRIBUTES
from mcp_codemod.analysis.scan.scope import STANDARD_LIBRARY, ClassContext, Scope, SymbolKind
from mcp_codemod.analysis.scan.syntax import last_name

RUNS_TEXT_NAMES = ("exec", "eval")
RUNS_TEXT = frozenset(f"builtins.{name}" for name in RUNS_TEXT_NAMES)
# In literal text, names that reach the namespace by text themselves: any server may be named.
_REACHES_BY_TEXT = frozenset(
    ("getattr", "exec", "eval", "compile", "globals", "locals", "vars", "__import__")
)
_TEXT_REACHES = frozenset(("_tool_manager", "__dict__"))


def literal_text(node: ast.expr) -> str | None:
    """The text of a literal string or bytes (also one spelled with `+`), else None."""
    if type(node) is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else None
    if type(node) is ast.BinOp and type(node.op) is ast.Add:  # type: ignore[attr-defined]
        left, right = literal_text(node.left), literal_text(node.right)  # type: ignore[attr-defined]
        return left + right if left is not None and right is not None else None
    return None


def names_in_text(tree: ast.Module) -> tuple[set[str] | None, list[str]]:
    """The names literal text reads (None: any, it registers, reaches names by text or builds
    a server) and the absolute names it imports."""
    names: set[str] = set()
    imported: list[str] = []
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Name:
            names.add(node.id)  # type: ignore[attr-defined]
            if node.id in _REACHES_BY_TEXT or node.id in SERVER_CLASS_NAMES:  # type: ignore[attr-defined]
                return None, imported
        elif kind is ast.Attribute:
            attribute = node.attr  # type: ignore[attr-defined]
            if (
                attribute in TOOL_ATTRIBUTES
                or attribute in _TEXT_REACHES
                or attribute in SERVER_CLASS_NAMES
            ):
                return None, imported
        elif kind is ast.Import:
            imported.extend(alias.name for alias in node.names)  # type: ignore[attr-defined]
        elif kind is ast.ImportFrom and node.level == 0 and node.module:  # type: ignore[attr-defined]
            imported.extend(f"{node.module}.{a.name}" for a in node.names if a.name != "*")  # type: ignore[attr-defined]
    return names, [name for name in imported if name.partition(".")[0] not in STANDARD_LIBRARY]


def module_scope(scope: Scope) -> Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


def builds_server(tree: ast.Module) -> bool:
    """Whether the text calls a server class by its name (`FastMCP(...)`)."""
    for node in ast.walk(tree):
        if type(node) is ast.Call and last_name(node.func) in SERVER_CLASS_NAMES:  # type: ignore[attr-defined]
            return True
    return False


def given_namespace(namespace: list[ast.expr]) -> list[ast.expr] | None:
    """The values a namespace given to `exec` / `eval` holds, when every one is a literal
    dictionary; None when the text runs in the scope's own namespace (none given, or
    `globals()` / `locals()` / `vars()`) or in one the analysis cannot read."""
    if not namespace:
        return None
    held: list[ast.expr] = []
    for given in namespace:
        if type(given) is ast.Dict:
            held.extend(value for value in given.values)  # type: ignore[attr-defined]
        elif type(given) is not ast.Constant:  # `None` is the scope's own
            return None
    return held


def visible_servers(scope: Scope, cls: ClassContext | None) -> list[ast.expr]:
    """The names of the scope and around it that may hold a server, as expressions to
    resolve, and `self`'s attributes holding one."""
    seen: set[str] = set()
    found: list[ast.expr] = []
    for names in scope.chain:
        for name, symbol in names.items():
            if name in seen:
                continue
            seen.add(name)
            if symbol.kind is SymbolKind.SERVER or (
                symbol.kind is SymbolKind.IMPORT
                and symbol.qualified.partition(".")[0] not in STANDARD_LIBRARY
            ):
                found.append(ast.Name(id=name, ctx=ast.Load()))
    if cls is not None and cls.self_name:
        for attribute in cls.attributes:
            found.append(
                ast.Attribute(
                    value=ast.Name(id=cls.self_name, ctx=ast.Load()), attr=attribute, ctx=ast.Load()
                )
            )
    return found


def first_name(node: ast.expr) -> str:
    while type(node) is ast.Attribute:
        node = node.value  # type: ignore[attr-defined]
    return node.id if type(node) is ast.Name else ""  # type: ignore[attr-defined]
