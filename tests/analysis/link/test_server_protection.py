"""The server is the unit of protection (docs/analysis.md): every construction of a pre-parsing
server is guarded by the default fix whenever any of its tools is unchecked, and what the analysis
cannot resolve is unchecked, never clean."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main

SITE = Path(__file__).resolve().parents[2] / "data" / "site"
TOOL = """

@mcp.tool()
def search(query: {annotation}) -> str:
    return repr(query)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(SITE))
    return tmp_path


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(dedent(text), encoding="utf-8")


def run(*args: str):
    return CliRunner().invoke(main, [*args, "--no-cache"])


def server(annotation: str, header: str = "") -> str:
    return f'{header}from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("t")\n' + TOOL.format(
        annotation=annotation
    )


def test_a_server_bound_in_both_branches_is_guarded_in_both(project):
    write(
        project,
        {
            "server.py": """\
            import os

            from mcp.server.fastmcp import FastMCP

            if os.environ.get("SMALL"):
                mcp = FastMCP("small")
            else:
                mcp = FastMCP("large")


            @mcp.tool()
            def search(query: str | None = None) -> str:
                return repr(query)
            """
        },
    )
    assert run("fix", "--write").exit_code == 0
    text = (project / "server.py").read_text()
    assert 'mcp = GuardedFastMCP("small")' in text and 'mcp = GuardedFastMCP("large")' in text
    assert "All checks passed!" in run("check").output


def test_a_server_reexported_past_the_hop_limit_counts_against_the_server_built(project):
    files = {
        "pkg/__init__.py": "",
        "pkg/app.py": 'from mcp.server.fastmcp import FastMCP\n\nserver = FastMCP("t")\n',
    }
    for hop in range(1, 16):
        source = "pkg.app" if hop == 1 else f"pkg.r{hop - 1}"
        files[f"pkg/r{hop}.py"] = f"from {source} import server\n"
    files["pkg/tools.py"] = (
        "from pkg.r15 import server\n\n\n@server.tool()\n"
        "def search(query: str | None = None) -> str:\n    return repr(query)\n"
    )
    write(project, files)
    check = run("check")
    assert check.exit_code == 1
    assert "All checks passed!" not in check.output
    # The message says which server it is counted against, and the fix guards it.
    assert "MCP004 [*] Server FastMCP(...) (built at pkg.app:3) is not guarded" in check.output
    assert "counted against FastMCP(...) at pkg.app:3" in check.output
    # The server is guarded; the registration of unknown framework stays unchecked, so `check`
    # after the fix exits 1, and `fix` agrees with it.
    assert run("fix", "--write").exit_code == 1
    assert 'server = GuardedFastMCP("t")' in (project / "pkg" / "app.py").read_text()


def test_a_tool_reexported_past_the_hop_limit_is_unchecked(project):
    files = {
        "pkg/__init__.py": "",
        "pkg/m0.py": "def search(query: str | None = None) -> str:\n    return repr(query)\n",
    }
    for hop in range(1, 16):
        files[f"pkg/m{hop}.py"] = f"from pkg.m{hop - 1} import search\n"
    files["pkg/server.py"] = (
        "from mcp.server.fastmcp import FastMCP\n\nfrom pkg.m15 import search\n\n"
        'mcp = FastMCP("t")\nmcp.add_tool(search)\n'
    )
    write(project, files)
    check = run("check")
    assert check.exit_code == 1
    assert "MCP004 [*]" in check.output
    assert run("fix", "--write").exit_code == 0
    assert 'mcp = GuardedFastMCP("t")' in (project / "pkg" / "server.py").read_text()


