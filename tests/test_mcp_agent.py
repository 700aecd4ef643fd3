"""mcp-agent's `MCPApp` (analysis/facades.py): `@app.tool` / `@app.async_tool` functions are tools
of the mcp 1.x FastMCP that mcp-agent makes, with the function's parameters less those mcp-agent
fills itself. The suite needs no mcp-agent: docs/mcp-agent.md records the probe of a real
mcp-agent 0.2.6 server that these expectations come from."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from conftest import run_cli

from mcp_codemod.analysis.unseen import Unseen
from mcp_codemod.checker import check_files
from mcp_codemod.rules import select_rules

APP = """\
from typing import Optional

from mcp.server.fastmcp import Context
from mcp_agent.app import MCPApp
from mcp_agent.core.context import Context as AppContext

app = MCPApp(name="notes")


@app.tool
async def search(query: str | None = None, limit: int = 10, app_ctx: Optional[AppContext] = None) -> str:
    return ""


@app.tool(name="set-body")
async def set_body(note_id: str, body: Optional[str] = None, ctx=None) -> str:
    return ""


@app.async_tool("summarize_async")
async def summarize(topic: str | None, context: Context, app_ctx=None) -> str:
    return ""
"""


def check(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(dedent(text))
    return check_files([tmp_path / name for name in files], select_rules(None, []))


def found(result) -> set[tuple[str, str, bool]]:
    return {(f.tool, f.parameter, f.fixable) for f in result.findings}


def test_app_tools_are_checked_under_the_names_mcp_agent_gives_them(tmp_path):
    result = check(tmp_path, {"main.py": APP})
    # `app_ctx`, an unannotated `ctx` and a `Context` are filled by mcp-agent and the SDK.
    assert found(result) == {
        ("search", "query", True),
        ("set-body", "body", True),
        ("summarize_async", "topic", True),
    }
    assert result.tools == 3 and result.unresolved == ()
    assert {f.framework for f in result.findings} == {"mcp1"}


def test_the_decorators_called_as_functions(tmp_path):
    # `app.tool(fn)` and `app.async_tool(name=...)(fn)`: mcp-agent takes a callable first argument
    # as the function, a string as the name.
    source = APP.replace("@app.tool\n", "").replace('@app.async_tool("summarize_async")\n', "")
    source += '\n\napp.tool(search)\napp.async_tool(name="summarize_async")(summarize)\n'
    result = check(tmp_path, {"main.py": source})
    assert found(result) == {
        ("search", "query", True),
        ("set-body", "body", True),
        ("summarize_async", "topic", True),
    }
    assert result.tools == 3


def test_the_fix_marks_the_parameters_and_says_where_to_guard_the_server(tmp_path):
    (tmp_path / "main.py").write_text(APP)
    result = run_cli("fix", "--write", "--no-cache", "main.py", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    fixed = (tmp_path / "main.py").read_text()
    assert "from mcp_codemod.runtime import NoPreParse\n" in fixed
    assert "async def search(query: Annotated[str | None, NoPreParse] = None, limit" in fixed
    assert "body: Annotated[Optional[str], NoPreParse] = None, ctx=None)" in fixed
    assert "topic: Annotated[str | None, NoPreParse], context: Context" in fixed
    assert "app = MCPApp(" in fixed  # the application object is not swapped
    assert (
        "note: main.py:11: the server (the mcp 1.x FastMCP that mcp-agent makes for MCPApp(...)) "
        "is made inside mcp-agent, out of this fix's reach: guard it where the project makes it, "
        "`mcp_codemod.runtime.guard(create_mcp_server_for_app(app))`, or call "
        "`mcp_codemod.runtime.install()` before it serves requests"
    ) in result.output


def test_marked_parameters_stay_reported_until_the_server_is_guarded(tmp_path):
    # The marker alone cannot stop the SDK: the finding stays, without a fix, naming the guard.
    (tmp_path / "main.py").write_text(APP)
    assert run_cli("fix", "--write", "--no-cache", "main.py", cwd=tmp_path).exit_code == 0
    result = check_files([tmp_path / "main.py"], select_rules(None, []))
    assert found(result) == {
        ("search", "query", False),
        ("set-body", "body", False),
        ("summarize_async", "topic", False),
    }
    message = result.findings[0].message
    assert "is marked NoPreParse, but its server" in message
    assert "`mcp_codemod.runtime.guard(create_mcp_server_for_app(app))`" in message


MAKES_THE_SERVER = """\
import asyncio

