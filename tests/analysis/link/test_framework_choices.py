"""A server whose class is chosen between frameworks at run time is judged by every class it can
be (docs/analysis.md, "Every branch"): a name bound in several branches keeps every binding, a
server is pre-parsing when any of its classes pre-parses, its findings name every framework, and
the fix passes it through `guard()`, keeping every import (docs/fix.md)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main

TOOL = """

@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
"""
MCP2_FIRST = """\
try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(dedent(text), encoding="utf-8")


def run(*args: str):
    # The rules about the pre-parse (and what is unchecked): MCP008 judges text unions on fastmcp.
    return CliRunner().invoke(main, [*args, "--no-cache", "--select", "MCP001,MCP004"])


def served(header: str, construction: str = 'mcp = Server("t")') -> str:
    return f"{dedent(header)}\n{construction}\n{TOOL}"


# Each idiom, in both orders: the frameworks its findings must name, in source order.
IDIOMS = {
    "mcp 2.x first": (MCP2_FIRST, "mcp 2.x MCPServer or mcp 1.x FastMCP"),
    "mcp 1.x first, ModuleNotFoundError": (
        """\
        try:
            from mcp.server.fastmcp import FastMCP as Server
        except ModuleNotFoundError:
            from mcp.server.mcpserver import MCPServer as Server
        """,
        "mcp 1.x FastMCP or mcp 2.x MCPServer",
    ),
    "the SDK first, fastmcp as the fallback": (
        """\
        try:
            from mcp.server.fastmcp import FastMCP as Server
        except ImportError:
            from fastmcp import FastMCP as Server
        """,
        "mcp 1.x FastMCP (the server runs on mcp 1.x FastMCP or standalone fastmcp)",
    ),
    "fastmcp first, the SDK as the fallback": (
        """\
        try:
            from fastmcp import FastMCP as Server
        except ImportError:
            from mcp.server.fastmcp import FastMCP as Server
        """,
        "mcp 1.x FastMCP (the server runs on standalone fastmcp or mcp 1.x FastMCP)",
    ),
    "a Python version switch": (
        """\
        import sys

        if sys.version_info >= (3, 13):
            from mcp.server.mcpserver import MCPServer as Server
        else:
            from mcp.server.fastmcp import FastMCP as Server
        """,
        "mcp 2.x MCPServer or mcp 1.x FastMCP",
    ),
    "an environment switch, the class copied as an attribute": (
        """\
        import os

        if os.environ.get("USE_FASTMCP"):
            import fastmcp

            Server = fastmcp.FastMCP
        else:
            from mcp.server.fastmcp import FastMCP as Server
        """,
        "mcp 1.x FastMCP (the server runs on standalone fastmcp or mcp 1.x FastMCP)",
    ),
    "a fallback that copies the other major's class to the first name": (
        """\
        try:
            from mcp.server.mcpserver import MCPServer as Server
        except ImportError:
            from mcp.server.fastmcp import FastMCP

            Server = FastMCP
        """,
        "mcp 2.x MCPServer or mcp 1.x FastMCP",
    ),
    "each branch's module under one alias, the class taken from it": (
        """\
        try:
            import mcp.server.mcpserver as sdk

            Server = sdk.MCPServer
        except ImportError:
            import mcp.server.fastmcp as sdk

            Server = sdk.FastMCP
        """,
        "mcp 2.x MCPServer or mcp 1.x FastMCP",
    ),
    "the same, mcp 1.x first": (
        """\
        try:
            import mcp.server.fastmcp as sdk

            Server = sdk.FastMCP
        except ImportError:
            import mcp.server.mcpserver as sdk

            Server = sdk.MCPServer
        """,
        "mcp 1.x FastMCP or mcp 2.x MCPServer",
    ),
    "a platform switch in a with block": (
        """\
        import contextlib
        import sys

        with contextlib.suppress(ImportError):
            from fastmcp import FastMCP as Server
        if sys.platform == "win32":
            from mcp.server.fastmcp import FastMCP as Server
        """,
        "mcp 1.x FastMCP (the server runs on standalone fastmcp or mcp 1.x FastMCP)",
    ),
}


@pytest.mark.parametrize("idiom", IDIOMS)
def test_a_server_chosen_between_frameworks_is_reported_naming_each(project, idiom):
    header, frameworks = IDIOMS[idiom]
    write(project, {"server.py": served(header)})
    result = run("check", ".")
    assert result.exit_code == 1, result.output
    assert "All checks passed!" not in result.output
    assert f"is JSON-pre-parsed by {frameworks}: " in result.output, result.output


