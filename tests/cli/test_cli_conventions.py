"""The ruff conventions of the command line: unsafe fixes, `check --fix`, standard input,
statistics in every format, honest summaries, tracebacks on request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_servers import EXPOSED, UNKNOWN_FRAMEWORK, tools_module

from mcp_codemod.cli import main

PLUGINS = """\
import importlib

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("plugins")

for name in ("search", "fetch"):
    mcp.add_tool(importlib.import_module(f"plugins.{name}").run)
"""
TEXT_AND_ANYTHING = """\
from typing import Any

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("meta")


@mcp.tool()
def save(body: str | None = None) -> str:
    return body or ""


@mcp.tool()
def set_meta(value: Any) -> str:
    return repr(value)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def test_the_server_swap_for_unchecked_tools_is_a_safe_fix(project):
    (project / "server.py").write_text(PLUGINS)
    check = run("check", "--no-cache")
    assert check.exit_code == 1
    assert "MCP004 [*] Server FastMCP(...) is not guarded" in check.stdout
    assert "hidden fix" not in check.stdout
    safe = run("fix", "--write", "--no-cache")
    assert safe.exit_code == 0
    assert 'mcp = GuardedFastMCP("plugins")' in (project / "server.py").read_text()
    after = run("check", "--no-cache")
    assert after.exit_code == 0
    # The server is guarded; its unchecked tool is still named, and no check is said to have
    # passed on it (a strict integer it declares would refuse 5.0).
    assert "All checks passed!" not in after.stdout
    assert (
        "could not be checked, on servers that do not JSON-pre-parse text parameters"
        in after.stdout
    )
    assert "protected: the server is guarded" in after.stdout


def test_an_unsafe_fix_needs_unsafe_fixes_and_stays_promised_until_applied(project):
    # (MCP007's safe typing of `Any` aside.) The safe fix guards the server for `body`; `value: Any` keeps the SDK's decoding on the
    # guarded server, so its marker is still the hidden fix the summary promises.
    (project / "server.py").write_text(TEXT_AND_ANYTHING)
    check = run("check", "--no-cache", "--ignore", "MCP007")
    assert check.exit_code == 1
    assert "MCP001 [*] Tool `save`" in check.stdout
    assert "MCP001 Tool `set_meta`: `value: Any`" in check.stdout
    assert "1 hidden fix can be enabled with `mcp-codemod fix --write --unsafe-fixes`." in (
        check.stdout
    )
    assert (
        "MCP001 [*] Tool `set_meta`"
        in run("check", "--no-cache", "--ignore", "MCP007", "--unsafe-fixes").stdout
    )
    safe = run("fix", "--write", "--no-cache", "--ignore", "MCP007")
    # `check` after it exits 1, and so does `fix`, naming the step that fixes what is left.
    assert safe.exit_code == 1
    assert "1 hidden fix can be enabled with `--unsafe-fixes`" in safe.output
    assert (
        "  help: its fix is unsafe (review the diff it prints without --write): "
        "`mcp-codemod fix --write --unsafe-fixes .`"
    ) in safe.output
    fixed = (project / "server.py").read_text()
    assert 'mcp = GuardedFastMCP("meta")' in fixed
    assert "def set_meta(value: Any)" in fixed
    after_safe = run("check", "--no-cache", "--ignore", "MCP007")
    assert after_safe.exit_code == 1
    assert "All checks passed!" not in after_safe.stdout
    assert "MCP001 Tool `set_meta`: `value: Any` takes anything, and GuardedFastMCP" in (
        after_safe.stdout
    )
    assert "1 hidden fix can be enabled" in after_safe.stdout
    unsafe = run("fix", "--write", "--no-cache", "--ignore", "MCP007", "--unsafe-fixes")
    assert unsafe.exit_code == 0
    assert unsafe.output.startswith("Fixed 1 issue in 1 file.")
    assert "def set_meta(value: Annotated[Any, NoPreParse])" in (project / "server.py").read_text()
    done = run("check", "--no-cache", "--ignore", "MCP007")
    assert (done.exit_code, done.stdout) == (0, "All checks passed!\n")


def test_check_fix_is_fix_write(project):
    (project / "server.py").write_text(EXPOSED)
    result = run("check", "--fix", "--no-cache")
    assert result.exit_code == 0
    assert "Fixed 1 issue in 1 file." in result.output
    assert "Annotated[str | None, NoPreParse]" in (project / "server.py").read_text()


