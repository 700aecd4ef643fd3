"""The codemod, as before/after pairs (libcst's CodemodTest style), and its safety guarantees."""

from __future__ import annotations

import ast
import json
import stat
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

from conftest import run_cli

from mcp_codemod.engine.checker import check_files
from mcp_codemod.fix.apply import fix_findings
from mcp_codemod.rules import select_rules


def fix_tree(tmp_path: Path, files: dict[str, str], rules=None) -> dict[str, str]:
    """Write `files`, fix them once in memory with the safe fixes (as `fix --write`), and return
    every file's text afterwards."""
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")
        paths.append(path)
    result = check_files(paths, rules or select_rules(None, []))
    safe = tuple(f for f in result.findings if f.applies(unsafe_fixes=False))
    outcome = fix_findings(safe, result.digests, frozenset(path.resolve() for path in paths))
    assert outcome.failures == ()
    fixed = {Path(change.path).resolve(): change.fixed for change in outcome.files}
    return {
        name: fixed.get((tmp_path / name).resolve(), dedent(text)) for name, text in files.items()
    }


def assert_fix(tmp_path: Path, before: str, after: str, rules=None) -> None:
    assert fix_tree(tmp_path, {"server.py": before}, rules)["server.py"] == dedent(after)


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


# ---- through the command line: safety ------------------------------------------------------

EXPOSED = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n\n\n@mcp.tool()\ndef f(q: str | None = None) -> str:\n    return q or ""\n'


def test_without_write_prints_a_diff_and_changes_nothing(tmp_path):
    (tmp_path / "server.py").write_text(EXPOSED)
    result = run_cli("fix", "server.py", cwd=tmp_path)
    assert result.exit_code == 1
    assert "+def f(q: Annotated[str | None, NoPreParse] = None) -> str:" in result.output
    assert (tmp_path / "server.py").read_text() == EXPOSED


def test_write_then_nothing_left_to_do(tmp_path):
    (tmp_path / "server.py").write_text(EXPOSED)
    assert run_cli("fix", "--write", "server.py", cwd=tmp_path).exit_code == 0
    fixed = (tmp_path / "server.py").read_text()
    assert "GuardedFastMCP" in fixed
    second = run_cli("fix", "--write", "--diff", "server.py", cwd=tmp_path)
    assert second.exit_code == 0 and "Nothing to fix." in second.output
    assert (tmp_path / "server.py").read_text() == fixed
    assert run_cli("check", "server.py", cwd=tmp_path).exit_code == 0


def test_crlf_bom_and_declared_encoding_survive(tmp_path):
    crlf = EXPOSED.replace("\n", "\r\n").encode("utf-8")
    (tmp_path / "crlf.py").write_bytes(b"\xef\xbb\xbf" + crlf)
    latin = ("# -*- coding: latin-1 -*-\n# caf\u00e9\n" + EXPOSED).encode("latin-1")
    (tmp_path / "latin.py").write_bytes(latin)
    assert run_cli("fix", "--write", ".", cwd=tmp_path).exit_code == 0
    data = (tmp_path / "crlf.py").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"NoPreParse" in data and data.count(b"\r\n") == data.count(b"\n")
    text = (tmp_path / "latin.py").read_bytes().decode("latin-1")
    assert "caf\u00e9" in text and "NoPreParse" in text


def test_write_keeps_the_mode_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "server.py"
    path.write_text(EXPOSED)
    path.chmod(0o750)
    assert run_cli("fix", "--write", "server.py", cwd=tmp_path).exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == [".mcp-codemod-cache", "server.py"]


def test_a_file_with_a_syntax_error_is_reported_and_left_alone(tmp_path):
    broken = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP(\n@mcp.tool()\ndef f(:\n"
    (tmp_path / "broken.py").write_text(broken)
    (tmp_path / "server.py").write_text(EXPOSED)
    result = run_cli("fix", "--write", ".", cwd=tmp_path)
    assert result.exit_code == 1
    assert "broken.py: error: cannot parse (line " in result.output
    assert "Traceback" not in result.output
    assert (tmp_path / "broken.py").read_text() == broken
    assert "NoPreParse" in (tmp_path / "server.py").read_text()


def test_fixed_fixtures_parse_pass_ruff_and_are_stable(fixtures_copy):
    before = {p: p.read_bytes() for p in fixtures_copy.rglob("*.py")}
    # Exit 1: the servers with only unseen tools are left to the unsafe fix.
    assert run_cli("fix", "--write", ".", cwd=fixtures_copy).exit_code == 1
    after = {p: p.read_bytes() for p in fixtures_copy.rglob("*.py")}
    for data in after.values():
        ast.parse(data)
    # Only files with fixable findings (or their servers and aliases) change.
    changed = {p.relative_to(fixtures_copy).as_posix() for p in after if after[p] != before[p]}
    assert "guarded_server.py" not in changed and "unresolved_server.py" not in changed
    again = run_cli("fix", "--write", ".", cwd=fixtures_copy).output
    # Every server with tools the analysis cannot see is guarded (MCP004's swap is safe, and
    # MCP001's guards the probe servers), also those that unresolved_server.py's registration
    # of unknown framework counted against; what is left is the parameters that take anything,
    # whose marker is the author's decision: `fix` does not pass while they are left.
    assert again.startswith("9 issues left after the fixes:")
    assert "Nothing to fix. 9 not fixed" in again
    assert "unprotected" not in again
    assert again.count("protected: the server is guarded") == 23
    check = json.loads(run_cli("check", "--output-format", "json", ".", cwd=fixtures_copy).stdout)
    findings = [f for f in check if f["type"] == "finding"]
    left = {(f["path"], f["parameter"], f["code"], f["fix"]["applicability"]) for f in findings}
    assert left == {
        ("mcp1_decorators.py", "value", "MCP001", "unsafe"),
        ("mcp1_decorators.py", "untyped", "MCP001", "unsafe"),
        ("variadic_server.py", "kwargs", "MCP001", "unsafe"),
        *(
            ("anything_server.py", name, "MCP001", "unsafe")
            for name in ("value", "raw", "thing", "either", "kwargs")
        ),
    }
    assert len(findings) == 9  # `kwargs` of two tools in variadic_server.py
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "E4,E7,E9,F", "."],
        cwd=fixtures_copy,
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout
    # The hidden fixes the summary promised are there to apply, and then none is left.
    # The markers make four `Any` parameters of unannotated ones, untyped schema nodes that
    # MCP007 fixes safely: the second round of the same run fixes them.
    unsafe = run_cli("fix", "--write", "--unsafe-fixes", ".", cwd=fixtures_copy)
    assert unsafe.output.startswith("Fixed 13 issues in 3 files.")
    after = run_cli("check", ".", cwd=fixtures_copy).stdout
    assert "MCP001" not in after and "MCP007" not in after and "hidden fix" not in after


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
