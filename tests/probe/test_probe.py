"""`probe_server`: the framework's own argument handling, on the fixture servers and a table of
annotations, for the installed mcp 1.x or 2.x and standalone fastmcp."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Literal

import pytest
from click.testing import CliRunner
from pydantic import Field, StrictInt

from mcp_codemod.cli import main
from mcp_codemod.probe.argument_handling import NotAServerError
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.runtime import AcceptWholeFloat, guard, install, uninstall

from .servers import FASTMCP_MAJOR, MCP_FRAMEWORK, NOTES, NOTES_FASTMCP, load

pytestmark = pytest.mark.sdk


def outcomes(report) -> set[tuple[str, str, Any, str]]:
    return {(p.tool, p.parameter, p.sent, p.outcome) for p in report.problems}


def text_problems(tool: str, parameter: str) -> set[tuple[str, str, Any, str]]:
    """What the mcp SDK's pre-parse does to a `str | None` parameter."""
    return {
        (tool, parameter, "null", "changed"),
        (tool, parameter, "[1]", "rejected"),
        (tool, parameter, '{"a": 1}', "rejected"),
    }


def test_unguarded_server_names_each_pre_parsed_parameter(notes):
    report = probe_server(notes.mcp)

    assert report.server == "notes"
    assert report.framework == MCP_FRAMEWORK
    # set_title and set_body are registered in a loop, where `mcp-codemod check` cannot see them.
    assert report.tools == ("search", "annotate", "set_title", "set_body")
    assert outcomes(report) == (
        text_problems("search", "query")
        | text_problems("annotate", "comment")
        | text_problems("set_title", "value")
        | text_problems("set_body", "value")
    )
    null, listed, _ = (p for p in report.problems if p.tool == "search")
    assert (null.received, null.error) == (None, None)
    assert listed.error == "Input should be a valid string [string_type] (the validator got [1])"
    assert report.not_probed == ()


def test_guard_makes_the_same_server_pass(notes):
    guard(notes.mcp)

    report = probe_server(notes.mcp)

    assert report.problems == ()
    assert len(report.tools) == 4


def test_install_makes_the_same_server_pass(notes):
    install()
    try:
        assert probe_server(notes.mcp).problems == ()
    finally:
        uninstall()
    assert probe_server(notes.mcp).problems != ()


def test_strict_integer_rejects_a_whole_float(notes):
    report = probe_server(notes.counters)

    assert outcomes(report) == {("goto", "line", 5.0, "rejected")}
    assert report.problems[0].error == "Input should be a valid integer [int_type]"


def test_tool_bodies_never_run(notes):
    # Every fixture tool appends to CALLS and raises before returning.
    for server in (notes.mcp, notes.counters):
        probe_server(server)

    assert notes.CALLS == []


def annotation_table(server: Any) -> Any:
    """One tool with a parameter per annotation, on any framework's server."""

    @server.tool()
    def table(
        text: str = "",
        optional: str | None = None,
        literal: Literal["a", "null"] = "a",
        either: str | list[str] = "",
        anything: Any = None,
        tags: list[str] | None = None,
        count: int = 1,
        maybe: int | None = None,
        strict: StrictInt = 1,
        floor: Annotated[StrictInt, Field(ge=10)] = 10,
        whole: Annotated[StrictInt, AcceptWholeFloat] = 1,
        ratio: float = 1.0,
        flag: bool = False,
    ) -> str:
        raise RuntimeError("a probe ran the body of table")

    return server


STRICT_INTEGERS = {
    ("table", "strict", 5.0, "rejected"),
    # Sent within the parameter's bounds: 10.0, not a 5.0 that `ge=10` refuses anyway.
    ("table", "floor", 10.0, "rejected"),
}


def test_annotation_table_on_the_mcp_sdk(notes):
    server = annotation_table(type(notes.mcp)("table"))

    assert outcomes(probe_server(server)) == STRICT_INTEGERS | {
        *text_problems("table", "optional"),
        # Text a Literal or union refuses anyway is not sent: only what the pre-parse breaks.
        ("table", "literal", "null", "rejected"),
        ("table", "either", "null", "rejected"),
        ("table", "either", "[1]", "rejected"),
        ("table", "either", '{"a": 1}', "rejected"),
        ("table", "anything", "null", "changed"),
        ("table", "anything", "[1]", "changed"),
        ("table", "anything", '{"a": 1}', "changed"),
    }
    # The guard keeps the SDK's decoding for `Any` until the parameter is marked.
    assert outcomes(probe_server(guard(server))) == STRICT_INTEGERS | {
        ("table", "anything", "null", "changed"),
        ("table", "anything", "[1]", "changed"),
        ("table", "anything", '{"a": 1}', "changed"),
    }