@pytest.mark.parametrize(
    ("annotation", "header", "reason"),
    [
        (
            "MaybeText",
            "from not_installed_anywhere import MaybeText\n",
            "`not_installed_anywhere.MaybeText`, which it cannot resolve",
        ),
        (
            "MaybeText",
            "from not_installed_anywhere import *\n",
            "`MaybeText`, which it cannot resolve",
        ),
        ("T", 'from typing import TypeVar\n\nT = TypeVar("T")\n', "`T`, which it cannot resolve"),
        ('"not ] valid"', "", "`not ] valid`, which it cannot evaluate"),
        ("Made", 'Made = type("Made", (str,), {})\n', "`Made`, which it cannot resolve"),
        ("fakelib.kinds.Name", "import fakelib.kinds\n", "`fakelib.kinds.Name`, a subclass of str"),
    ],
)
def test_an_annotation_it_cannot_resolve_is_unchecked_and_guarded(
    project, annotation, header, reason
):
    write(project, {"server.py": server(annotation, header)})
    check = run("check")
    assert check.exit_code == 1
    assert "All checks passed!" not in check.output
    assert "MCP004 [*]" in check.output
    assert "(1 parameter whose annotation it cannot resolve)" in check.output
    assert f"tool `search`: `query: {annotation}` names {reason}" in check.output
    assert run("fix", "--write").exit_code == 0
    assert 'mcp = GuardedFastMCP("t")' in (project / "server.py").read_text()


def test_a_librarys_alias_is_read_from_its_source(project):
    write(project, {"server.py": server("MaybeText", "from fakelib.kinds import MaybeText\n")})
    check = run("check")
    assert "MCP001 [*] Tool `search`: `query: MaybeText` is JSON-pre-parsed" in check.output
    assert "not checked" not in check.output


@pytest.mark.parametrize("annotation", ["Mode", "Count"])
def test_a_librarys_enum_or_integer_alias_is_clean(project, annotation):
    write(project, {"server.py": server(annotation, f"from fakelib.kinds import {annotation}\n")})
    assert "All checks passed!" in run("check").output


def test_registrations_of_unknown_framework_count_against_the_servers_built(project):
    write(
        project,
        {
            "server.py": 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("t")\n',
            "tools.py": server("str | None").replace(
                'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("t")\n',
                "from company_toolkit import current_server\n\nmcp = current_server()\n",
            ),
        },
    )
    check = run("check")
    assert check.exit_code == 1
    assert "MCP004 [*] Server FastMCP(...) (built at server:3) is not guarded" in check.output
    assert "1 registration on a server of unknown framework, which may be this one" in check.output
    assert "state its framework" not in check.output
    # The server is guarded; the registration of unknown framework stays unchecked, so `check`
    # after the fix exits 1, and `fix` agrees with it.
    assert run("fix", "--write").exit_code == 1
    assert 'mcp = GuardedFastMCP("t")' in (project / "server.py").read_text()


def test_registrations_of_unknown_framework_count_only_against_their_own_packages_servers(
    project,
):
    # A tree of two projects: the registration in `billing` may be on billing's server, not on
    # the one `search` builds beside it.
    write(
        project,
        {
            "search/__init__.py": "",
            "search/server.py": 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("s")\n',
            "billing/__init__.py": "",
            "billing/tools.py": server("str | None").replace(
                'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("t")\n',
                "from company_toolkit import current_server\n\nmcp = current_server()\n",
            ),
        },
    )
    check = run("check")
    assert check.exit_code == 1
    assert "built at search.server" not in check.output
    assert "MCP004" not in check.output


def test_a_server_passed_to_no_caller_is_guarded_where_the_tree_builds_it(project):
    write(
        project,
        {
            "server.py": """\
            from mcp.server.fastmcp import FastMCP

            server = FastMCP("x")


            def register(mcp: FastMCP) -> None:
                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return repr(query)
            """
        },
    )
    fixed = run("fix", "--write")
    assert fixed.exit_code == 0
    assert "built outside the code" not in fixed.output
    text = (project / "server.py").read_text()
    assert 'server = GuardedFastMCP("x")' in text
    assert "query: Annotated[str | None, NoPreParse]" in text


# A registrar whose server no caller passes: its construction is out of sight.
OUT_OF_SIGHT_REGISTRAR = """\
    from mcp.server.fastmcp import FastMCP


    def register(mcp: FastMCP) -> None:
        @mcp.tool()
        def search(query: str | None = None) -> str:
            return repr(query)
    """