@pytest.mark.parametrize("idiom", IDIOMS)
def test_the_fix_guards_the_instance_and_keeps_every_import(project, idiom):
    header, _ = IDIOMS[idiom]
    write(project, {"server.py": served(header)})
    run("fix", "--write", ".")
    text = (project / "server.py").read_text(encoding="utf-8")
    assert 'mcp = guard(Server("t"))' in text
    assert "from mcp_codemod.runtime import NoPreParse, guard" in text
    assert "Guarded" not in text
    for line in dedent(header).splitlines():
        if line.strip():
            assert line in text.splitlines(), line
    assert run("check", ".").exit_code == 0


def test_a_fallback_to_none_keeps_the_import(project):
    header = """\
    try:
        from mcp.server.fastmcp import FastMCP as Server
    except ImportError:
        Server = None
    """
    write(project, {"server.py": served(header)})
    result = run("check", ".")
    assert "is JSON-pre-parsed by mcp 1.x FastMCP: " in result.output, result.output
    run("fix", "--write", ".")
    text = (project / "server.py").read_text(encoding="utf-8")
    # The class's name may be None: not provably the SDK's class, so the import stays.
    assert 'mcp = guard(Server("t"))' in text
    assert "    from mcp.server.fastmcp import FastMCP as Server" in text


def test_a_later_import_in_the_same_body_replaces_the_earlier(project):
    header = """\
    from mcp.server.fastmcp import FastMCP as Server
    from fastmcp import FastMCP as Server  # noqa: F811
    """
    write(project, {"server.py": served(header)})
    result = run("check", ".")
    assert result.exit_code == 0, result.output


def test_constructions_in_each_branch_are_each_guarded(project):
    source = """\
    try:
        from mcp.server.mcpserver import MCPServer

        mcp = MCPServer("t")
    except ImportError:
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("t")
    """
    write(project, {"server.py": dedent(source) + TOOL})
    result = run("check", ".")
    assert "mcp 1.x FastMCP or mcp 2.x MCPServer" in result.output, result.output
    run("fix", "--write", ".")
    text = (project / "server.py").read_text(encoding="utf-8")
    assert 'mcp = guard(MCPServer("t"))' in text and 'mcp = guard(FastMCP("t"))' in text
    assert "Guarded" not in text


def test_a_class_chosen_in_another_module_is_followed_through_each_branch(project):
    write(
        project,
        {
            "app/__init__.py": "",
            "app/compat.py": MCP2_FIRST,
            "app/server.py": served("from .compat import Server\n"),
        },
    )
    result = run("check", ".")
    assert "is JSON-pre-parsed by mcp 2.x MCPServer or mcp 1.x FastMCP: " in result.output
    run("fix", "--write", ".")
    assert 'mcp = guard(Server("t"))' in (project / "app/server.py").read_text(encoding="utf-8")
    assert (project / "app/compat.py").read_text(encoding="utf-8") == MCP2_FIRST


def test_a_project_subclass_of_a_chosen_class_is_guarded_where_it_is_built(project):
    header = MCP2_FIRST + "\n\nclass Notes(Server):\n    pass\n"
    write(project, {"server.py": served(header, 'mcp = Notes("t")')})
    result = run("check", ".")
    assert "mcp 2.x MCPServer or mcp 1.x FastMCP" in result.output, result.output
    run("fix", "--write", ".")
    text = (project / "server.py").read_text(encoding="utf-8")
    assert 'mcp = guard(Notes("t"))' in text and "class Notes(Server):" in text


def test_a_project_fastmcp_module_beside_the_server_shadows_the_package(project):
    write(
        project,
        {
            "fastmcp.py": "from mcp.server.fastmcp import FastMCP\n",
            "server.py": served("from fastmcp import FastMCP as Server\n"),
        },
    )
    result = run("check", "server.py")
    assert result.exit_code == 1, result.output
    assert "(the server runs on standalone fastmcp or mcp 1.x FastMCP)" in result.output


def test_a_fastmcp_module_elsewhere_in_the_tree_does_not_shadow_the_package(project):
    write(
        project,
        {
            "other/fastmcp.py": "from mcp.server.fastmcp import FastMCP\n",
            "other/tool.py": served("from fastmcp import FastMCP as Server\n"),
            "server.py": served("from fastmcp import FastMCP as Server\n"),
        },
    )
    result = run("check", "server.py", "other/tool.py")
    assert "server.py:" not in result.output.replace("other/tool.py:", ""), result.output
    assert "other/tool.py:" in result.output


