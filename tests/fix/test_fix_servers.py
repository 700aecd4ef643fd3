"""The server the codemod guards, as before/after pairs (tests/fix/fix_pairs.py): a subclass's
base, a server passed to class-based tools, a server module fixed where it lives.
"""

from __future__ import annotations

from textwrap import dedent

from mcp_codemod.engine.checker import check_files
from mcp_codemod.fix.apply import fix_findings
from mcp_codemod.rules import select_rules

from .fix_pairs import assert_fix, fix_tree


def test_subclass_base_becomes_the_guarded_class(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from mcp.server.fastmcp import FastMCP


        class App(FastMCP):
            pass


        app = App("demo")


        @app.tool()
        def search(query: str | None = None) -> str:
            return query or ""


        def is_server(value: object) -> bool:
            return isinstance(value, FastMCP)
        """,
        """\
        from typing import Annotated

        from mcp.server.fastmcp import FastMCP
        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse


        class App(GuardedFastMCP):
            pass


        app = App("demo")


        @app.tool()
        def search(query: Annotated[str | None, NoPreParse] = None) -> str:
            return query or ""


        def is_server(value: object) -> bool:
            return isinstance(value, FastMCP)
        """,
    )


def test_class_based_tools_on_a_server_passed_in(tmp_path):
    files = {
        "tools.py": """\
            from mcp.server.fastmcp import FastMCP


            class Tools:
                def __init__(self, mcp: FastMCP) -> None:
                    self.mcp = mcp
                    self.mcp.tool(name="find")(self.find)

                def find(self, title: str | None = None) -> str:
                    return title or ""
            """,
    }
    fixed = fix_tree(tmp_path, files)
    assert "def find(self, title: Annotated[str | None, NoPreParse] = None)" in fixed["tools.py"]
    # The construction is out of reach: nothing is guessed, the user is told what to add.
    assert "GuardedFastMCP" not in fixed["tools.py"]
    result = check_files([tmp_path / "tools.py"], select_rules(None, []))
    writable = frozenset([(tmp_path / "tools.py").resolve()])
    [advice] = fix_findings(result.findings, result.digests, writable).advice
    assert "guard(server)" in advice and "tools.py:9" in advice


def test_server_module_is_fixed_where_it_lives(tmp_path):
    fixed = fix_tree(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/server.py": """\
                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("demo")
                """,
            "app/tools.py": """\
                from app.server import mcp


                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return query or ""
                """,
        },
    )
    assert fixed["app/server.py"] == dedent("""\
        from mcp_codemod.runtime import GuardedFastMCP

        mcp = GuardedFastMCP("demo")
        """)
    assert "query: Annotated[str | None, NoPreParse] = None" in fixed["app/tools.py"]


def test_tools_registered_on_self_in_a_server_subclass(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from mcp.server.fastmcp import FastMCP


        class App(FastMCP):
            def setup(self) -> None:
                self.tool(name="find")(self.find)

            def find(self, q: str | None = None) -> str:
                return q or ""
        """,
        """\
        from typing import Annotated

        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse


        class App(GuardedFastMCP):
            def setup(self) -> None:
                self.tool(name="find")(self.find)

            def find(self, q: Annotated[str | None, NoPreParse] = None) -> str:
                return q or ""
        """,
    )
