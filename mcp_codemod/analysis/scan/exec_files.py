"""Files a module runs in its own namespace: a module-level `exec(compile(text, path, "exec"))`
or `exec(open(path).read())` whose path is a file beside the module, written from `__file__`
(`os.path.join(os.path.dirname(os.path.realpath(__file__)), "generated.py")`, or
`Path(__file__).parent / "generated.py"`, through module-level names bound once).

The exec'd file's names that it never binds are the module's (`linker`). The text that runs is
the file's when it is read from the file, or when the module writes that very text to the file
before it runs it (a file generated at each start); any other text is recorded as such, and the
file's tools stay unchecked. A path relative to the working directory, or any other expression, is
no file in sight: nothing is recorded.
"""

from __future__ import annotations

import ast
import posixpath

from mcp_codemod.analysis.facts import ExecFile, ExecText
from mcp_codemod.analysis.scan.scope import Names, Scope
from mcp_codemod.analysis.scan.syntax import nested_bodies

_MODULE_FILE = "<file>"  # the module's own path; any other location is relative to its folder
_IDENTITY = frozenset(("os.path.realpath", "os.path.abspath", "os.path.normpath", "pathlib.Path"))
_MAX_DEPTH = 8  # names bound to names bound to ...: longer chains are not followed


def exec_files(tree: ast.Module, names: Names, scope: Scope) -> tuple[ExecFile, ...]:
    calls = [
        (index, statement.value)
        for index, statement in enumerate(tree.body)
        if isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "exec"
    ]
    if not calls:
        return ()
    reader = _Locations(tree, names, scope)
    found = []
    for index, call in calls:
        if names.qualify(call.func, scope) != "builtins.exec" or len(call.args) != 1:
            continue  # a second argument runs the text in another namespace
        found.extend(reader.exec_file(tree.body, index, call.args[0]))
    return tuple(found)