def test_a_parameter_annotated_with_a_chosen_class_is_guarded_where_it_is_built(project):
    write(
        project,
        {
            "tools.py": MCP2_FIRST
            + "\n\ndef register(mcp: Server) -> None:\n"
            + "    @mcp.tool()\n    def search(query: str | None = None) -> str:\n"
            + '        return query or ""\n',
        },
    )
    result = run("check", ".")
    assert result.exit_code == 1
    assert "is JSON-pre-parsed by mcp 2.x MCPServer or mcp 1.x FastMCP: " in result.output
    result = run("fix", "--diff", ".")
    # No construction in sight: no class to swap, and the advice is `guard()`, which takes both.
    assert (
        "the server (an instance of mcp.server.mcpserver.MCPServer or "
        "mcp.server.fastmcp.FastMCP) is built outside the code this fix can rewrite: pass it "
        "through `mcp_codemod.runtime.guard(server)`"
    ) in result.output, result.output
    assert "Guarded" not in result.output


def test_a_description_fastmcp_reads_is_kept_where_the_server_may_run_on_fastmcp(project):
    header = """\
    from typing import Annotated

    try:
        from fastmcp import FastMCP as Server
    except ImportError:
        from mcp.server.fastmcp import FastMCP as Server
    """
    tool = (
        '\n\n@mcp.tool()\ndef search(query: Annotated[str | None, "free text"] = None) -> str:\n'
        '    return query or ""\n'
    )
    write(project, {"server.py": dedent(header) + '\nmcp = Server("t")\n' + tool})
    assert "MCP001" in run("check", ".").output
    result = run("fix", "--write", ".")
    assert result.exit_code == 0, result.output
    text = (project / "server.py").read_text(encoding="utf-8")
    # A marker beside it would drop the description from fastmcp's schema: the guard alone.
    assert 'query: Annotated[str | None, "free text"] = None' in text
    assert 'mcp = guard(Server("t"))' in text


def test_a_stand_in_class_in_the_fallback_keeps_the_import(project):
    header = """\
    try:
        from mcp.server.fastmcp import FastMCP as Server
    except ImportError:

        class Server:
            def __init__(self, name: str) -> None:
                self.name = name

            def tool(self):
                return lambda fn: fn
    """
    write(project, {"server.py": served(header)})
    result = run("check", ".")
    assert "is JSON-pre-parsed by mcp 1.x FastMCP: " in result.output, result.output


LIBRARY_FALLBACK = """\
try:
    from fastmcp import FastMCP as Server
except ImportError:
    from notes_compat import Server
"""


def test_a_fallback_to_a_library_class_is_never_clean(project):
    # Where fastmcp is missing the server is a class of no known framework, which may pre-parse.
    write(project, {"server.py": served(LIBRARY_FALLBACK)})
    result = run("check", ".")
    assert result.exit_code == 1, result.output
    assert "All checks passed!" not in result.output
    assert (
        "server `mcp` (made by fastmcp.FastMCP or notes_compat.Server "
        "(notes_compat.Server: of unknown framework)): framework unknown"
    ) in result.output, result.output


def test_a_library_fallback_re_exported_by_a_module_of_the_project_is_never_clean(project):
    write(
        project,
        {
            "app/__init__.py": "",
            "app/compat.py": LIBRARY_FALLBACK,
            "app/server.py": served("from .compat import Server\n"),
        },
    )
    result = run("check", ".")
    assert result.exit_code == 1, result.output
    assert "framework unknown" in result.output, result.output


def test_a_library_fallback_beside_the_sdk_is_judged_by_the_sdk_and_not_wrapped(project):
    header = """\
    try:
        from mcp.server.fastmcp import FastMCP as Server
    except ImportError:
        from notes_compat import Server
    """
    write(project, {"server.py": served(header)})
    assert "is JSON-pre-parsed by mcp 1.x FastMCP: " in run("check", ".").output
    result = run("fix", "--write", ".")
    text = (project / "server.py").read_text(encoding="utf-8")
    # guard() refuses a class it does not know: wrapping would break the import where the
    # library's class is chosen. The server is left to its author, and fix says so.
    assert 'mcp = Server("t")' in text, text
    assert result.exit_code == 1
    assert "pass it through `mcp_codemod.runtime.guard(server)`" in result.output
