"""Where the imports `fix` adds go, as isort and ruff put them (before/after pairs,
tests/fix/import_pairs.py): sections, sorted positions, merged `from` imports, wrapping, after
the docstring and `__future__` imports, and the blank lines ruff wants after a new block.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import FIXTURES

from mcp_codemod.rules import RULES
from mcp_codemod.rules.model import Invalid

from .import_pairs import assert_fix, fix_once, sorted_imports


def test_typing_goes_to_the_standard_library_and_the_runtime_to_third_party(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                import os

                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("demo")


                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return os.sep + (query or "")
                """
        },
        {
            "server.py": """\
                import os
                from typing import Annotated

                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP("demo")


                @mcp.tool()
                def search(query: Annotated[str | None, NoPreParse] = None) -> str:
                    return os.sep + (query or "")
                """
        },
    )


def test_names_merge_into_existing_from_imports_in_sorted_position(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from typing import Optional

                from mcp.server.fastmcp import FastMCP
                from mcp_codemod.runtime import coerce_integer_arguments

                mcp = FastMCP("demo")


                @mcp.tool()
                def search(query: Optional[str] = None, extra: str | int = "") -> str:
                    return str(coerce_integer_arguments({}, None)) + (query or "")
                """
        },
        {
            "server.py": """\
                from typing import Annotated, Optional

                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse, coerce_integer_arguments

                mcp = GuardedFastMCP("demo")


                @mcp.tool()
                def search(
                    query: Annotated[Optional[str], NoPreParse] = None,
                    extra: Annotated[str | int, NoPreParse] = "",
                ) -> str:
                    return str(coerce_integer_arguments({}, None)) + (query or "")
                """
        },
    )


def test_one_name_a_line_imports_get_a_line(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from typing import (
                    TYPE_CHECKING,
                    Any,
                    Optional,
                )

                from mcp.server.fastmcp import Context, FastMCP

                mcp = FastMCP("demo")
                if TYPE_CHECKING:
                    Any = object


                @mcp.tool()
                def search(ctx: Context, query: Optional[str] = None) -> str:
                    return query or ""
                """
        },
        {
            "server.py": """\
                from typing import (
                    TYPE_CHECKING,
                    Annotated,
                    Any,
                    Optional,
                )

                from mcp.server.fastmcp import Context
                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP("demo")
                if TYPE_CHECKING:
                    Any = object


                @mcp.tool()
                def search(ctx: Context, query: Annotated[Optional[str], NoPreParse] = None) -> str:
                    return query or ""
                """
        },
    )


def test_an_import_that_grows_past_the_line_length_is_wrapped(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Optional, cast

                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("demo")
                HANDLERS: dict[str, Callable[..., Iterable[Any]]] = {}


                @mcp.tool()
                def search(mode: Literal["a", "null"] = "a", query: Optional[str] = None) -> str:
                    return cast(str, query) if TYPE_CHECKING else mode
                """
        },
        {
            "server.py": """\
                from typing import (
                    TYPE_CHECKING,
                    Annotated,
                    Any,
                    Callable,
                    Iterable,
                    Literal,
                    Optional,
                    cast,
                )

                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP("demo")
                HANDLERS: dict[str, Callable[..., Iterable[Any]]] = {}


                @mcp.tool()
                def search(
                    mode: Annotated[Literal["a", "null"], NoPreParse] = "a",
                    query: Annotated[Optional[str], NoPreParse] = None,
                ) -> str:
                    return cast(str, query) if TYPE_CHECKING else mode
                """
        },
    )


def test_a_module_without_imports_gets_a_block_after_its_docstring(tmp_path):
    assert_fix(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/tools.py": '''\
                """The tools."""

                def search(query: str | None = None) -> str:
                    return query or ""
                ''',
            "app/server.py": """\
                from mcp.server.fastmcp import FastMCP

                from app.tools import search

                mcp = FastMCP("demo")
                mcp.add_tool(search)
                """,
        },
        {
            "app/tools.py": '''\
                """The tools."""

                from typing import Annotated

                from mcp_codemod.runtime import NoPreParse


                def search(query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                ''',
            # The project's own modules come after third-party ones.
            "app/server.py": """\
                from mcp_codemod.runtime import GuardedFastMCP

                from app.tools import search

                mcp = GuardedFastMCP("demo")
                mcp.add_tool(search)
                """,
        },
    )


def test_future_import_stays_first(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                from __future__ import annotations

                import mcp.server.fastmcp as fm

                server = fm.FastMCP("demo")


                @server.tool()
                def search(query: str | None = None) -> str:
                    return query or ""
                """
        },
        {
            "server.py": """\
                from __future__ import annotations

                from typing import Annotated

                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                server = GuardedFastMCP("demo")


                @server.tool()
                def search(query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                """
        },
    )


