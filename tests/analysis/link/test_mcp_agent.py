"""mcp-agent's `MCPApp` (analysis/facades.py): `@app.tool` / `@app.async_tool` functions are tools
of the mcp 1.x FastMCP that mcp-agent makes, with the function's parameters less those mcp-agent
fills itself. The suite needs no mcp-agent: docs/mcp-agent.md records the probe of a real
mcp-agent 0.2.6 server that these expectations come from."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import run_cli

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.engine.checker import check_files
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


# MCP004 on a server mcp-agent makes: its own `workflows-*` tools are unchecked, and the fix is out of
# reach (the message names the guard to write).
OWN_TOOLS_UNGUARDED = (None, None, False)


def own_tools(result) -> list[tuple[str, int, bool]]:
    """mcp-agent's own tools, unchecked: where the app is made, and whether its server is guarded."""
    return [
        (Path(u.path).name, u.line, not u.server.framework.pre_parses_json)
        for u in result.unchecked
        if u.kind is Unchecked.FRAMEWORK_TOOLS
    ]


def test_app_tools_are_checked_under_the_names_mcp_agent_gives_them(tmp_path):
    result = check(tmp_path, {"main.py": APP})
    # `app_ctx`, an unannotated `ctx` and a `Context` are filled by mcp-agent and the SDK.
    assert found(result) == {
        ("search", "query", True),
        ("set-body", "body", True),
        ("summarize_async", "topic", True),
        OWN_TOOLS_UNGUARDED,
    }
    assert result.tools == 4 and own_tools(result) == [("main.py", 7, False)]
    assert (
        result.unchecked[0].reason == "mcp-agent registers its `workflows-*` tools on this server"
    )
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
        OWN_TOOLS_UNGUARDED,
    }
    assert result.tools == 4


def test_the_fix_marks_the_parameters_and_says_where_to_guard_the_server(tmp_path):
    (tmp_path / "main.py").write_text(APP)
    result = run_cli("fix", "--write", "--no-cache", "main.py", cwd=tmp_path)
    # The parameters stay exposed until the server is guarded by hand: `fix` does not pass.
    assert result.exit_code == 1, result.output
    fixed = (tmp_path / "main.py").read_text()
    assert "from mcp_codemod.runtime import NoPreParse\n" in fixed
    assert "async def search(query: Annotated[str | None, NoPreParse] = None, limit" in fixed
    assert "body: Annotated[Optional[str], NoPreParse] = None, ctx=None\n) -> str:" in fixed
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
    assert run_cli("fix", "--write", "--no-cache", "main.py", cwd=tmp_path).exit_code == 1
    result = check_files([tmp_path / "main.py"], select_rules(None, []))
    assert found(result) == {
        ("search", "query", False),
        ("set-body", "body", False),
        ("summarize_async", "topic", False),
        OWN_TOOLS_UNGUARDED,
    }
    message = next(f.message for f in result.findings if f.code == "MCP001")
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
    assert result.findings == () and result.unprotected == ()
    assert own_tools(result) == [("main.py", 8, True)]
    assert result.tools == 2


def test_a_guard_on_another_apps_server_does_not_protect_this_one(tmp_path):
    main = (
        '    other = MCPApp(name="other")\n'
        "    async with other.run() as running:\n"
        "        guard(create_mcp_server_for_app(running))"
    )
    result = check(tmp_path, {"main.py": MAKES_THE_SERVER.format(main=main)})
    assert found(result) == {("find", "pattern", True), OWN_TOOLS_UNGUARDED}
    assert own_tools(result) == [("main.py", 8, False), ("main.py", 17, True)]


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
    assert found(result) == {("lookup", "key", True), OWN_TOOLS_UNGUARDED}
    assert own_tools(result) == [("application.py", 3, False)]


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
    assert result.findings == () and result.unprotected == () and result.tools == 2
    assert own_tools(result) == [("application.py", 3, True)]


def test_a_subclass_of_the_app_is_not_guessed_at(tmp_path):
    # A project's own MCPApp subclass may override `tool`: its registrations stay unchecked.
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
    assert [(u.line, u.kind) for u in result.unchecked] == [(11, Unchecked.UNKNOWN_FRAMEWORK)]


def test_an_app_without_tools_of_its_own_still_serves_mcp_agents_tools(tmp_path):
    # Workflows only: mcp-agent's `workflows-*` tools are on the server all the same, and they
    # JSON-pre-parse `run_id: str | None`: "All checks passed!" would be a broken promise.
    (tmp_path / "main.py").write_text(
        'from mcp_agent.app import MCPApp\n\napp = MCPApp(name="flows")\n\n\n'
        "@app.workflow\nclass Hello:\n    pass\n"
    )
    result = run_cli("check", "--no-cache", "main.py", cwd=tmp_path)
    assert result.exit_code == 1
    assert "All checks passed!" not in result.output
    assert (
        "main.py:3:1: MCP004 Server the mcp 1.x FastMCP that mcp-agent makes for MCPApp(...) is "
        "not guarded and has 1 tool registration the analysis cannot see (1 set of tools its "
        "framework registers by itself): mcp 1.x FastMCP JSON-pre-parses their text arguments "
        "unchecked; guard it where the project makes it, "
        "`mcp_codemod.runtime.guard(create_mcp_server_for_app(app))`, or call "
        "`mcp_codemod.runtime.install()` before it serves requests"
    ) in result.output
    assert "main.py:3: mcp-agent registers its `workflows-*` tools on this server" in result.output