def test_annotation_table_on_fastmcp(notes_fastmcp):
    fastmcp = sys.modules["fastmcp"]
    lax = annotation_table(fastmcp.FastMCP("lax"))
    strict = annotation_table(fastmcp.FastMCP("strict", strict_input_validation=True))

    # fastmcp does not decode JSON text: `tags` refuses its value sent as text.
    json_text = {("table", "tags", '["a"]', "rejected")}
    assert outcomes(probe_server(lax)) == STRICT_INTEGERS | json_text
    if FASTMCP_MAJOR >= 3:
        # Strict pydantic validation of JSON: every plain integer refuses 5.0.
        assert outcomes(probe_server(strict)) == STRICT_INTEGERS | json_text | {
            ("table", "count", 5.0, "rejected"),
            ("table", "maybe", 5.0, "rejected"),
        }
    else:
        # 2.x checks the JSON schema (5.0 is an integer there), then validates laxly.
        assert outcomes(probe_server(strict)) == STRICT_INTEGERS | json_text


def test_fastmcp_text_parameters_arrive_unchanged(notes_fastmcp):
    report = probe_server(notes_fastmcp.mcp)

    assert report.tools == ("search",)
    assert report.problems == ()
    assert report.framework.startswith("fastmcp ")


def test_fastmcp_strict_mode_and_accept_whole_float(notes_fastmcp):
    report = probe_server(notes_fastmcp.strict)

    assert report.framework.endswith("(strict input validation)")
    # `size` is marked AcceptWholeFloat; `page` is a plain int.
    expected = {("paginate", "page", 5.0, "rejected")} if FASTMCP_MAJOR >= 3 else set()
    assert outcomes(report) == expected
    assert notes_fastmcp.CALLS == []


def test_fastmcp_tools_it_cannot_reproduce_are_named(notes_fastmcp):
    from fastmcp.tools import Tool

    class Raw(Tool):
        async def run(self, arguments):
            raise RuntimeError("a probe ran a raw tool")

    server = notes_fastmcp.mcp
    server.add_tool(Raw(name="raw", parameters={"type": "object", "properties": {}}))

    report = probe_server(server)

    assert report.tools == ("search",)
    assert report.not_probed == (("raw", "a Raw, not a FunctionTool"),)


def test_anything_else_is_not_a_server():
    with pytest.raises(NotAServerError, match=r"builtins\.dict is not an mcp FastMCP"):
        probe_server({})


def test_importing_needs_neither_libcst_nor_pydantic():
    # cli.py imports the command, and the pre-commit hooks' environment has no pydantic.
    code = (
        "import sys; sys.modules.update(libcst=None, pydantic=None, pydantic_core=None); "
        "import mcp_codemod.probe.server_probe, mcp_codemod.probe.targets, mcp_codemod.testing"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def fixed_copy(source: Path, tmp_path: Path) -> ModuleType:
    """`mcp-codemod fix --write` on a copy of a fixture, then the copy, freshly imported."""
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    result = CliRunner().invoke(main, ["fix", "--write", str(copy)])
    assert result.exit_code == 0, result.output
    assert copy.read_text(encoding="utf-8") != source.read_text(encoding="utf-8")
    return load(copy)


def test_server_passes_after_fix_write(notes, tmp_path):
    fixed = fixed_copy(NOTES, tmp_path)

    # The loop-registered tools pass too: fix guarded their server's class.
    for server in (fixed.mcp, fixed.counters):
        assert probe_server(server).problems == ()
    assert fixed.CALLS == []


def test_fastmcp_server_passes_after_fix_write(notes_fastmcp, tmp_path):
    fixed = fixed_copy(NOTES_FASTMCP, tmp_path)

    assert probe_server(fixed.strict).problems == ()
    assert fixed.CALLS == []