def test_a_server_passed_to_no_caller_is_guarded_where_its_own_project_builds_it(project):
    # A tree of two projects, each imported from its own directory: the fix guards the servers
    # of the registrar's project, a `server.py` beside its `tools/` package, and not the other's.
    server = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'
    other = 'from mcp.server.fastmcp import FastMCP\n\nother = FastMCP("y")\n'
    write(
        project,
        {
            "search/server.py": server,
            "search/tools/__init__.py": "",
            "search/tools/registry.py": OUT_OF_SIGHT_REGISTRAR,
            "billing/app/__init__.py": "",
            "billing/app/server.py": other,
        },
    )
    fixed = run("fix", "--write")
    assert fixed.exit_code == 0, fixed.output
    assert 'mcp = GuardedFastMCP("x")' in (project / "search" / "server.py").read_text()
    assert (project / "billing" / "app" / "server.py").read_text() == other


def test_a_server_out_of_sight_among_more_servers_than_a_fix_guards_is_never_passed(
    project, monkeypatch: pytest.MonkeyPatch
):
    # Past the bound the fix guards none of the project's servers for it: the marker it adds
    # protects nothing, and `check` says so until the servers are guarded by hand.
    monkeypatch.setattr("mcp_codemod.analysis.link.linker._GUARDED_AT_MOST", 1)
    built = 'from mcp.server.fastmcp import FastMCP\n\n{name} = FastMCP("{name}")\n'
    write(
        project,
        {
            "first.py": built.format(name="first"),
            "second.py": built.format(name="second"),
            "registry.py": OUT_OF_SIGHT_REGISTRAR,
        },
    )
    assert run("check").exit_code == 1
    run("fix", "--write")
    assert "GuardedFastMCP" not in (project / "first.py").read_text()
    assert "Annotated[str | None, NoPreParse]" in (project / "registry.py").read_text()
    after = run("check")
    assert after.exit_code == 1
    assert "is marked NoPreParse, but its server" in after.output
    assert "guard them where they are built" in after.output


