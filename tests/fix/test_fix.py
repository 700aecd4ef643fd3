"""The markers the codemod writes on the reported parameters, as before/after pairs
(tests/fix/fix_pairs.py): around the annotation, inside the quotes of a string one, appended to an
existing `Annotated`, on each parameter of a shared alias, and `Annotated[Any, marker]` for an
unannotated one under unsafe fixes.
"""

from __future__ import annotations

import subprocess
import sys
from textwrap import dedent

from conftest import run_cli

from mcp_codemod.rules import select_rules

from .fix_pairs import assert_fix, fix_tree


def test_optional_text_is_wrapped_and_the_server_guarded(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("demo")  # the server


        @mcp.tool()
        def search(query: str | None = None, limit: int = 5) -> str:
            return query or ""
        """,
        """\
        from typing import Annotated

        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

        mcp = GuardedFastMCP("demo")  # the server


        @mcp.tool()
        def search(query: Annotated[str | None, NoPreParse] = None, limit: int = 5) -> str:
            return query or ""
        """,
    )


def test_string_annotation_is_rewritten_inside_the_quotes(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from typing import Annotated

        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("demo")


        @mcp.tool()
        def lookup(key: "str | None" = None, note: 'Annotated[str | None, "text"]' = None) -> str:
            return str((key, note))
        """,
        """\
        from typing import Annotated

        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

        mcp = GuardedFastMCP("demo")


        @mcp.tool()
        def lookup(key: "Annotated[str | None, NoPreParse]" = None, note: 'Annotated[str | None, "text", NoPreParse]' = None) -> str:
            return str((key, note))
        """,
    )


def test_existing_annotated_gets_the_marker_appended(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from typing import Annotated

        from mcp.server.mcpserver import MCPServer
        from pydantic import Field

        server = MCPServer("demo")


        @server.tool()
        def search(
            query: Annotated[
                str | None,
                Field(description="text"),
            ] = None,
            limit: Annotated[
                int,
                Field(strict=True)
            ] = 1,
            short: Annotated[str | None, Field(description="text")] = None,
        ) -> str:
            return query or ""
        """,
        """\
        from typing import Annotated

        from mcp_codemod.runtime import AcceptWholeFloat, GuardedMCPServer, NoPreParse
        from pydantic import Field

        server = GuardedMCPServer("demo")


        @server.tool()
        def search(
            query: Annotated[
                str | None,
                Field(description="text"),
                NoPreParse,
            ] = None,
            limit: Annotated[
                int,
                Field(strict=True),
                AcceptWholeFloat
            ] = 1,
            short: Annotated[str | None, Field(description="text"), NoPreParse] = None,
        ) -> str:
            return query or ""
        """,
    )


def test_a_shared_alias_is_left_as_it_is_and_each_parameter_marked(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from typing import Annotated, Optional

        from mcp.server.fastmcp import FastMCP, Context
        from pydantic import Field

        Query = Annotated[Optional[str], Field(description="text")]
        mcp = FastMCP("demo")


        @mcp.tool()
        def search(ctx: Context, query: Query = None, other: Query = None) -> str:
            return str((query, other))
        """,
        """\
        from typing import Annotated, Optional

        from mcp.server.fastmcp import Context
        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse
        from pydantic import Field

        Query = Annotated[Optional[str], Field(description="text")]
        mcp = GuardedFastMCP("demo")


        @mcp.tool()
        def search(
            ctx: Context,
            query: Annotated[Query, NoPreParse] = None,
            other: Annotated[Query, NoPreParse] = None,
        ) -> str:
            return str((query, other))
        """,
    )


