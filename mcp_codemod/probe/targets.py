"""Loading a probe target: the server object named by `path/to/server.py[:attr]` or
`package.module[:attr]` (or the server a factory named so returns), or the one server a module
defines."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from mcp_codemod.engine.module_paths import module_name
from mcp_codemod.probe.argument_handling import is_server


class TargetError(Exception):
    """The probe target cannot be imported, or names nothing."""


def load_target(target: str) -> Any:
    """The object named by `path/to/server.py[:attr]` or `package.module[:attr]`; without
    `:attr`, the one server defined or imported at the module's top level. A function named
    there (`server.py:create_server`) is a factory, as fastmcp's CLI takes one: called with no
    arguments (and awaited when it is a coroutine function), it gives the server."""
    where, colon, attribute = target.rpartition(":")
    if not colon:
        where, attribute = target, ""
    if not where or (colon and not attribute):
        raise TargetError(f"{target!r} is not MODULE[:ATTRIBUTE] or PATH.py[:ATTRIBUTE]")
    module, name = load_module(where)
    if not attribute:
        return _only_server(module, where)
    found = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise TargetError(f"module {name} has no attribute {attribute!r}") from None
    if is_server(found) or not _is_factory(found):
        return found
    return _call_factory(found, f"{name}:{attribute}")


def _is_factory(value: Any) -> bool:
    # A class is not a factory: `server.py:FastMCP` would make a server without tools.
    return callable(value) and not isinstance(value, type)


def _call_factory(factory: Any, where: str) -> Any:
    try:
        made = factory()
        if inspect.isawaitable(made):
            made = asyncio.run(_awaited(made))
    except (Exception, SystemExit) as error:
        raise TargetError(
            f"cannot make the server: {where}() raised {type(error).__name__}: {error}"
        ) from error
    return made


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def load_module(where: str) -> tuple[Any, str]:
    """The module `where` names (`package.module` or `path/to/module.py`), imported, and its
    dotted name: what `probe --import` loads so that the tools it registers are on the server."""
    if where.endswith(".py") or "/" in where or "\\" in where:
        return _load_file(Path(where))
    return _import(where), where


def target_module(target: str) -> str:
    """The dotted name of the module a loaded target names."""
    where = target.rpartition(":")[0] or target
    if where.endswith(".py") or "/" in where or "\\" in where:
        return module_name(Path(where))[0]
    return where


def _load_file(path: Path) -> tuple[Any, str]:
    if not path.is_file():
        raise TargetError(f"{path}: no such file")
    name, root, _ = module_name(path)
    # The package root makes relative imports work; the file's own directory, the sibling
    # imports of a script that is run directly.
    for directory in (str(path.resolve().parent), str(root)):
        if directory not in sys.path:
            sys.path.insert(0, directory)
    if not path.stem.isidentifier():
        # `server.orig.py`, `my-server.py`: no import statement can name it, so it is loaded
        # from its path, under its package (for relative imports) and an identifier of its own.
        stem = "".join(c if c.isalnum() else "_" for c in path.stem)
        name = f"{module_name(path.parent / '__init__.py')[0]}.{stem}".lstrip(".")
        return _load_path(path, name), name
    module = _import(name)
    if Path(getattr(module, "__file__", "") or "").resolve() != path.resolve():
        raise TargetError(f"{path}: the module name {name!r} is taken by {module.__file__}")
    return module, name


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit) as error:
        raise TargetError(f"cannot import {name}: {type(error).__name__}: {error}") from error


def _load_path(path: Path, name: str) -> Any:
    import importlib.util

    loaded = sys.modules.get(name)
    if (
        loaded is not None
        and Path(getattr(loaded, "__file__", "") or "").resolve() == path.resolve()
    ):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file always has a source loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        del sys.modules[name]
        raise TargetError(f"cannot import {path}: {type(error).__name__}: {error}") from error
    return module


def _only_server(module: Any, where: str) -> Any:
    servers: dict[int, tuple[str, Any]] = {}
    for attribute, value in vars(module).items():
        if is_server(value):
            servers.setdefault(id(value), (attribute, value))
    if len(servers) == 1:
        return next(iter(servers.values()))[1]
    if not servers:
        raise TargetError(
            f"{where} has no server at its top level (an mcp FastMCP, an mcp MCPServer or a "
            f"fastmcp.FastMCP); name one as {where}:ATTRIBUTE"
        )
    names = [attribute for attribute, _ in servers.values()]
    raise TargetError(
        f"{where} has {len(names)} servers ({', '.join(names)}); name one as {where}:{names[0]}"
    )