def test_a_server_given_to_apps_is_swapped_for_mcp_agents_own_tools(tmp_path):
    # Two apps on one server: one unchecked registration; the fix is the guarded class (unsafe, as
    # every MCP004 swap: it changes the handling of tools nobody reviewed here).
    source = """\
        from mcp.server.fastmcp import FastMCP
        from mcp_agent.app import MCPApp

        mcp = FastMCP("flows")
        first = MCPApp(name="first", mcp=mcp)
        second = MCPApp(name="second", mcp=mcp)
        """
    (tmp_path / "main.py").write_text(dedent(source))
    result = check_files([tmp_path / "main.py"], select_rules(None, []))
    assert [(f.code, f.line, f.fixable) for f in result.findings] == [("MCP004", 5, True)]
    assert own_tools(result) == [("main.py", 5, False)] and result.tools == 1
    fixed = run_cli("fix", "--write", "--unsafe-fixes", "--no-cache", "main.py", cwd=tmp_path)
    assert fixed.exit_code == 0, fixed.output
    assert 'mcp = GuardedFastMCP("flows")' in (tmp_path / "main.py").read_text()
    after = run_cli("check", "--no-cache", "main.py", cwd=tmp_path)
    assert after.exit_code == 0 and "All checks passed!" not in after.output
    listed = run_cli("check", "--no-cache", "--output-format", "json", "main.py", cwd=tmp_path)
    assert [(r["type"], r["line"], r["protected"]) for r in json.loads(listed.stdout)] == [
        ("unchecked-registration", 5, True)
    ]


@pytest.mark.parametrize("server_init", [True, False], ids=["package", "folder"])
def test_mcp_agents_own_tools_are_checked_where_its_sources_are(tmp_path, server_init):
    # Checked together with mcp-agent's own sources (as in the corpus), the `workflows-*`
    # registrations are read where mcp-agent writes them: seen, not unchecked. mcp-agent 0.2.6
    # ships `mcp_agent/server/` without `__init__.py` (the "folder" case).
    files = {
        "mcp_agent/__init__.py": "",
        **({"mcp_agent/server/__init__.py": ""} if server_init else {}),
        "mcp_agent/server/app_server.py": """\
            from typing import Any

            from mcp.server.fastmcp import FastMCP


            def create_mcp_server_for_app(app, **kwargs: Any) -> FastMCP:
                mcp = FastMCP(app.name)

                @mcp.tool(name="workflows-get_status")
                async def get_workflow_status(run_id: str | None = None) -> dict:
                    return {}

                @mcp.tool(name="workflows-run")
                async def run_workflow(workflow_name: str, **kwargs: Any) -> dict:
                    return {}

                return mcp
            """,
        "main.py": 'from mcp_agent.app import MCPApp\n\napp = MCPApp(name="flows")\n',
    }
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    result = check(tmp_path, files)
    assert found(result) == {
        ("workflows-get_status", "run_id", True),
        ("workflows-run", "kwargs", True),
    }
    assert own_tools(result) == []
    # From the command line the paths are relative to the working directory: the same answer.
    output = run_cli("check", "--no-cache", ".", cwd=tmp_path).output
    assert "workflows-run" in output and "registers its" not in output


def test_a_server_of_unknown_framework_given_to_an_app_is_not_guessed_at(tmp_path):
    (tmp_path / "main.py").write_text(
        "from company import make_server\nfrom mcp_agent.app import MCPApp\n\n"
        'app = MCPApp(name="x", mcp=make_server())\n'
    )
    result = check_files([tmp_path / "main.py"], select_rules(None, []))
    assert result.findings == ()
    assert [(u.line, u.kind, u.server.framework) for u in result.unprotected] == [
        (4, Unchecked.FRAMEWORK_TOOLS, None)
    ]
    # Stated, the framework is the server's: MCP004 says to guard it where it is built.
    stated = check_files([tmp_path / "main.py"], select_rules(None, []), Framework.MCP1)
    assert [(f.code, f.line, f.fixable) for f in stated.findings] == [("MCP004", 4, False)]


def test_every_construction_of_an_app_is_found(tmp_path):
    # Assigned, an attribute, passed on, or only the start of an expression: each app's server
    # carries mcp-agent's own tools.
    source = """\
        from mcp_agent.app import MCPApp
        from mcp_agent.server.app_server import create_mcp_server_for_app


        def serve():
            create_mcp_server_for_app(MCPApp(name="a")).run()


        def other():
            run_app(MCPApp(name="b"))


        class Holder:
            def __init__(self):
                self.app = MCPApp(name="c")
        """
    result = check(tmp_path, {"main.py": source})
    assert own_tools(result) == [
        ("main.py", 6, False),
        ("main.py", 10, False),
        ("main.py", 15, False),
    ]