def bound_once(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound exactly once, outside functions and classes: their value."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for statement in _module_level(tree.body):
        for name, value in _bindings(statement):
            counts[name] = counts.get(name, 0) + 1
            if value is not None:
                values[name] = value
    return {n: v for n, v in values.items() if counts[n] == 1}


class _Locations:
    def __init__(self, tree: ast.Module, names: Names, scope: Scope) -> None:
        self.names = names
        self.scope = scope
        self.values = bound_once(tree)

    def exec_file(self, body: list[ast.stmt], index: int, text: ast.expr) -> list[ExecFile]:
        line = body[index].lineno
        if isinstance(text, ast.Call) and self.qualify(text.func) == "builtins.compile":
            arguments = text.args
            if len(arguments) < 3 or not _is_constant(arguments[2], "exec"):
                return []
            path = self.location(arguments[1])
            if path is None or path == _MODULE_FILE:
                return []
            if self.read_from(arguments[0]) == path:
                kind = ExecText.FILE
            elif self.written_before(body, index, arguments[0], path):
                kind = ExecText.GENERATED
            else:
                kind = ExecText.OTHER
            return [ExecFile(path, kind, line)]
        path = self.read_from(text)
        if path is None or path == _MODULE_FILE:
            return []
        return [ExecFile(path, ExecText.FILE, line)]

    def qualify(self, node: ast.expr) -> str | None:
        return self.names.qualify(node, self.scope)

    def location(self, node: ast.expr, depth: int = 0) -> str | None:
        """`_MODULE_FILE`, or a path relative to the module's folder ("." for the folder)."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Name):
            if node.id == "__file__" and self.scope.lookup(node.id) is None:
                return _MODULE_FILE
            value = self.values.get(node.id)
            return self.location(value, depth + 1) if value is not None else None
        if isinstance(node, ast.Attribute) and node.attr == "parent":  # `Path(__file__).parent`
            return _folder(self.location(node.value, depth + 1))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # `folder / "x.py"`
            return _joined(self.location(node.left, depth + 1), [node.right])
        if not isinstance(node, ast.Call) or node.keywords:
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr == "resolve" and not node.args:
            return self.location(node.func.value, depth + 1)
        function = self.qualify(node.func)
        if function in _IDENTITY and len(node.args) == 1:
            return self.location(node.args[0], depth + 1)
        if function == "os.path.dirname" and len(node.args) == 1:
            return _folder(self.location(node.args[0], depth + 1))
        if function == "os.path.join" and node.args:
            return _joined(self.location(node.args[0], depth + 1), node.args[1:])
        return None

    def read_from(self, node: ast.expr) -> str | None:
        """The file whose text `open(path).read()` or `Path(path).read_text()` is."""
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return None
        opened = node.func.value
        if node.func.attr == "read_text":
            return self.location(opened)
        if (
            node.func.attr == "read"
            and not node.args
            and isinstance(opened, ast.Call)
            and self.qualify(opened.func) == "builtins.open"
            and opened.args
        ):
            return self.location(opened.args[0])
        return None

    def written_before(self, body: list[ast.stmt], index: int, text: ast.expr, path: str) -> bool:
        """Whether a module-level statement before the `exec` writes `text` (a name, as it is,
        encoded, or with line endings normalised) to `path`, and nothing between rebinds it."""
        if not isinstance(text, ast.Name):
            return False
        for position in range(index - 1, -1, -1):
            statement = body[position]
            if self.writes(statement, text.id, path):
                return True
            if any(name == text.id for s in _module_level([statement]) for name, _ in _bindings(s)):
                return False
        return False

    def writes(self, statement: ast.stmt, name: str, path: str) -> bool:
        for node in _module_level([statement]):
            if not isinstance(node, ast.With):
                continue
            for item in node.items:
                opened = item.context_expr
                if (
                    isinstance(opened, ast.Call)
                    and self.qualify(opened.func) == "builtins.open"
                    and opened.args
                    and self.location(opened.args[0]) == path
                    and "w" in _mode(opened)
                    and isinstance(item.optional_vars, ast.Name)
                    and self.writes_text(node.body, item.optional_vars.id, name)
                ):
                    return True
        return False

    def writes_text(self, body: list[ast.stmt], handle: str, name: str) -> bool:
        for statement in _module_level(body):
            call = statement.value if isinstance(statement, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "write"
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == handle
                and len(call.args) == 1
                and self.derived_from(call.args[0], name)
            ):
                return True
        return False

    def derived_from(self, node: ast.expr, name: str, depth: int = 0) -> bool:
        """`name`, or `name.encode(...)` / `.replace(...)` chains on it, through names."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(node, ast.Name):
            if node.id == name:
                return True
            value = self.values.get(node.id)
            return value is not None and self.derived_from(value, name, depth + 1)
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("encode", "replace")
            and self.derived_from(node.func.value, name, depth + 1)
        )


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body and of its `if`/`try`/`with`/loop bodies, not of functions or
    classes (which do not run at import)."""
    found = []
    pending = list(body)
    while pending:
        statement = pending.pop(0)
        found.append(statement)
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for nested in nested_bodies(statement):
                pending.extend(nested)
    return found


def _bindings(statement: ast.stmt) -> list[tuple[str, ast.expr | None]]:
    """The names a statement binds by assignment, with the value when it is the whole value."""
    if isinstance(statement, ast.Assign):
        whole = len(statement.targets) == 1
        return [
            (target.id, statement.value if whole else None)
            for target in statement.targets
            if isinstance(target, ast.Name)
        ]
    if isinstance(statement, ast.AnnAssign | ast.AugAssign) and isinstance(
        statement.target, ast.Name
    ):
        value = statement.value if isinstance(statement, ast.AnnAssign) else None
        return [(statement.target.id, value)]
    if isinstance(statement, ast.For | ast.AsyncFor) and isinstance(statement.target, ast.Name):
        return [(statement.target.id, None)]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [
            (item.optional_vars.id, None)
            for item in statement.items
            if isinstance(item.optional_vars, ast.Name)
        ]
    return []


def _folder(location: str | None) -> str | None:
    if location is None:
        return None
    if location == _MODULE_FILE:
        return "."
    return posixpath.normpath(posixpath.join(location, ".."))


def _joined(folder: str | None, parts: list[ast.expr]) -> str | None:
    if folder is None or folder == _MODULE_FILE:
        return None
    if not all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in parts):
        return None
    joined = posixpath.normpath(posixpath.join(folder, *(p.value for p in parts)))  # type: ignore[union-attr]
    return None if joined.startswith("/") else joined


def _mode(opened: ast.Call) -> str:
    mode = opened.args[1] if len(opened.args) > 1 else None
    for keyword in opened.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else ""


def _is_constant(node: ast.expr, value: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == value
