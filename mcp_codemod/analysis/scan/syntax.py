"""Shapes of statements and calls, independent of what their names mean."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

_TRIES = (ast.Try, *([ast.TryStar] if hasattr(ast, "TryStar") else []))  # Python 3.11+


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a body, also inside compound statements and nested functions."""
    pending = list(body)
    while pending:
        statement = pending.pop()
        yield statement
        if type(statement) in COMPOUND_STATEMENTS:
            for nested in nested_bodies(statement):
                pending.extend(nested)


# What can hold a statement: a statement, an `except` clause, a `case` (never an expression).
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def statement_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """The module, its statements, `except` clauses and `case`s, in the order `ast.walk` meets
    them, without walking the expressions: walk's order is breadth first, and every node that
    holds a statement is itself one of these (or the module), so the walk restricted to them
    meets them in the same order."""
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(item for item in value if isinstance(item, _HOLDS_STATEMENTS))
            elif isinstance(value, _HOLDS_STATEMENTS):
                todo.append(value)
        yield node


def root_calls(node: ast.AST) -> list[ast.Call]:
    """The calls a simple statement makes: `f(x)`, `y = f(x)`, `return f(x)`, `await f(x)`, and
    each call of a chain whose method is called on the result of another: `Handler(mcp)` in
    `Handler(mcp).register()` passes the server as surely as `handler = Handler(mcp)` does."""
    value = getattr(node, "value", node)
    if type(value) is ast.Await:  # parsed nodes are of the exact classes
        value = value.value
    calls = []
    while type(value) is ast.Call:
        calls.append(value)
        value = value.func.value if type(value.func) is ast.Attribute else None
    return calls


# Nodes that hold no call however deep: `calls_within` does not look into them.
_CALL_FREE = frozenset(
    (
        ast.Name,
        ast.Constant,
        *(
            kind
            for base in (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
            for kind in base.__subclasses__()
        ),
    )
)


def calls_within(node: ast.AST) -> list[ast.Call]:
    """Every call in a node, in `ast.walk`'s order (breadth first), which leaving out subtrees
    without calls does not change."""
    found = []
    pending = deque((node,))
    while pending:
        current = pending.popleft()
        if isinstance(current, ast.Call):
            found.append(current)
        for name in current._fields:
            child = getattr(current, name, None)
            if isinstance(child, list):
                pending.extend(
                    c for c in child if isinstance(c, ast.AST) and type(c) not in _CALL_FREE
                )
            elif isinstance(child, ast.AST) and type(child) not in _CALL_FREE:
                pending.append(child)
    return found


def nested_bodies(node: ast.stmt) -> list[list[ast.stmt]]:
    bodies = _NESTED_BODIES.get(type(node))
    return bodies(node) if bodies is not None else []  # most statements: none


def _two_bodies(node: ast.If) -> list[list[ast.stmt]]:
    # `body` and `orelse`, the field most often empty (a body never is)
    return [node.body, node.orelse] if node.orelse else [node.body]


def _one_body(node: ast.FunctionDef) -> list[list[ast.stmt]]:
    return [node.body]


def _match_bodies(node: ast.Match) -> list[list[ast.stmt]]:
    return [case.body for case in node.cases]


def _try_bodies(node: ast.Try) -> list[list[ast.stmt]]:
    bodies = [body for body in (node.body, node.orelse, node.finalbody) if body]
    return bodies + [handler.body for handler in node.handlers]


# The statements that hold statements, and how `nested_bodies` reads each one's bodies.
_NESTED_BODIES = {
    ast.If: _two_bodies,
    ast.For: _two_bodies,
    ast.AsyncFor: _two_bodies,
    ast.While: _two_bodies,
    ast.With: _one_body,
    ast.AsyncWith: _one_body,
    ast.Match: _match_bodies,
    ast.FunctionDef: _one_body,
    ast.AsyncFunctionDef: _one_body,
    ast.ClassDef: _one_body,
    **dict.fromkeys(_TRIES, _try_bodies),
}
COMPOUND_STATEMENTS = frozenset(_NESTED_BODIES)


def header_expressions(node: ast.stmt) -> list[ast.AST]:
    """The expressions of a compound statement outside its bodies (`with x.tool(...)`, `if ...`):
    its `test`, `iter`, `items` or `subject`."""
    kind = type(node)
    if kind is ast.If or kind is ast.While:
        return [node.test]  # type: ignore[attr-defined]
    if kind is ast.With or kind is ast.AsyncWith:
        return list(node.items)  # type: ignore[attr-defined]
    if kind is ast.For or kind is ast.AsyncFor:
        return [node.iter]  # type: ignore[attr-defined]
    if kind is ast.Match:
        return [node.subject]  # type: ignore[attr-defined]
    return []


def keyword(call: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg in names), None)


def constant_keyword(call: ast.Call, name: str) -> str | None:
    value = keyword(call, name)
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    return None


def is_super(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def last_name(node: ast.expr) -> str:
    """The name an expression ends with: `f` in `f` and in `a.b.f`, else empty."""
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined]
    return node.attr if kind is ast.Attribute else ""  # type: ignore[attr-defined]
