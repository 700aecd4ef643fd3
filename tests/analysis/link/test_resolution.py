"""How servers and tool functions are resolved, in the shapes real servers use (corpus/RESULTS.md)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from mcp_codemod.engine.checker import check_files
from mcp_codemod.fix.apply import fix_findings
from mcp_codemod.rules import select_rules


def check(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(dedent(text))
    return check_files([tmp_path / name for name in files], select_rules(None, []))


def every_file(directory: Path) -> frozenset[Path]:
    return frozenset(path.resolve() for path in directory.rglob("*.py"))


def found(result) -> set[tuple[str, str]]:
    return {(f.tool, f.parameter) for f in result.findings}


def test_a_function_nested_in_a_method_is_not_the_method(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": """\
                from mcp.server.fastmcp import FastMCP


                class Tools:
                    def __init__(self, mcp: FastMCP) -> None:
                        mcp.tool(name="groups")(self.describe_groups)

                    async def describe_groups(self, prefix: str | None = None) -> str:
                        def describe_groups() -> str:  # a helper of the same name
                            return ""

                        return describe_groups()

                    def setup(self, mcp: FastMCP) -> None:
                        @mcp.tool()
                        def find(query: str | None = None) -> str:
                            return query or ""


                app = FastMCP("x")
                Tools(app).setup(app)
                """,
        },
    )
    assert found(result) == {("groups", "prefix"), ("find", "query")}


def test_a_named_call_registration_counts_once(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": """\
                from mcp.server.fastmcp import FastMCP

                mcp = FastMCP("x")


                def find(query: str | None = None) -> str:
                    return query or ""


                for name in ["find", "search"]:
                    mcp.tool(name)(find)
                """,
        },
    )
    assert result.tools == 1 and result.unchecked == ()


def test_annotated_registrar_parameter_is_resolved_through_its_callers(tmp_path):
    # office-powerpoint-mcp-server: `register_tools(app: FastMCP)` called from the server module.
    files = {
        "tools.py": """\
            from typing import Optional

            from mcp.server.fastmcp import FastMCP


            def register_tools(app: FastMCP) -> None:
                @app.tool()
                def find(q: Optional[str] = None) -> str:
                    return q or ""
            """,
        "server.py": """\
            from mcp.server.fastmcp import FastMCP

            from tools import register_tools

            app = FastMCP("x")
            register_tools(app)
            """,
    }
    result = check(tmp_path, files)
    [finding] = result.findings
    [swap] = finding.fix.swaps
    assert swap.path.endswith("server.py")
    outcome = fix_findings(result.findings, result.digests, every_file(tmp_path))
    assert outcome.advice == ()
    fixed = {Path(change.path).name: change.fixed for change in outcome.files}
    assert 'app = GuardedFastMCP("x")' in fixed["server.py"]


def test_a_marked_parameter_on_an_unguarded_server_is_still_reported(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": """\
                from typing import Annotated

                from mcp.server.fastmcp import FastMCP
                from mcp_codemod.runtime import NoPreParse

                mcp = FastMCP("x")


                @mcp.tool()
                def find(q: Annotated[str | None, NoPreParse] = None) -> str:
                    return q or ""
                """,
        },
    )
    [finding] = result.findings
    assert "is marked NoPreParse, but its server (FastMCP(...)) is not guarded" in finding.message
    assert finding.fixable and finding.fix.markers == () and len(finding.fix.swaps) == 1


def test_one_note_per_server_out_of_reach(tmp_path):
    result = check(
        tmp_path,
        {
            "tools.py": """\
                from mcp.server.fastmcp import FastMCP


                def register(mcp: FastMCP) -> None:
                    @mcp.tool()
                    def a(x: str | None = None, y: str | None = None) -> str:
                        return ""

                    @mcp.tool()
                    def b(z: str | None = None) -> str:
                        return ""
                """,
        },
    )
    assert len(result.findings) == 3
    [note] = fix_findings(result.findings, result.digests, every_file(tmp_path)).advice
    assert note.endswith(
        "tools.py:6: the server (an instance of mcp.server.fastmcp.FastMCP) is built outside the"
        " code this fix can rewrite: pass it through `mcp_codemod.runtime.guard(server)` before"
        " it serves requests"
    )


def test_a_registrar_called_with_an_imported_server_is_followed(tmp_path):
    # `main.py` names nothing the prefilter looks for: it imports the server and passes it on.
    files = {
        "server.py": """\
            from mcp.server.fastmcp import FastMCP

            mcp = FastMCP("x")
            """,
        "tools.py": """\
            def register(server):
                @server.tool()
                def search(query: str | None = None) -> str:
                    return query or ""
            """,
        "main.py": """\
            from server import mcp
            from tools import register

            register(mcp)
            """,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(dedent(text))
    everything = check_files(sorted(tmp_path.glob("*.py")), select_rules(None, []))
    staged = check_files([tmp_path / "tools.py"], select_rules(None, []))
    for result in (everything, staged):
        assert found(result) == {("search", "query")}
        assert result.unchecked == ()
