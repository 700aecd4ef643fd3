"""Scopes and names: what a name in a module, function or class body refers to."""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from mcp_codemod.analysis.facts import ServerRef

_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(frozen=True)
class Symbol:
    kind: str  # import | function | method | class | alias | server | other
    target: str = ""
    method: str = ""  # for a method: its name; `target` is the instance's class
    server: ServerRef | None = None


@dataclass
class Scope:
    qualname: str  # "" for the module
    parent: Scope | None
    names: dict[str, Symbol] = field(default_factory=dict)

    def lookup(self, name: str) -> Symbol | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
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

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]

    def qualify(self, node: ast.expr, scope: Scope) -> str | None:
        """The qualified name a Name or dotted Attribute refers to; None for other expressions."""
        if isinstance(node, ast.Name):
            symbol = scope.lookup(node.id)
            if symbol is None:
                return f"builtins.{node.id}" if node.id in _BUILTIN_NAMES else f"?{node.id}"
            if symbol.kind in ("import", "class", "alias"):
                return symbol.target
            if symbol.kind == "function":
                return f"{self.module}.{symbol.target}"
            return f"?{node.id}"
        if isinstance(node, ast.Attribute):
            base = self.qualify(node.value, scope)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def absolute_module(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = self.package.split(".") if self.package else []
        base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        return ".".join([*base, node.module] if node.module else base)
