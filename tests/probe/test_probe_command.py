"""`mcp-codemod probe TARGET`: loading the target, the table, JSON, and the exit codes."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner
from demo_servers import tools_module

from mcp_codemod.cli import main

from .servers import FASTMCP_MAJOR, MCP_FRAMEWORK, MCP_MAJOR, NOTES, NOTES_FASTMCP, server_source

pytestmark = pytest.mark.sdk

needs_mcp = pytest.mark.skipif(MCP_MAJOR is None, reason="mcp is not installed")


@pytest.fixture(autouse=True)
def restore_sys_path(monkeypatch):
    # Loading a file target puts its directories on sys.path, for the life of the process.
    monkeypatch.setattr(sys, "path", list(sys.path))


def probe(*args: str):
    return CliRunner().invoke(main, ["probe", *args])


@needs_mcp
def test_table_of_the_arguments_that_do_not_arrive_as_sent():
    result = probe(f"{NOTES}:mcp")

    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["TOOL", "PARAMETER", "SENT", "RECEIVED"]
    assert lines[1].split() == ["search", "query", "'null'", "None"]
    assert lines[2].split(maxsplit=3) == [
        "search",
        "query",
        "'[1]'",
        "rejected: Input should be a valid string [string_type] (the validator got [1])",
    ]
    assert {line.split()[0] for line in lines[1:-1]} == {
        "search",
        "annotate",
        "set_title",
        "set_body",
    }
    assert lines[-1] == (
        "12 arguments changed or rejected, in 4 parameters of 4 tools "
        f"(probed 4 tools of 'notes', {MCP_FRAMEWORK})."
    )


@needs_mcp
def test_json_output():
    result = probe(f"{NOTES}:counters", "--output-format", "json")

    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout) == [
        {
            "tool": "goto",
            "parameter": "line",
            "kind": "whole-float",
            "sent": 5.0,
            "outcome": "rejected",
            "received": None,
            "error": "Input should be a valid integer [int_type]",
            "schema_path": None,
        }
    ]


@needs_mcp
def test_json_output_of_a_changed_argument():
    [first, *_] = json.loads(probe(f"{NOTES}:mcp", "--output-format", "json").stdout)

    assert first == {
        "tool": "search",
        "parameter": "query",
        "kind": "text",
        "sent": "null",
        "outcome": "changed",
        "received": "None",
        "error": None,
        "schema_path": None,
    }


@needs_mcp
def test_guarded_server_exits_zero(tmp_path):
    path = tmp_path / "guarded_echo.py"
    path.write_text(server_source(guarded=True), encoding="utf-8")

    result = probe(f"{path}:server")

    assert result.exit_code == 0, result.output
    assert (
        result.stdout
        == f"Every argument arrives as sent (probed 1 tool of 'echo', {MCP_FRAMEWORK}).\n"
    )
    assert probe(f"{path}:server", "--output-format", "json").stdout == "[]\n"


@pytest.mark.skipif(FASTMCP_MAJOR is None, reason="fastmcp is not installed")
def test_fastmcp_server_exits_zero():
    result = probe(f"{NOTES_FASTMCP}:mcp")

    assert result.exit_code == 0, result.output
    assert (
        "Every argument arrives as sent (probed 1 tool of 'standalone', fastmcp " in result.stdout
    )


@needs_mcp
def test_dotted_module_target(tmp_path, monkeypatch):
    package = tmp_path / "dotted_probe_app"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from types import SimpleNamespace\n\nfrom .server import server\n\n"
        "holder = SimpleNamespace(server=server)\n",
        encoding="utf-8",
    )
    (package / "server.py").write_text(server_source(guarded=False), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    for target in ("dotted_probe_app.server:server", "dotted_probe_app:holder.server"):
        result = probe(target)

        assert result.exit_code == 1, result.output
        assert result.stdout.splitlines()[1].split()[:2] == ["echo", "text"]


@needs_mcp
def test_file_inside_a_package_is_imported_as_part_of_it(tmp_path):
    # The relative import only works when app.py is imported as path_probe_app.app.
    package = tmp_path / "path_probe_app"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "tools.py").write_text(server_source(guarded=False), encoding="utf-8")
    (package / "app.py").write_text("from .tools import server as mcp\n", encoding="utf-8")

    result = probe(f"{package / 'app.py'}:mcp")

    assert result.exit_code == 1, result.output
    assert "echo" in result.stdout


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("server.py:", "'server.py:' is not MODULE[:ATTRIBUTE] or PATH.py[:ATTRIBUTE]"),
        ("missing/server.py:mcp", "missing/server.py: no such file"),
        ("missing/server.py", "missing/server.py: no such file"),
        (
            "no_such_probe_module:mcp",
            "cannot import no_such_probe_module: ModuleNotFoundError: "
            "No module named 'no_such_probe_module'",
        ),
    ],
)
def test_target_errors_exit_2_with_one_line(target, message):
    result = probe(target)

    assert result.exit_code == 2
    assert result.stderr == f"mcp-codemod: error: {message}\n"
    assert result.stdout == ""


@needs_mcp
def test_without_attribute_the_modules_one_server_is_probed(tmp_path, monkeypatch):
    path = tmp_path / "single_probe_server.py"
    path.write_text(server_source(guarded=False), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    for target in (str(path), "single_probe_server"):
        result = probe(target)

        assert result.exit_code == 1, result.output
        assert result.stdout.splitlines()[1].split()[:2] == ["echo", "text"]


@needs_mcp
def test_without_attribute_several_servers_are_listed():
    result = probe(str(NOTES))

    assert result.exit_code == 2
    assert result.stderr == (
        f"mcp-codemod: error: {NOTES} has 2 servers (mcp, counters); name one as {NOTES}:mcp\n"
    )


def test_without_attribute_a_module_without_servers(tmp_path):
    path = tmp_path / "serverless_probe_module.py"
    path.write_text("mcp = None\n", encoding="utf-8")

    result = probe(str(path))

    assert result.exit_code == 2
    assert result.stderr == (
        f"mcp-codemod: error: {path} has no server at its top level (an mcp FastMCP, an mcp "
        f"MCPServer or a fastmcp.FastMCP); name one as {path}:ATTRIBUTE\n"
    )


@needs_mcp
def test_file_name_with_dots(tmp_path):
    path = tmp_path / "echo.orig.py"
    path.write_text(server_source(guarded=False), encoding="utf-8")

    for target in (f"{path}:server", str(path)):
        result = probe(target)

        assert result.exit_code == 1, result.output
        assert result.stdout.splitlines()[1].split()[:2] == ["echo", "text"]


@needs_mcp
def test_file_name_with_dots_inside_a_package_keeps_relative_imports(tmp_path):
    package = tmp_path / "dots_probe_app"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "tools.py").write_text(server_source(guarded=True), encoding="utf-8")
    (package / "app.v2.py").write_text("from .tools import server as mcp\n", encoding="utf-8")

    result = probe(f"{package / 'app.v2.py'}:mcp")

    assert result.exit_code == 0, result.output
    assert "Every argument arrives as sent" in result.stdout


def test_module_that_fails_at_import(tmp_path):
    path = tmp_path / "broken_probe_server.py"
    path.write_text("raise RuntimeError('no database')\n", encoding="utf-8")

    result = probe(f"{path}:mcp")

    assert result.exit_code == 2
    assert result.stderr == (
        "mcp-codemod: error: cannot import broken_probe_server: RuntimeError: no database\n"
    )


@needs_mcp
def test_missing_attribute_and_not_a_server():
    missing = probe(f"{NOTES}:nothing")
    not_a_server = probe(f"{NOTES}:CALLS")

    assert (missing.exit_code, not_a_server.exit_code) == (2, 2)
    assert missing.stderr == f"mcp-codemod: error: module {NOTES.stem} has no attribute 'nothing'\n"
    assert not_a_server.stderr == (
        "mcp-codemod: error: builtins.list is not an mcp FastMCP, an mcp MCPServer "
        "or a fastmcp.FastMCP\n"
    )


def factory_source(*, asynchronous: bool = False) -> str:
    """The one-tool server of `server_source`, made by a function `create_server`."""
    source = server_source(guarded=False)
    imports, _, body = source.partition("\n\nserver = ")
    body = "server = " + body
    indented = "".join(f"    {line}" if line.strip() else line for line in body.splitlines(True))
    keyword = "async def" if asynchronous else "def"
    return f"{imports}\n\n\n{keyword} create_server():\n{indented}    return server\n"


@needs_mcp
@pytest.mark.parametrize("asynchronous", [False, True], ids=["function", "coroutine"])
def test_a_factory_is_called_with_no_arguments_for_the_server_it_makes(tmp_path, asynchronous):
    # fastmcp's CLI takes `server.py:create_server` and calls it (awaiting a coroutine).
    name = "async_factory_server" if asynchronous else "factory_server"
    path = tmp_path / f"{name}.py"
    path.write_text(factory_source(asynchronous=asynchronous), encoding="utf-8")

    result = probe(f"{path}:create_server")

    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[1].split()[:3] == ["echo", "text", "'null'"]


@needs_mcp
def test_a_factory_that_fails_or_needs_arguments_is_one_line(tmp_path):
    path = tmp_path / "failing_factory_server.py"
    path.write_text(
        "def create_server():\n    raise RuntimeError('no database')\n\n\n"
        "def create_named(name):\n    raise AssertionError('not called')\n",
        encoding="utf-8",
    )

    failing = probe(f"{path}:create_server")
    needs_arguments = probe(f"{path}:create_named")

    assert (failing.exit_code, needs_arguments.exit_code) == (2, 2)
    assert failing.stderr == (
        "mcp-codemod: error: cannot make the server: failing_factory_server:create_server() "
        "raised RuntimeError: no database\n"
    )
    assert needs_arguments.stderr.startswith(
        "mcp-codemod: error: cannot make the server: failing_factory_server:create_named() "
        "raised TypeError: "
    )


def test_module_name_taken_by_another_file(tmp_path):
    path = tmp_path / "json.py"
    path.write_text("mcp = None\n", encoding="utf-8")

    result = probe(f"{path}:mcp")

    assert result.exit_code == 2
    assert result.stderr.startswith("mcp-codemod: error: ")
    assert "the module name 'json' is taken by" in result.stderr


@needs_mcp
def test_a_server_without_tools_fails_the_probe(tmp_path):
    path = tmp_path / "empty_probe_server.py"
    source = server_source(guarded=False)
    path.write_text(source[: source.index("\n\n\n@")] + "\n", encoding="utf-8")

    result = probe(f"{path}:server")

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "mcp-codemod: error: probed nothing: server 'echo' has no tools once empty_probe_server "
        "is loaded; import the modules that register them with `--import MODULE`\n"
    )


SPLIT_SERVER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("split")
"""
SPLIT_ADMIN = tools_module(server="split_pkg.server")
SPLIT_TOOLS = """\
from .server import mcp


@mcp.tool()
def echo(text: str) -> str:
    return text
"""


