"""The servers a module puts where the analysis does not follow them: an item, an attribute of
anything but `self`, a literal container, an argument of a call it does not follow. Code that
reads them back may register tools on them, where the analysis does not look."""

from __future__ import annotations

import ast

from mcp_codemod.analysis.facts import ServerRef
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.scope import STANDARD_LIBRARY, ClassContext, Scope, SymbolKind

# Statements that may put a value where the analysis does not follow it (`stores_in`).
MAY_STORE = frozenset((ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr))
_SEQUENCES = frozenset((ast.List, ast.Tuple, ast.Set))
_CONTAINER_NAMES = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set", ast.Dict: "dictionary"}


class ServerStores:
    """Collects a module's stores of a server."""

    def __init__(self, text: SourceText, references: References) -> None:
        self.text = text
        self.references = references
        # Each store once, in the order met: a dict, since a module can store thousands.
        self.stores: dict[tuple[int, ServerRef, str], None] = {}

    def stores_in(
        self,
        node: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Return | ast.Expr,
        scope: Scope,
        cls: ClassContext | None,
    ) -> None:
        """The server object put where the analysis does not follow it: an item, or an
        attribute of anything but `self` (`servers[name] = mcp`, `state.server = mcp`), or a
        literal container (`servers = [mcp]`, `{"a": mcp}`, `return mcp, app`, `yield
        {"server": mcp}`). Code that reads it back may register tools on it. Binding a name
        (also `a, b = mcp, app`) and `self.mcp = mcp` are followed."""
        value = node.value
        kind = type(node)
        if kind is ast.Expr:
            if type(value) is not ast.Yield:
                return
            value = value.value  # type: ignore[union-attr]
        elif kind is not ast.Return:
            targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[union-attr]
            if value is not None:
                for target in targets:
                    if type(target) is ast.Subscript or (
                        type(target) is ast.Attribute and not _is_self(target.value, cls)
                    ):
                        use = f"stored in `{self.text.label(target)}`"
                        self.store(value, node.lineno, use, scope, cls)
            if kind is ast.Assign and any(type(t) in (ast.Tuple, ast.List) for t in targets):
                return  # unpacking binds names
        if value is not None:
            self.store_elements(value, node.lineno, scope, cls)

    def store_elements(
        self, value: ast.expr, line: int, scope: Scope, cls: ClassContext | None
    ) -> None:
        """The server among the elements of a literal container (nested ones too)."""
        kind = type(value)
        if kind is ast.Dict:
            elements = [*filter(None, value.keys), *value.values]  # type: ignore[attr-defined]
        elif kind in _SEQUENCES:
            elements = value.elts  # type: ignore[attr-defined]
        else:
            return
        for element in elements:
            if type(element) is ast.Starred:
                element = element.value
            if type(element) in _CONTAINER_NAMES:
                self.store_elements(element, line, scope, cls)
            else:
                self.store(element, line, f"stored in a {_CONTAINER_NAMES[kind]}", scope, cls)

    def given_on(
        self, call: ast.Call, scope: Scope, cls: ClassContext | None, first: int = 0
    ) -> None:
        """The server passed to a call the analysis does not follow (`registry.append(mcp)`,
        `setattr(state, "server", mcp)`): that code may keep it. The arguments before `first`
        are not kept (`setattr`'s object and name)."""
        use = f"given to `{self.text.label(call.func)}`"
        for argument in (*call.args[first:], *(k.value for k in call.keywords)):
            if type(argument) is ast.Starred:
                argument = argument.value
            self.store(argument, call.lineno, use, scope, cls)

    def store(
        self, value: ast.expr, line: int, use: str, scope: Scope, cls: ClassContext | None
    ) -> None:
        server = self.stored_server(value, scope, cls)
        if server is not None:
            self.stores[line, server, use] = None

    def stored_server(
        self, node: ast.expr, scope: Scope, cls: ClassContext | None
    ) -> ServerRef | None:
        """The server an expression may be: a name bound to one (made here, imported, a
        parameter) or `self.<attribute>` holding one; not what the standard library makes."""
        kind = type(node)
        if kind is ast.Name:
            symbol = scope.lookup(node.id)  # type: ignore[attr-defined]
            if symbol is None:
                return None
            if symbol.kind is SymbolKind.EXPRESSION:
                return self.stored_server(symbol.node, symbol.scope, cls)  # type: ignore[arg-type]
            if symbol.kind is SymbolKind.IMPORT:
                server = self.references.imported_server(symbol.qualified)
            elif symbol.kind is SymbolKind.SERVER:
                server = symbol.server
            else:
                return None
        elif kind is ast.Attribute and cls is not None and _is_self(node.value, cls):  # type: ignore[attr-defined]
            server = cls.attributes.get(node.attr)  # type: ignore[attr-defined]
        else:
            return None
        if server is None or server.qualified.partition(".")[0] in STANDARD_LIBRARY:
            return None
        return server


def _is_self(node: ast.expr, cls: ClassContext | None) -> bool:
    return cls is not None and type(node) is ast.Name and node.id == cls.self_name