from mcp_agent.app import MCPApp
from mcp_agent.server.app_server import create_mcp_server_for_app

from mcp_codemod.runtime import guard, install

app = MCPApp(name="finder")


@app.tool
async def find(pattern: str | None = None) -> str:
    return ""


async def main() -> None:
{main}
"""


@pytest.mark.parametrize(
    "main",
    [
        "    server = guard(create_mcp_server_for_app(app))",
        "    async with app.run() as agent_app:\n"
        "        server = create_mcp_server_for_app(agent_app)\n"
        "        guard(server)",
        "    async with app.run() as agent_app:\n"
        "        guard(create_mcp_server_for_app(app=agent_app))",
        "    install()\n    create_mcp_server_for_app(app)",
    ],
    ids=["guard-the-call", "guard-the-result", "guard-a-keyword-call", "install"],
)
def test_the_server_mcp_agent_makes_is_guarded_where_the_project_makes_it(tmp_path, main):
    result = check(tmp_path, {"main.py": MAKES_THE_SERVER.format(main=main)})
    assert result.findings == () and result.unresolved == ()
    assert result.tools == 1


def test_a_guard_on_another_apps_server_does_not_protect_this_one(tmp_path):
    main = (
        '    other = MCPApp(name="other")\n'
        "    async with other.run() as running:\n"
        "        guard(create_mcp_server_for_app(running))"
    )
    result = check(tmp_path, {"main.py": MAKES_THE_SERVER.format(main=main)})
    assert found(result) == {("find", "pattern", True)}


def test_an_app_given_a_server_of_its_own_gets_the_guarded_class(tmp_path):
    # `MCPApp(mcp=server)`: mcp-agent registers the tools on that server, in reach of the fix.
    source = """\
        from mcp.server.fastmcp import FastMCP
        from mcp_agent.app import MCPApp

        mcp = FastMCP("notes")
        app = MCPApp("notes", None, None, mcp)


        @app.tool(name="search")
        def search(query: str | None = None, app_ctx=None) -> str:
            return ""
        """
    (tmp_path / "main.py").write_text(dedent(source))
    assert run_cli("fix", "--write", "--no-cache", "main.py", cwd=tmp_path).exit_code == 0
    assert (tmp_path / "main.py").read_text() == dedent(
        """\
        from typing import Annotated

        from mcp_agent.app import MCPApp
        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

        mcp = GuardedFastMCP("notes")
        app = MCPApp("notes", None, None, mcp)


        @app.tool(name="search")
        def search(query: Annotated[str | None, NoPreParse] = None, app_ctx=None) -> str:
            return ""
        """
    )
    assert check_files([tmp_path / "main.py"], select_rules(None, [])).findings == ()


def test_an_app_imported_from_another_module(tmp_path):
    result = check(
        tmp_path,
        {
            "application.py": 'from mcp_agent.app import MCPApp\n\napp = MCPApp(name="x")\n',
            "tools.py": """\
                from application import app


                @app.async_tool
                async def lookup(key: str | None) -> str:
                    return ""
                """,
        },
    )
    assert found(result) == {("lookup", "key", True)}


def test_the_server_is_guarded_in_another_module(tmp_path):
    result = check(
        tmp_path,
        {
            "application.py": """\
                from mcp_agent.app import MCPApp

                app = MCPApp(name="x")


                @app.tool
                def lookup(key: str | None) -> str:
                    return ""
                """,
            "serve.py": """\
                from application import app
                from mcp_agent.server.app_server import create_mcp_server_for_app
                from mcp_codemod.runtime import guard

                server = guard(create_mcp_server_for_app(app))
                """,
        },
    )
    assert result.findings == () and result.unresolved == () and result.tools == 1


def test_a_subclass_of_the_app_is_not_guessed_at(tmp_path):
    # A project's own MCPApp subclass may override `tool`: its registrations stay unseen.
    result = check(
        tmp_path,
        {
            "main.py": """\
                from mcp_agent.app import MCPApp


                class MyApp(MCPApp):
                    pass


                app = MyApp(name="x")


                @app.tool
                def lookup(key: str | None) -> str:
                    return ""
                """,
        },
    )
    assert result.findings == ()
    assert [(u.line, u.kind) for u in result.unresolved] == [(11, Unseen.UNKNOWN_FRAMEWORK)]