def test_string_annotations_and_postponed_evaluation(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from __future__ import annotations

        from typing import TypeAlias

        import mcp.server.fastmcp as fm

        Name: TypeAlias = "str | None"
        server = fm.FastMCP("demo")


        def lookup(name: Name = None, key: "str | None" = None) -> str:
            return str((name, key))


        server.add_tool(lookup)
        """,
        """\
        from __future__ import annotations

        from typing import Annotated, TypeAlias

        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

        Name: TypeAlias = "str | None"
        server = GuardedFastMCP("demo")


        def lookup(
            name: Annotated[Name, NoPreParse] = None,
            key: Annotated["str | None", NoPreParse] = None,
        ) -> str:
            return str((name, key))


        server.add_tool(lookup)
        """,
    )


def test_strict_integers_get_the_whole_float_marker(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from typing import Annotated

        from fastmcp import FastMCP
        from pydantic import Field, StrictInt

        mcp = FastMCP("demo", strict_input_validation=True)


        @mcp.tool
        def page(
            number: StrictInt,
            size: int = Field(default=10, strict=True),
            offset: Annotated[int, Field(ge=0)] = 0,
            query: str | None = None,
        ) -> str:
            return str((number, size, offset, query))
        """,
        """\
        from typing import Annotated

        from fastmcp import FastMCP
        from mcp_codemod.runtime import AcceptNumberAsText, AcceptWholeFloat
        from pydantic import Field, StrictInt

        mcp = FastMCP("demo", strict_input_validation=True)


        @mcp.tool
        def page(
            number: Annotated[StrictInt, AcceptWholeFloat],
            size: Annotated[int, AcceptWholeFloat] = Field(default=10, strict=True),
            offset: Annotated[int, Field(ge=0), AcceptWholeFloat] = 0,
            query: Annotated[str | None, AcceptNumberAsText] = None,
        ) -> str:
            return str((number, size, offset, query))
        """,
    )


def test_any_and_unannotated_are_not_rewritten(tmp_path):
    source = """\
        from typing import Any

        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("demo")


        @mcp.tool()
        def echo(value: Any, other=None) -> str:
            return str((value, other))
        """
    # By the pre-parse's rules; MCP007 types `Any`'s schema node, a fix of its own.
    rules = select_rules(None, ["MCP007"])
    assert fix_tree(tmp_path, {"server.py": source}, rules)["server.py"] == dedent(source)


def test_non_ascii_text_before_the_annotation(tmp_path):
    assert_fix(
        tmp_path,
        """\
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("démo")


        @mcp.tool()
        def recherche(clé: str = "€", requête: str | None = None) -> str:
            return requête or clé
        """,
        """\
        from typing import Annotated

        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

        mcp = GuardedFastMCP("démo")


        @mcp.tool()
        def recherche(clé: str = "€", requête: Annotated[str | None, NoPreParse] = None) -> str:
            return requête or clé
        """,
    )


UNANNOTATED = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("meta")


@mcp.tool()
def set_meta(
    key,
    value=None,
    fallback="",
    *,
    strict=False,
    **kwargs,
) -> str:
    return repr((key, value, fallback, strict, kwargs))
"""


def test_unannotated_parameters_get_the_sdk_type_with_the_marker_under_unsafe_fixes(tmp_path):
    (tmp_path / "server.py").write_text(UNANNOTATED, encoding="utf-8")
    # All unsafe: nothing is written, and the findings are left (exit 1).
    assert (
        run_cli("fix", "--write", "--no-cache", "--ignore", "MCP007", ".", cwd=tmp_path).exit_code
        == 1
    )
    assert (tmp_path / "server.py").read_text(encoding="utf-8") == UNANNOTATED
    fixed = run_cli(
        "fix", "--write", "--no-cache", "--ignore", "MCP007", "--unsafe-fixes", ".", cwd=tmp_path
    )
    assert fixed.exit_code == 0, fixed.output
    assert (tmp_path / "server.py").read_text(encoding="utf-8") == dedent(
        """\
        from typing import Annotated, Any

        from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

        mcp = GuardedFastMCP("meta")


        @mcp.tool()
        def set_meta(
            key: Annotated[Any, NoPreParse],
            value: Annotated[Any, NoPreParse] = None,
            fallback: Annotated[Any, NoPreParse] = "",
            *,
            strict: Annotated[Any, NoPreParse] = False,
            **kwargs: Annotated[Any, NoPreParse],
        ) -> str:
            return repr((key, value, fallback, strict, kwargs))
        """
    )
    for command in (["check"], ["format", "--check"]):
        ruff = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--isolated", "server.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert ruff.returncode == 0, ruff.stdout
    check = run_cli(
        "check", "--no-cache", "--ignore", "MCP007", "--ignore", "MCP007", ".", cwd=tmp_path
    )
    assert check.stdout == "All checks passed!\n"
