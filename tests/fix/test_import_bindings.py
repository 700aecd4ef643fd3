"""The names a module already binds, where `fix` adds imports (before/after pairs,
tests/fix/import_pairs.py): an `Annotated` or a `typing` alias reused, a name bound to
something else imported under an alias, a server class import kept where something still names
it.
"""

from __future__ import annotations

import pytest

from .import_pairs import assert_fix

# ---- names the module already binds --------------------------------------------------------


def test_annotated_from_typing_extensions_is_reused(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from mcp.server.fastmcp import FastMCP
                from typing_extensions import Annotated

                mcp = FastMCP("demo")


                @mcp.tool()
                def search(query: str | None = None, tag: Annotated[str, "tag"] = "") -> str:
                    return (query or "") + tag
                """
        },
        {
            "server.py": """\
                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse
                from typing_extensions import Annotated

                mcp = GuardedFastMCP("demo")


                @mcp.tool()
                def search(
                    query: Annotated[str | None, NoPreParse] = None, tag: Annotated[str, "tag"] = ""
                ) -> str:
                    return (query or "") + tag
                """
        },
    )


def test_a_module_alias_of_typing_is_reused(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                import typing as t

                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("demo")


                @mcp.tool()
                def search(query: t.Optional[str] = None) -> str:
                    return query or ""
                """
        },
        {
            "server.py": """\
                import typing as t

                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP("demo")


                @mcp.tool()
                def search(query: t.Annotated[t.Optional[str], NoPreParse] = None) -> str:
                    return query or ""
                """
        },
    )


def test_names_bound_to_something_else_are_imported_under_an_underscore_alias(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from mcp.server.fastmcp import FastMCP

                NoPreParse = "no pre-parse"
                mcp = FastMCP("demo")


                def Annotated(text: str) -> str:
                    return text


                class GuardedFastMCP:
                    pass


                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return Annotated(query or NoPreParse)
                """
        },
        {
            "server.py": """\
                from typing import Annotated as _Annotated

                from mcp_codemod.runtime import GuardedFastMCP as _GuardedFastMCP
                from mcp_codemod.runtime import NoPreParse as _NoPreParse

                NoPreParse = "no pre-parse"
                mcp = _GuardedFastMCP("demo")


                def Annotated(text: str) -> str:
                    return text


                class GuardedFastMCP:
                    pass


                @mcp.tool()
                def search(query: _Annotated[str | None, _NoPreParse] = None) -> str:
                    return Annotated(query or NoPreParse)
                """
        },
    )


@pytest.mark.parametrize(
    "use",
    [
        '__all__ = ["FastMCP", "mcp"]',
        'SERVER = cast("FastMCP", None)',
        'def build() -> "FastMCP":\n    return mcp',
    ],
    ids=["__all__", "cast", "string annotation"],
)
def test_the_server_class_import_stays_where_a_string_names_it(tmp_path, use):
    before = """\
        from typing import cast

        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("demo")
        {use}


        @mcp.tool()
        def search(query: str | None = None) -> str:
            return cast(str, query)
        """
    after = """\
        from typing import Annotated, cast

        from mcp.server.fastmcp import FastMCP
        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

        mcp = GuardedFastMCP("demo")
        {use}


        @mcp.tool()
        def search(query: Annotated[str | None, NoPreParse] = None) -> str:
            return cast(str, query)
        """
    use = use.replace("\n", "\n        ")
    assert_fix(
        tmp_path,
        {"server.py": before.format(use=use)},
        {"server.py": after.format(use=use)},
    )


def test_a_server_class_import_another_module_takes_is_kept_and_ruff_told_why(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from mcp.server.fastmcp import Context, FastMCP

                mcp = FastMCP("demo")


                @mcp.tool()
                def search(ctx: Context, query: str | None = None) -> str:
                    return query or ""
                """,
            "client.py": "from server import FastMCP\n",
        },
        {
            "server.py": """\
                from typing import Annotated

                from mcp.server.fastmcp import Context, FastMCP  # pyright: ignore[reportUnusedImport]  # noqa: F401 -- other modules import it from here
                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP("demo")


                @mcp.tool()
                def search(ctx: Context, query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                """,
        },
    )


def test_a_kept_import_continued_with_a_backslash_gets_no_comment(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from mcp.server.fastmcp import FastMCP, \\
                    Context

                mcp = FastMCP("demo")


                @mcp.tool()
                def search(ctx: Context, query: str | None = None) -> str:
                    return query or ""
                """,
            "client.py": "import server\n\nKIND = server.FastMCP\n",
        },
        {
            "server.py": """\
                from typing import Annotated

                from mcp.server.fastmcp import FastMCP, \\
                    Context
                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP("demo")


                @mcp.tool()
                def search(ctx: Context, query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                """,
        },
    )
