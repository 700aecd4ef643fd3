"""The imports `fix` adds and removes, as before/after pairs: where isort and ruff put them, the
names the module already binds, line endings and encodings.

Every pair is also fixed a second time (nothing may change), parsed, and linted with
`ruff check --isolated --select I` (import order, default settings): a file that passed before
passes after.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import FIXTURES, run_cli

from mcp_codemod.engine.checker import check_files
from mcp_codemod.fix.apply import fix_findings, write
from mcp_codemod.rules import RULES, select_rules
from mcp_codemod.rules.model import Invalid


def fix_once(paths: list[Path]) -> list[Path]:
    """Fix `paths` in place; the files that changed."""
    result = check_files(paths, select_rules(None, []))
    outcome = fix_findings(result.findings, result.digests, {p.resolve() for p in paths})
    assert outcome.failures == ()
    for change in outcome.files:
        write(change)
    return [Path(change.path) for change in outcome.files]


def sorted_imports(directory: Path, name: str) -> bool:
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", "I", name],
        cwd=directory,
        capture_output=True,
        text=True,
    )
    assert lint.returncode in (0, 1), lint.stderr
    return lint.returncode == 0


def assert_fix(tmp_path: Path, files: dict[str, str], expected: dict[str, str]) -> None:
    """Write `files`, fix them, compare with `expected` (the files that change), then fix again."""
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8", newline="")
        paths.append(path)
    sorted_before = {name: sorted_imports(tmp_path, name) for name in files}
    fix_once(paths)
    for name, text in expected.items():
        assert (tmp_path / name).read_bytes().decode() == dedent(text), name
    for name in files:
        fixed = (tmp_path / name).read_bytes().decode()
        ast.parse(fixed)
        if sorted_before[name]:
            assert sorted_imports(tmp_path, name), f"{name} passed ruff's I rules before the fix"
    assert fix_once(paths) == []


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


# ---- line endings and encodings ------------------------------------------------------------

CR_BEFORE = (
    'import os\r\rfrom mcp.server.fastmcp import FastMCP\r\rmcp = FastMCP("x")\r\r\r'
    "@mcp.tool()\rdef f(q: str | None = None) -> str:\r    return os.sep + (q or '')\r"
)
CR_AFTER = (
    "import os\rfrom typing import Annotated\r\r"
    'from mcp_codemod.runtime import GuardedFastMCP, NoPreParse\r\rmcp = GuardedFastMCP("x")\r\r\r'
    "@mcp.tool()\rdef f(q: Annotated[str | None, NoPreParse] = None) -> str:\r"
    "    return os.sep + (q or '')\r"
)


def test_cr_only_line_endings_are_kept_everywhere(tmp_path):
    path = tmp_path / "server.py"
    path.write_bytes(CR_BEFORE.encode())
    fix_once([path])
    assert path.read_bytes() == CR_AFTER.encode()
    assert fix_once([path]) == []


def test_crlf_file_gets_crlf_import_lines(tmp_path):
    path = tmp_path / "server.py"
    path.write_bytes(CR_BEFORE.replace("\r", "\r\n").encode())
    fix_once([path])
    assert path.read_bytes() == CR_AFTER.replace("\r", "\r\n").encode()


@pytest.mark.parametrize("encoding", ["utf-7", "iso2022_jp"])
def test_encodings_that_are_not_ascii_compatible_are_left_alone(tmp_path, encoding):
    source = f"# -*- coding: {encoding} -*-\n" + CR_BEFORE.replace("\r", "\n")
    data = source.encode(encoding)
    (tmp_path / "server.py").write_bytes(data)
    result = run_cli("fix", "--write", "server.py", cwd=tmp_path)
    assert result.exit_code == 1
    assert (
        f"server.py: error: encoded in {encoding}, which is not ASCII-compatible; left unchanged\n"
        in result.output
    )
    assert "Traceback" not in result.output
    assert (tmp_path / "server.py").read_bytes() == data


def test_an_expression_libcst_cannot_parse_is_no_obstacle(tmp_path):
    # libcst's parser crashed the process on this (10,000 terms); Python's own parser takes it.
    big = " and ".join(["a"] * 10_000)
    path = tmp_path / "server.py"
    path.write_text(CR_BEFORE.replace("\r", "\n") + f"\na = True\nCHECK = {big}\n")
    fix_once([path])
    assert "GuardedFastMCP" in path.read_text()


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


def test_an_import_in_the_factory_that_built_the_server_goes_with_it(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                def create():
                    from mcp.server.fastmcp import FastMCP

                    return FastMCP("demo")


                def empty():
                    if True:
                        from mcp.server.fastmcp import FastMCP


                mcp = create()


                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return query or ""
                """
        },
        {
            "server.py": """\
                from typing import Annotated

                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse


                def create():

                    return GuardedFastMCP("demo")


                def empty():
                    if True:
                        pass


                mcp = create()


                @mcp.tool()
                def search(query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                """
        },
    )


def test_a_statement_sharing_its_line_is_never_cut(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                import os; from mcp.server.fastmcp import FastMCP  # noqa: E702

                mcp = FastMCP(os.name)


                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return query or ""
                """
        },
        {
            "server.py": """\
                import os; from mcp.server.fastmcp import FastMCP  # noqa: E702
                from typing import Annotated
                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP(os.name)


                @mcp.tool()
                def search(query: Annotated[str | None, NoPreParse] = None) -> str:
                    return query or ""
                """
        },
    )


def test_the_files_header_comment_stays_on_top(tmp_path):
    assert_fix(
        tmp_path,
        {
            "server.py": """\
                # Copyright the authors.
                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("demo")


                @mcp.tool()
                def search(query: str | None = None) -> str:
                    return query or ""
                """
        },
        {
            "server.py": """\
                # Copyright the authors.
                from typing import Annotated

                from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

                mcp = GuardedFastMCP("demo")


                @mcp.tool()
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
