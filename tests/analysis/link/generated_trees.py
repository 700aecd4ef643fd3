"""Trees that grow linearly in N, one for each kind of resolution the analysis does: what
tests/analysis/link/test_work_growth.py counts the work of, and bench/run.py times."""

from __future__ import annotations

from collections.abc import Callable

SERVER = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("app")\n'
TOOL = """

def {name}(query: str | None = None) -> str:
    return query or ""
"""
Tree = dict[str, str]


def retrying_clients(n: int) -> Tree:
    """Clients whose method stores what it is given and retries by calling itself with it (the
    shape that made `check` hang on a published server), none given a server."""
    classes = []
    for index in range(n):
        retries = "".join(
            f"        if attempt == {k}:\n            return self.send(payload, attempt + 1)\n"
            for k in range(3)
        )
        classes.append(
            f"class Client{index}:\n    def __init__(self):\n        self.sent = {{}}\n\n"
            f"    def send(self, payload, attempt=0):\n        self.sent['last'] = payload\n"
            f"{retries}        return None\n\n\nClient{index}().send('hello')\n\n\n"
        )
    # In the server's module: a module with no server or registration word is never read.
    return {"server.py": SERVER + "@mcp.tool()" + TOOL.format(name="f") + "\n\n" + "".join(classes)}


def mutually_recursive_stores(n: int) -> Tree:
    """Pairs of methods that store their parameter and call each other with it."""
    classes = []
    for index in range(n):
        classes.append(
            f"class Pair{index}:\n    def __init__(self):\n        self.kept = {{}}\n\n"
            "    def ping(self, value, depth=0):\n        self.kept['ping'] = value\n"
            "        return self.pong(value, depth + 1)\n\n"
            "    def pong(self, value, depth=0):\n        self.kept['pong'] = value\n"
            "        return self.ping(value, depth + 1)\n\n\n"
            f"Pair{index}().ping(object())\n\n\n"
        )
    # In the server's module: a module with no server or registration word is never read.
    return {"server.py": SERVER + "@mcp.tool()" + TOOL.format(name="f") + "\n\n" + "".join(classes)}


def retrying_registrars(n: int) -> Tree:
    """Registrars that register what they are given, retrying by calling themselves with it."""
    parts = [SERVER]
    for index in range(n):
        retries = "".join(
            f"    if attempt == {k}:\n        return register{index}(fn, attempt + 1)\n"
            for k in range(3)
        )
        parts.append(
            f"\n\ndef register{index}(fn, attempt=0):\n{retries}    mcp.tool()(fn)\n"
            + TOOL.format(name=f"tool{index}")
            + f"\n\nregister{index}(tool{index})\n"
        )
    return {"server.py": "".join(parts)}


def server_through_helpers(n: int) -> Tree:
    """The server handed from helper to helper, each registering a tool on it."""
    parts = [SERVER]
    for index in range(n):
        handed = f"    step{index + 1}(server)\n" if index + 1 < n else ""
        parts.append(
            f"\n\ndef step{index}(server):\n{handed}"
            f"    @server.tool()\n    def tool{index}(query: str | None = None) -> str:\n"
            "        return query or ''\n"
        )
    parts.append("\n\nstep0(mcp)\n")
    return {"server.py": "".join(parts)}


def tool_modules(n: int) -> Tree:
    """Modules that each register their tools through the project's helper."""
    tree = {
        "app/__init__.py": "",
        "app/server.py": SERVER,
        "app/registry.py": "from app.server import mcp\n\n\ndef register(fn):\n    mcp.tool()(fn)\n    return fn\n",
    }
    for index in range(n):
        tree[f"app/tools{index}.py"] = (
            "from app.registry import register\n"
            + TOOL.format(name=f"tool{index}")
            + f"\n\nregister(tool{index})\n"
        )
    return tree


def many_functions(n: int) -> Tree:
    """One server module with a tool and N functions that store, call and pass values."""
    parts = [SERVER, "@mcp.tool()", TOOL.format(name="f")]
    for index in range(n):
        parts.append(
            f"\n\ndef helper{index}(value, options=None):\n    cache = {{'value': value}}\n"
            f"    return helper{max(index - 1, 0)}(value, cache) or mcp.name\n"
        )
    return {"server.py": "".join(parts)}


def reexport_chain(n: int) -> Tree:
    """The server re-exported along a chain of N modules, and an alias chain of N names."""
    tree = {"pkg/__init__.py": "", "pkg/m0.py": SERVER}
    for index in range(1, n):
        tree[f"pkg/m{index}.py"] = f"from pkg.m{index - 1} import mcp\n"
    aliases = "".join(f"T{index} = T{index - 1}\n" for index in range(1, n))
    tree["pkg/tools.py"] = (
        f"from pkg.m{n - 1} import mcp\n\nT0 = str | None\n{aliases}\n\n"
        f"@mcp.tool()\ndef f(query: T{n - 1} = None) -> str:\n    return query or ''\n"
    )
    return tree


def wide_hierarchy(n: int) -> Tree:
    """N project classes deriving from one server subclass, each with its own instance and tool."""
    parts = ["from mcp.server.fastmcp import FastMCP\n\n\nclass Base(FastMCP):\n    pass\n"]
    for index in range(n):
        parts.append(
            f"\n\nclass Server{index}(Base):\n    pass\n\n\nserver{index} = Server{index}('s')\n\n\n"
            f"@server{index}.tool()\ndef tool{index}(query: str | None = None) -> str:\n"
            "    return query or ''\n"
        )
    return {"server.py": "".join(parts)}


def servers_out_of_sight(n: int) -> Tree:
    """N modules of one package, each building a server and registering a tool on a server
    parameter no caller passes: the fix guards every server the package builds for it."""
    return {
        f"server_{index}.py": SERVER
        + "\n\n@mcp.tool()"
        + TOOL.format(name=f"search_{index}")
        + f"\n\ndef register_{index}(server: FastMCP) -> None:\n"
        + "    @server.tool()"
        + TOOL.format(name=f"tag_{index}").replace("\n", "\n    ")
        for index in range(n)
    }


TREES: dict[str, Callable[[int], Tree]] = {
    "self-recursive methods that store their parameters": retrying_clients,
    "mutually recursive methods that store their parameters": mutually_recursive_stores,
    "self-recursive registrars": retrying_registrars,
    "the server handed through N helpers": server_through_helpers,
    "N tool modules registering through a helper": tool_modules,
    "one module with N functions": many_functions,
    "re-export and alias chains": reexport_chain,
    "a wide class hierarchy": wide_hierarchy,
    "servers built out of sight": servers_out_of_sight,
}