def test_check_reads_standard_input(project):
    result = run(
        "check", "--no-cache", "--stdin-filename", "app/server.py", "-", stdin=EXPOSED.encode()
    )
    assert result.exit_code == 1
    assert result.stdout.startswith("app/server.py:7:12: MCP001 [*] Tool `search`")
    assert not (project / "app").exists()
    assert run("check", "--stdin-filename", "x.py").exit_code == 2
    # As ruff: `check --fix -` prints the buffer fixed, and writes nothing.
    fixed = run(
        "check",
        "--no-cache",
        "--fix",
        "--stdin-filename",
        "app/server.py",
        "-",
        stdin=EXPOSED.encode(),
    )
    assert fixed.exit_code == 0, fixed.output
    assert "def search(query: Annotated[str | None, NoPreParse] = None)" in fixed.stdout
    assert not (project / "app").exists()


def test_statistics_in_every_format(project):
    (project / "server.py").write_text(EXPOSED)
    result = run("check", "--no-cache", "--statistics", "--output-format", "json")
    assert json.loads(result.stdout) == [
        {"code": "MCP001", "name": "json-pre-parsed-parameter", "count": 1, "fixable": True}
    ]
    for fmt in ("text", "github", "sarif"):
        table = run("check", "--no-cache", "--statistics", "--output-format", fmt).stdout
        assert table.startswith("    1\tMCP001\t[*] json-pre-parsed-parameter\n"), fmt


def test_statistics_count_the_registrations_not_checked(project):
    # They decide the exit code, so the counts show them beside the findings.
    (project / "company.py").write_text(UNKNOWN_FRAMEWORK)

    result = run("check", "--no-cache", "--statistics", "--output-format", "json")
    table = run("check", "--no-cache", "--statistics")

    assert (result.exit_code, table.exit_code) == (1, 1)
    assert json.loads(result.stdout) == [
        {
            "code": "unchecked-registration",
            "name": "unknown-framework",
            "count": 1,
            "fixable": False,
        }
    ]
    assert table.stdout.startswith("    1\tunchecked-registration\tunknown-framework\n")


def test_unchecked_tools_on_a_server_of_unknown_framework_never_pass(project):
    (project / "server.py").write_text(UNKNOWN_FRAMEWORK)
    result = run("check", "--no-cache")
    assert result.exit_code == 1
    assert "All checks passed!" not in result.output
    [record] = json.loads(run("check", "--no-cache", "--output-format", "json").stdout)
    assert (record["type"], record["kind"], record["protected"]) == (
        "unchecked-registration",
        "unknown-framework",
        False,
    )
    stated = run("check", "--no-cache", "--framework", "mcp1")
    assert stated.exit_code == 1 and "MCP001 [*]" in stated.stdout


def test_long_annotations_are_cut_in_messages_kept_whole_in_json(project):
    annotation = "str | " + " | ".join(f"Literal['{n:03}']" for n in range(60))
    (project / "server.py").write_text(
        EXPOSED.replace("from mcp", "from typing import Literal\nfrom mcp").replace(
            "query: str | None", f"query: {annotation}"
        )
    )
    [finding] = json.loads(run("check", "--no-cache", "--output-format", "json").stdout)
    assert finding["annotation"] == annotation
    assert "…`" in finding["message"] and len(finding["message"]) < 250


def test_verbose_prints_the_traceback_of_an_internal_error(project, monkeypatch):
    monkeypatch.setenv("MCP_CODEMOD_DEBUG", "")  # restored after the test: --verbose sets it
    (project / "server.py").write_text(EXPOSED)

    def broken(*args, **kwargs):
        raise KeyError("a bug of ours")

    monkeypatch.setattr("mcp_codemod.api.check_files", broken)
    quiet = run("check", "--no-cache")
    assert quiet.exit_code == 2
    assert "internal error (KeyError: 'a bug of ours'); please report it" in quiet.output
    assert "Traceback" not in quiet.output
    assert "--verbose" in quiet.output
    loud = run("check", "--verbose")
    assert loud.exit_code == 2 and "Traceback" in loud.output


def test_the_fix_summary_counts_a_finding_it_fixed_in_part(project):
    # The pre-commit hook passes the staged tools module; the server it must guard is in
    # another module. The marker is written, the finding is fixed in part and stays (the
    # summary's words: tests/cli/snapshots/cli-messages.txt).
    (project / "app").mkdir()
    (project / "app" / "__init__.py").write_text("")
    (project / "app" / "server.py").write_text(
        'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'
    )
    (project / "app" / "tools.py").write_text(tools_module(server="app.server"))

    result = run("fix", "--write", "--no-cache", "app/tools.py")

    assert result.exit_code == 1
    assert "NoPreParse" in (project / "app" / "tools.py").read_text()
    assert (project / "app" / "server.py").read_text().endswith('mcp = FastMCP("x")\n')
    left = json.loads(run("check", "--no-cache", "--output-format", "json", "app/tools.py").stdout)
    assert [(f["code"], f["path"], f["tool"]) for f in left] == [
        ("MCP001", "app/tools.py", "search")
    ]