def test_an_aliased_import_opens_the_third_party_section_between_the_others(tmp_path):
    assert_fix(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/server.py": """\
                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("demo")
                """,
            "app/tools.py": """\
                import os

                from app.server import mcp

                AcceptWholeFloat = NoPreParse = os.sep


                @mcp.tool()
                def search(query: str | None = None, page: int = 1) -> str:
                    return (query or NoPreParse) + AcceptWholeFloat * page
                """,
        },
        {
            "app/tools.py": """\
                import os
                from typing import Annotated

                from mcp_codemod.runtime import NoPreParse as _NoPreParse

                from app.server import mcp

                AcceptWholeFloat = NoPreParse = os.sep


                @mcp.tool()
                def search(query: Annotated[str | None, _NoPreParse] = None, page: int = 1) -> str:
                    return (query or NoPreParse) + AcceptWholeFloat * page
                """,
        },
    )


# ---- the invariant over the fixtures and the rules' examples -------------------------------


def test_fixture_servers_that_pass_ruffs_import_rules_still_do(tmp_path):
    tree = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, tree, ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py"))
    passing = [name for name in files if sorted_imports(tree, name)]
    assert len(passing) >= len(files) - 1  # notes_app/__init__.py is unsorted on purpose
    changed = fix_once(sorted(tree.rglob("*.py")))
    assert len(changed) > 10
    assert [name for name in passing if not sorted_imports(tree, name)] == []


FIXED_CASES = [
    pytest.param(case, id=f"{rule.code}-{index}")
    for rule in RULES
    for index, case in enumerate(c for c in rule.cases if isinstance(c, Invalid) and c.fixed)
]


@pytest.mark.parametrize("case", FIXED_CASES)
def test_rule_cases_are_sorted_before_and_after(tmp_path, case):
    (tmp_path / "before.py").write_text(case.source, encoding="utf-8")
    (tmp_path / "after.py").write_text(case.fixed, encoding="utf-8")
    assert sorted_imports(tmp_path, "before.py") and sorted_imports(tmp_path, "after.py")


# ---- a module without imports: the blank lines ruff wants after the new block ----------------

EXEC_SERVER = """\
    from pathlib import Path

    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("demo")

    exec((Path(__file__).parent / "tools.py").read_text(encoding="utf-8"))
    """


def test_a_comment_apart_from_the_function_below_gets_one_blank_line(tmp_path):
    # ruff counts the comment as the code after the imports, not as the function's.
    assert_fix(
        tmp_path,
        {
            "server.py": EXEC_SERVER,
            "tools.py": '''\
                """Tools that server.py execs in its own namespace."""
                # ruff: noqa: F821 (`mcp` is server.py's)


                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return query or ""
                ''',
        },
        {
            "tools.py": '''\
                """Tools that server.py execs in its own namespace."""

                from typing import Annotated

                from mcp_codemod.runtime import NoPreParse

                # ruff: noqa: F821 (`mcp` is server.py's)


                @mcp.tool()
                def search(query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                ''',
        },
    )


def test_a_comment_right_above_the_function_gets_two_blank_lines(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": EXEC_SERVER,
            "tools.py": '''\
                """Tools that server.py execs in its own namespace."""
                # Searching.
                @mcp.tool()
                def search(query: str | None = None) -> str:  # noqa: F821
                    return query or ""
                ''',
        },
        {
            "tools.py": '''\
                """Tools that server.py execs in its own namespace."""

                from typing import Annotated

                from mcp_codemod.runtime import NoPreParse


                # Searching.
                @mcp.tool()
                def search(query: Annotated[str | None, NoPreParse] = None) -> str:  # noqa: F821
                    return query or ""
                ''',
        },
    )


def test_extra_blank_lines_before_a_comment_shrink_to_the_one_ruff_wants(tmp_path):
    assert_fix(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/tools.py": '''\
                """The tools."""


                # Text as the client sent it.

                def search(query: str | None = None) -> str:
                    return query or ""
                ''',
            "app/server.py": """\
                from mcp.server.fastmcp import FastMCP

                from app.tools import search

                mcp = FastMCP("demo")
                mcp.add_tool(search)
                """,
        },
        {
            "app/tools.py": '''\
                """The tools."""

                from typing import Annotated

                from mcp_codemod.runtime import NoPreParse

                # Text as the client sent it.

                def search(query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                ''',
        },
    )