@pytest.fixture
def split_package(tmp_path, monkeypatch):
    """A src-layout package whose server module registers no tools: two other modules do."""
    package = tmp_path / "src" / "split_pkg"
    package.mkdir(parents=True)
    files = {"__init__.py": "", "server.py": SPLIT_SERVER}
    files |= {"admin.py": SPLIT_ADMIN, "tools.py": SPLIT_TOOLS}
    for name, text in files.items():
        (package / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    yield "src/split_pkg/server.py:mcp"
    for name in [name for name in sys.modules if name.split(".")[0] == "split_pkg"]:
        del sys.modules[name]


@needs_mcp
@pytest.mark.skipif(MCP_MAJOR != 1, reason="the package is an mcp 1.x server")
def test_a_probe_of_nothing_names_the_modules_that_register_tools_and_the_command(split_package):
    result = probe(split_package)

    assert result.exit_code == 2
    assert result.stderr == (
        "mcp-codemod: error: probed nothing: server 'split' has no tools once split_pkg.server "
        "is loaded; split_pkg.admin, split_pkg.tools register tools on it: `mcp-codemod probe "
        "--import=split_pkg.admin --import=split_pkg.tools src/split_pkg/server.py:mcp`\n"
    )


@needs_mcp
@pytest.mark.skipif(MCP_MAJOR != 1, reason="the package is an mcp 1.x server")
def test_imported_modules_register_their_tools_before_the_probe(split_package):
    result = probe("--import=split_pkg.admin", "--import", "src/split_pkg/tools.py", split_package)

    assert result.exit_code == 1, result.output
    assert "(probed 2 tools of 'split', mcp 1.x FastMCP)" in result.stdout
    assert result.stdout.splitlines()[1].split() == ["search", "query", "'null'", "None"]


def test_help_names_the_target_forms():
    result = probe("--help")

    assert result.exit_code == 0
    assert "path/to/server.py:attr or package.module:attr" in result.stdout
