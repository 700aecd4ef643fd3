"""The file's own text around the imports `fix` edits (before/after pairs,
tests/fix/import_pairs.py): line endings and encodings, what libcst cannot parse, an import in
a function, a statement sharing its line, the header comment.
"""

from __future__ import annotations

import pytest
from conftest import run_cli

from .import_pairs import assert_fix, fix_once

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
