"""Scopes and names: what a name in a module, function or class body refers to."""

from __future__ import annotations

import ast
import builtins
import sys
from dataclasses import dataclass, field
from enum import Enum

from mcp_codemod.analysis.facts import FunctionRef, ServerRef

# Each builtin's qualified name, one string for all its uses.
_BUILTIN_NAMES = {name: f"builtins.{name}" for name in dir(builtins)}
# The standard library's top-level modules and the builtins: a name qualified under one of them is
# none of the project's.
STANDARD_LIBRARY = frozenset((*sys.stdlib_module_names, "builtins"))
STAR = "*"  # prefix of a name that no statement of the module binds, but a star import may
OTHER_BINDING = "?"  # an alternative binding of an imported name that is no import (`X = None`)


class SymbolKind(Enum):
    """What a name is bound to, by the statement that binds it."""

    IMPORT = "import"  # `qualified`: the imported name
    FUNCTION = "function"  # `qualname`: the function's qualname here
    METHOD = "method"  # `function`: the instance's method (`backend.list_tables`)
    CLASS = "class"  # `qualified`: the class's name
    ALIAS = "alias"  # `qualified`: the alias's name
    SERVER = "server"  # `server`: the server it is
    COLLECTION = "collection"  # `node`: the literal collection
    EXPRESSION = "expression"  # `node`: a loop variable's value for one element, in `scope`
    LOOP = "loop"  # `function`: a loop variable over a collection that is no literal in sight
    OTHER = "other"


@dataclass(eq=False, slots=True)  # made for every binding: neither frozen nor compared
class Symbol:
    kind: SymbolKind
    qualified: str = ""  # an import, class or alias: its qualified name
    qualname: str = ""  # a function: its qualname in this module
    function: FunctionRef | None = None  # a method or a loop variable: what it refers to
    server: ServerRef | None = None
    # The expression the name is bound to, where a reader needs it. Collection: the literal
    # (list, tuple, set, dict), read in the scope that binds it (not kept: a scope holding its
    # own symbol would be a reference cycle, and the collector is off while checking);
    # expression: a loop variable's value for one element of a literal collection, read in
    # `scope`; server, other: a call (`tool = factory(...)`, every binding of the name in its
    # scope a call of the same function), read in `scope`.
    node: ast.expr | None = None
    scope: Scope | None = None
    # An import: what other branches bind the name to (`try: from mcp.server.mcpserver import
    # MCPServer` / `except ImportError: from mcp.server.fastmcp import FastMCP as MCPServer`),
    # qualified, in the order they are bound; `OTHER_BINDING` for a binding that is no import.
    # The name may be any of them at run time, and `qualified` (the last) as well.
    alternatives: tuple[str, ...] = ()


@dataclass
class Scope:
    qualname: str  # "" for the module
    parent: Scope | None
    names: dict[str, Symbol] = field(default_factory=dict)
    # The names of this scope and of those around it, innermost first: what `lookup` reads, some
    # hundred thousand times a module set.
    chain: tuple[dict[str, Symbol], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parent = self.parent
        self.chain = (self.names, *parent.chain) if parent is not None else (self.names,)

    def lookup(self, name: str) -> Symbol | None:
        for names in self.chain:
            symbol = names.get(name)
            if symbol is not None:
                return symbol
        return None

    def owner(self, name: str) -> Scope | None:
        """The scope that binds `name`: this one or an enclosing one."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope
            scope = scope.parent
        return None


@dataclass
class ClassContext:
    """The class whose methods are being scanned: its `self` and the servers its attributes hold."""

    qualname: str
    self_name: str = "self"
    attributes: dict[str, ServerRef] = field(default_factory=dict)


class Names:
    """Qualified names of one module's expressions."""

    def __init__(self, module: str, is_package: bool, tree: ast.Module) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        # The symbols (by identity) that the statements before, in the branch being bound,
        # bound: the statements after them in that branch run right after those bindings, so
        # there the name is what was just bound, not what another branch binds it to
        # (`except ImportError: import mcp.server.fastmcp as sdk; Server = sdk.FastMCP`).
        # Set by the binding pass; empty outside a branch and after it.
        self.bound_in_branch: set[int] = set()
        # `from module import *` is allowed at module level only.
        self.star_imports = tuple(
            self.absolute_module(node)
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        )

    def qualify(self, node: ast.expr, scope: Scope) -> str | None:
        """The qualified name a Name or dotted Attribute refers to; None for other expressions."""
        kind = type(node)  # parsed nodes are of the exact classes
        if kind is ast.Name:
            name = node.id
            for names in scope.chain:  # `scope.lookup`, the most asked: written out
                symbol = names.get(name)
                if symbol is not None:
                    break
            else:
                builtin = _BUILTIN_NAMES.get(name)
                if builtin is not None:
                    return builtin
                # A name a star import may bind: the linker looks in those modules.
                return f"{STAR}{name}" if self.star_imports else f"?{name}"
            if symbol.kind is SymbolKind.EXPRESSION:
                return self.qualify(symbol.node, symbol.scope)
            if symbol.kind in (SymbolKind.IMPORT, SymbolKind.CLASS, SymbolKind.ALIAS):
                return symbol.qualified
            if symbol.kind is SymbolKind.FUNCTION:
                return f"{self.module}.{symbol.qualname}"
            return f"?{name}"
        if kind is ast.Attribute:
            base = self.qualify(node.value, scope)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def alternatives(self, node: ast.expr, scope: Scope) -> tuple[str, ...]:
        """The other qualified names a Name (or a dotted Attribute on one) may refer to at run
        time, bound in other branches (`Symbol.alternatives`); `qualify` gives the last."""
        root = node
        suffix = ""
        while type(root) is ast.Attribute:
            suffix = f".{root.attr}{suffix}"
            root = root.value
        if type(root) is not ast.Name:
            return ()
        symbol = scope.lookup(root.id)
        if symbol is None or not symbol.alternatives or id(symbol) in self.bound_in_branch:
            return ()
        return tuple(
            other if other == OTHER_BINDING else f"{other}{suffix}" for other in symbol.alternatives
        )

    def absolute_module(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = self.package.split(".") if self.package else []
        base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        return ".".join([*base, node.module] if node.module else base)