def test_a_decorator_factory_in_another_module_reports_the_real_parameters(project):
    write(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/decorators.py": """\
            import functools


            def register_tool(server):
                def decorate(fn):
                    @functools.wraps(fn)
                    def wrapper(*args, **kwargs):
                        return fn(*args, **kwargs)

                    server.tool()(wrapper)
                    return wrapper

                return decorate
            """,
            "pkg/tools.py": """\
            from pkg.decorators import register_tool


            class SearchTools:
                def __init__(self, server):
                    self.server = server

                def register(self):
                    @register_tool(self.server)
                    def search(query: str | None = None) -> str:
                        return repr(query)
            """,
            "pkg/app.py": """\
            from mcp.server.fastmcp import FastMCP

            from pkg.tools import SearchTools

            server = FastMCP("t")
            SearchTools(server).register()
            """,
        },
    )
    check = run("check")
    assert "MCP001 [*] Tool `search`: `query: str | None`" in check.output
    assert "args" not in check.output
    assert run("fix", "--write").exit_code == 0
    assert 'server = GuardedFastMCP("t")' in (project / "pkg" / "app.py").read_text()


def test_an_unchecked_tool_under_noqa_is_still_listed_and_never_passes(project):
    write(
        project,
        {
            "server.py": server("Unknown").replace(
                "def search(query: Unknown) -> str:", "def search(query: Unknown) -> str:  # noqa"
            )
        },
    )
    check = run("check")
    assert ": MCP004 " not in check.output  # suppressed: the user's decision, exit code 0
    assert check.exit_code == 0
    assert "All checks passed!" not in check.output
    assert "server.py:7: tool `search`: `query: Unknown` names `Unknown`" in check.output


def test_a_server_given_to_a_library_function_has_unchecked_tools(project):
    write(
        project,
        {
            "server.py": """\
            from company_plugins import attach_all
            from mcp.server.fastmcp import FastMCP

            mcp = FastMCP("t")
            attach_all(mcp)
            print(mcp)
            """
        },
    )
    check = run("check")
    assert check.exit_code == 1
    assert "server.py:5: the server is given to `company_plugins.attach_all`" in check.output
    assert "print" not in check.output
    assert run("fix", "--write").exit_code == 0
    assert 'mcp = GuardedFastMCP("t")' in (project / "server.py").read_text()


@pytest.mark.parametrize("annotation", ["Context | None", "Optional[Context]"])
def test_an_optional_context_is_injected_not_a_tool_argument(project, annotation):
    header = "from typing import Optional\n\nfrom mcp.server.fastmcp import Context\n"
    write(project, {"server.py": server(annotation, header)})
    assert "All checks passed!" in run("check").output


def test_a_server_given_to_the_frameworks_client_is_no_unchecked_registration(project):
    # Connecting to the server in memory (a smoke test beside the tools) registers nothing.
    write(
        project,
        {
            "server.py": server("str").replace(
                "from mcp.server.fastmcp import FastMCP",
                "from mcp.client import Client\nfrom mcp.server.fastmcp import FastMCP",
            )
            + """

async def smoke() -> None:
    async with Client(mcp) as client:
        await client.list_tools()
""",
        },
    )
    check = run("check", "--ignore", "MCP007")
    assert "is given to" not in check.output
    assert check.exit_code == 0


# The server stored where the analysis does not follow it: code that reads the container or the
# attribute later may register tools on it. Each statement stands after `mcp = FastMCP("t")`.
STORES = {
    "a list's append": ("registry = []\nregistry.append(mcp)", "given to `registry.append`"),
    "a list": ("servers = [mcp]", "stored in a list"),
    "a dictionary": ('servers = {"t": mcp}', "stored in a dictionary"),
    "a tuple returned": ("def pair():\n    return mcp, 3", "stored in a tuple"),
    "an item": ('servers = {}\nservers["t"] = mcp', 'stored in `servers["t"]`'),
    "another object's attribute": (
        "import types\n\nstate = types.SimpleNamespace()\nstate.server = mcp",
        "stored in `state.server`",
    ),
    "setattr": (
        'import types\n\nstate = types.SimpleNamespace()\nsetattr(state, "server", mcp)',
        "given to `setattr`",
    ),
}


@pytest.mark.parametrize("shape", sorted(STORES))
def test_a_server_stored_where_the_analysis_does_not_follow_has_unchecked_tools(project, shape):
    statement, use = STORES[shape]
    write(project, {"server.py": server("str") + "\n\n" + statement + "\n"})
    check = run("check", "--ignore", "MCP007")
    assert check.exit_code == 1, check.output
    assert "All checks passed!" not in check.output
    assert "MCP004 [*] Server FastMCP(...) is not guarded" in check.output
    assert f"the server is {use}, which the analysis does not follow" in check.output
    assert run("fix", "--write").exit_code == 0
    assert 'mcp = GuardedFastMCP("t")' in (project / "server.py").read_text()


@pytest.mark.parametrize("helper", ["remember", "keep"])
def test_a_helper_that_stores_the_server_it_is_given_counts_where_it_stores_it(project, helper):
    # The helper's module says neither `tool` nor a server class: it is read because the
    # server's module calls it (`keep` hands the server on to `remember`).
    write(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/registry.py": """\
            SERVERS = []


            def remember(server):
                SERVERS.append(server)


            def keep(server):
                remember(server)
            """,
            "pkg/app.py": server("str", f"from pkg.registry import {helper}\n")
            + f"\n\n{helper}(mcp)\n",
        },
    )
    check = run("check", "--ignore", "MCP007")
    assert check.exit_code == 1, check.output
    assert "registry.py:5: the server is given to `SERVERS.append`" in check.output
    assert run("fix", "--write").exit_code == 0
    assert 'mcp = GuardedFastMCP("t")' in (project / "pkg" / "app.py").read_text()


@pytest.mark.parametrize(
    "statement",
    [
        # Followed: the loop's body is read once per element, with `each` bound to it.
        "for each in [mcp]:\n    each.settings.debug = True",
        # Followed: a server held by an object of the project is resolved through `self`.
        "class Holder:\n    def __init__(self, server):\n        self.server = server\n\n\n"
        "Holder(mcp)",
        # The standard library prints or inspects it, or sets an attribute on it: nothing
        # registers a tool.
        'print(mcp)\nassert isinstance(mcp, object)\nsetattr(mcp, "started", True)',
        # What is stored is the server's application or settings, not the server.
        "apps = [mcp.sse_app()]\nnames = {'t': mcp.name}",
        # The object stored is not a server.
        "registry = []\nregistry.append(search)",
    ],
)
def test_uses_that_hand_nothing_on_leave_the_server_clean(project, statement):
    write(project, {"server.py": server("str") + "\n\n" + statement + "\n"})
    check = run("check", "--ignore", "MCP007")
    assert check.exit_code == 0, check.output
    assert "All checks passed!" in check.output


def test_an_application_object_stored_is_no_server_stored(project):
    # mcp-agent's `MCPApp` stands for the server its framework makes; the framework's own tools
    # on that server are counted where the app is built, not again where the app is kept.
    statement = "from mcp_agent.app import MCPApp\n\napp = MCPApp(name='a')\napps = [app]"
    write(project, {"server.py": server("str") + "\n\n" + statement + "\n"})
    check = run("check", "--ignore", "MCP007")
    assert "mcp-agent registers its `workflows-*` tools on this server" in check.output
    assert "the server is stored" not in check.output


def test_a_guarded_server_stored_anywhere_is_clean(project):
    write(
        project,
        {
            "server.py": server("str")
            .replace('mcp = FastMCP("t")', 'mcp = guard(FastMCP("t"))\nregistry = [mcp]')
            .replace(
                "from mcp.server.fastmcp import FastMCP",
                "from mcp.server.fastmcp import FastMCP\n\nfrom mcp_codemod.runtime import guard",
            )
        },
    )
    check = run("check", "--ignore", "MCP007")
    assert check.exit_code == 0, check.output


@pytest.mark.parametrize(
    ("statement", "use"),
    [
        # A method of an object whose class the analysis does not read.
        (
            "from company_plugins import PluginRegistry\n\nregistry = PluginRegistry()\n"
            "registry.register(mcp)",
            "given to `company_plugins.PluginRegistry.register`",
        ),
        # A class of the project without a constructor of its own: the instance keeps it.
        (
            "import dataclasses\n\n\n@dataclasses.dataclass\nclass Holder:\n    server: object"
            "\n\n\nholder = Holder(mcp)",
            "stored in an instance of `server.Holder`",
        ),
    ],
    ids=["a library object's method", "a dataclass of the project"],
)
def test_a_server_given_to_an_object_the_analysis_does_not_read_has_unchecked_tools(
    project, statement, use
):
    write(project, {"server.py": server("str") + "\n\n" + statement + "\n"})
    check = run("check", "--ignore", "MCP007")
    assert check.exit_code == 1, check.output
    assert f"the server is {use}, which the analysis does not follow" in check.output
    assert run("fix", "--write").exit_code == 0
    assert 'mcp = GuardedFastMCP("t")' in (project / "server.py").read_text()


def test_an_application_object_imported_and_given_to_a_library_is_no_server_given(project):
    # `from app import app` is mcp-agent's `MCPApp`, not a server: a test client made for it
    # registers nothing (the app's own framework tools are counted where it is built).
    write(
        project,
        {
            "app.py": "from mcp_agent.app import MCPApp\n\napp = MCPApp(name='a')\n",
            "client.py": server("str", "from httpx import AsyncClient\n\nfrom app import app\n")
            + "\n\nclient = AsyncClient(app=app)\n",
        },
    )
    check = run("check", "--ignore", "MCP007")
    assert "mcp-agent registers its `workflows-*` tools on this server" in check.output
    assert "is given to" not in check.output
