"""Loops over literal collections: `for fn in [a, b]: mcp.tool()(fn)` registers `a` and `b`.

A loop over a list, tuple, set or dict literal (written in the loop, or bound once to a name of
the module or function and never changed in place) is walked once per element, with the loop
variables bound to that element. Any other loop binds its variables to what cannot be resolved:
a tool registered through one is unchecked, never guessed at.
"""

from __future__ import annotations

import ast
import re

from mcp_codemod.analysis.facts import FunctionKind, FunctionRef
from mcp_codemod.analysis.scan.positions import SourceText
from mcp_codemod.analysis.scan.references import References
from mcp_codemod.analysis.scan.scope import Names, Scope, Symbol, SymbolKind

_DICT_VIEWS = ("items", "values", "keys")
# After a name: changed in place (`name.append(`, `name +=`, `name |=`, `name[key] =`).
_CHANGED = re.compile(
    r"\b\s*(?:\.\s*(?:append|extend|insert|add|update|setdefault)\b|\[[^\]\n]*\]\s*=[^=]|[+|]=)"
)


class Loops:
    def __init__(self, text: SourceText, names: Names) -> None:
        self.text = text
        self.names = names
        self.changed: dict[str, bool] = {}

    def body_scopes(self, node: ast.For | ast.AsyncFor, scope: Scope) -> list[Scope]:
        """A scope for each walk of the loop's body: one per element of a literal collection."""
        found = self.elements(node.iter, scope)
        if found is None:
            collection = self.names.qualify(node.iter, scope)
            if collection is None or collection.startswith("?"):
                loop = FunctionRef(FunctionKind.LOOP, text=self.text.label(node.iter))
            else:
                loop = FunctionRef(FunctionKind.LOOP, collection=collection)
            return [Scope(scope.qualname, scope, _bind_unknown(node.target, loop))]
        elements, element_scope = found
        if all(_is_constant(element) for element in elements):
            # Strings, numbers: nothing a tool can be. One walk is enough.
            constants = {
                n.id: Symbol(SymbolKind.OTHER)
                for n in ast.walk(node.target)
                if isinstance(n, ast.Name)
            }
            return [Scope(scope.qualname, scope, constants)]
        return [
            Scope(scope.qualname, scope, self.bind(node.target, element, element_scope))
            for element in elements
        ]

    def elements(self, node: ast.expr, scope: Scope) -> tuple[list[ast.expr], Scope] | None:
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            if any(isinstance(element, ast.Starred) for element in node.elts):
                return None
            return list(node.elts), scope
        if isinstance(node, ast.Dict):
            return self.dict_view(node, "keys", scope)
        if isinstance(node, ast.Name):
            collection = self.collection(node, scope)
            return self.elements(*collection) if collection else None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _DICT_VIEWS
            and not node.args
            and not node.keywords
        ):
            owner = node.func.value
            if isinstance(owner, ast.Name):
                collection = self.collection(owner, scope)
                if collection is None:
                    return None
                owner, scope = collection
            if isinstance(owner, ast.Dict):
                return self.dict_view(owner, node.func.attr, scope)
        return None

    def dict_view(
        self, node: ast.Dict, view: str, scope: Scope
    ) -> tuple[list[ast.expr], Scope] | None:
        if any(key is None for key in node.keys):  # `{**other}`
            return None
        keys: list[ast.expr] = list(node.keys)  # type: ignore[arg-type]
        if view == "keys":
            return keys, scope
        if view == "values":
            return list(node.values), scope
        return [
            ast.Tuple([k, v], ast.Load()) for k, v in zip(keys, node.values, strict=True)
        ], scope

    def collection(self, node: ast.Name, scope: Scope) -> tuple[ast.expr, Scope] | None:
        """The literal a name is bound to, and the scope that binds it."""
        owner = scope.owner(node.id)
        if owner is None:
            return None
        symbol = owner.names[node.id]
        # The text is searched last: most loops are over names bound to no literal.
        if (
            symbol.kind is not SymbolKind.COLLECTION
            or symbol.node is None
            or self.changed_in_place(node.id)
        ):
            return None
        return symbol.node, owner

    def changed_in_place(self, name: str) -> bool:
        """Whether the module's text may add to the collection (`tools.append(x)`, `tools += y`,
        `tools[k] = v`): then it is built at run time."""
        if name not in self.changed:
            source = self.text.source
            changed = False
            start = source.find(name)
            while start >= 0 and not changed:
                end = start + len(name)
                changed = (start == 0 or not _is_word(source[start - 1])) and bool(
                    _CHANGED.match(source, end)
                )
                start = source.find(name, end)
            self.changed[name] = changed
        return self.changed[name]

    def bind(self, target: ast.expr, element: ast.expr, scope: Scope) -> dict[str, Symbol]:
        if isinstance(target, ast.Name):
            if _is_constant(element):
                return {target.id: Symbol(SymbolKind.OTHER)}
            return {target.id: Symbol(SymbolKind.EXPRESSION, node=element, scope=scope)}
        if isinstance(target, ast.Tuple | ast.List):
            if (
                isinstance(element, ast.Tuple | ast.List)
                and len(element.elts) == len(target.elts)
                and not any(isinstance(e, ast.Starred) for e in (*element.elts, *target.elts))
            ):
                bound: dict[str, Symbol] = {}
                for inner_target, inner in zip(target.elts, element.elts, strict=True):
                    bound.update(self.bind(inner_target, inner, scope))
                return bound
            return _bind_unknown(
                target, FunctionRef(FunctionKind.LOOP, text=self.text.label(element))
            )
        return {}

    def exports(self, names: dict[str, Symbol]) -> tuple[str, ...] | None:
        """A literal `__all__`: what `from module import *` brings in."""
        symbol = names.get("__all__")
        if (
            symbol is None
            or symbol.kind is not SymbolKind.COLLECTION
            or self.changed_in_place("__all__")
        ):
            return None
        if not isinstance(symbol.node, ast.List | ast.Tuple):
            return None
        values = [e.value for e in symbol.node.elts if isinstance(e, ast.Constant)]
        if len(values) != len(symbol.node.elts) or not all(isinstance(v, str) for v in values):
            return None
        return tuple(values)

    def collections(
        self, scope: Scope, references: References
    ) -> dict[str, tuple[FunctionRef | None, ...]]:
        """Module-level literal sequences that hold functions, for loops in other modules."""
        found = {}
        for name, symbol in scope.names.items():
            if symbol.kind is not SymbolKind.COLLECTION or not isinstance(
                symbol.node, ast.List | ast.Tuple | ast.Set
            ):
                continue
            if any(isinstance(e, ast.Starred) for e in symbol.node.elts):
                continue
            functions = tuple(
                references.function_argument(element, scope, None) for element in symbol.node.elts
            )
            # A call of a project function may make a tool with a generated signature.
            follows = any(
                f is not None and (f.kind is not FunctionKind.UNKNOWN or f.factory is not None)
                for f in functions
            )
            if follows and not self.changed_in_place(name):
                found[name] = functions
        return found


def _bind_unknown(target: ast.expr, loop: FunctionRef) -> dict[str, Symbol]:
    """Each name of a loop's target, bound to what a loop over no literal in sight gives."""
    return {
        node.id: Symbol(SymbolKind.LOOP, function=loop)
        for node in ast.walk(target)
        if isinstance(node, ast.Name)
    }


def _is_word(character: str) -> bool:
    return character.isalnum() or character == "_"


def _is_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple | ast.List):
        return all(_is_constant(element) for element in node.elts)
    return isinstance(node, ast.Constant | ast.JoinedStr)
