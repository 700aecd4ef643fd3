"""`check` over the fixture servers: every expected finding, and nothing else."""

import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, expected_findings

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.rules import RULES, select_rules


def run(paths: list[Path], rules=None, framework=None):
    files = discover(paths, DEFAULT_EXCLUDE, respect_gitignore=True)
    return check_files(files, rules or select_rules(None, []), framework)


def found(result, base: Path = FIXTURES) -> set[tuple[str, int, str, str]]:
    return {
        (
            Path(f.path).resolve().relative_to(base).as_posix(),
            f.line,
            f.code,
            f.parameter or "server",
        )
        for f in result.findings
    }


def test_every_expected_finding_and_no_other():
    result = run([FIXTURES])
    assert found(result) == expected_findings(FIXTURES)
    assert result.errors == ()


def test_negatives_produce_nothing():
    negatives = ["fastmcp_server.py", "guarded_server.py"]
    result = run([FIXTURES / name for name in negatives])
    # Only the strict fastmcp server's integers, and fastmcp's `str | None`, which rejects
    # digits sent as a number (MCP008); no text parameter is pre-parsed on either.
    assert {(f.tool, f.parameter, f.code) for f in result.findings} == {
        ("paginate", "page", "MCP002"),
        ("count_words", "limit", "MCP002"),
        ("search", "query", "MCP008"),
        ("paginate", "cursor", "MCP008"),
        ("count_words", "text", "MCP008"),
    }


def test_unresolved_server_is_counted_not_guessed():
    result = run([FIXTURES / "unresolved_server.py"])
    assert result.findings == ()
    assert result.tools == 1
    [unchecked] = result.unchecked
    assert unchecked.line == 8
    assert "company_toolkit.build_server" in unchecked.reason


def test_stated_framework_checks_unresolved_servers():
    result = run([FIXTURES / "unresolved_server.py"], framework=Framework.MCP1)
    assert [(f.line, f.code, f.parameter) for f in result.findings] == [(9, "MCP001", "query")]
    assert result.unchecked == ()


def test_large_id_rule_only_when_selected():
    assert not [f for f in run([FIXTURES]).findings if f.code == "MCP003"]
    result = run([FIXTURES], rules=select_rules(["MCP003"], []))
    assert {(Path(f.path).name, f.parameter) for f in result.findings} == {
        ("mcp1_strict_integers.py", "message_id"),
        ("mcp1_class_based.py", "note_id"),
    }


def test_given_files_still_follow_imports_into_the_project():
    # Pre-commit passes only the staged file: its server comes from another module on disk.
    result = run([FIXTURES / "notes_app" / "tools.py"])
    assert {(f.tool, f.parameter) for f in result.findings} == {
        ("create_note", "title"),
        ("delete_note", "title"),
    }
    # Findings stay in the files that were given.
    assert run([FIXTURES / "notes_app" / "server.py"]).findings == ()


def test_given_registrar_files_still_find_the_callers_that_pass_the_server():
    # `register_lookup_tools(mcp)` is called from server.py, which was not given.
    result = run(
        [FIXTURES / "registrar_app" / "tools.py", FIXTURES / "registrar_app" / "handlers.py"]
    )
    assert {(f.tool, f.parameter) for f in result.findings} == {
        ("lookup", "key"),
        ("search", "query"),
        ("append_note", "text"),
    }
    assert result.unchecked == ()


def test_fixable_and_not_fixable():
    result = run([FIXTURES / "mcp1_decorators.py"])
    # The pre-parse's findings (MCP007's typing of `Any` is a safe fix of its own).
    findings = [f for f in result.findings if f.code != "MCP007"]
    safe = {f.parameter: f.applies(unsafe_fixes=False) for f in findings}
    assert safe["query"] and safe["described"] and safe["d"]
    # `Any` and unannotated: only the guarded server, an unsafe fix.
    assert not safe["value"] and not safe["untyped"]
    unsafe = {f.parameter: f.applies(unsafe_fixes=True) for f in findings}
    assert unsafe["value"] and unsafe["untyped"]


def test_all_rules_have_distinct_codes_and_names():
    assert len({r.code for r in RULES}) == len({r.name for r in RULES}) == len(RULES)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="`type X = ...` needs Python 3.12 to parse")
def test_pep_695_type_alias(tmp_path):
    path = tmp_path / "server.py"
    path.write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "type Query = str | None\n"
        "type Exact = str\n"
        "server = MCPServer('x')\n"
        "@server.tool()\n"
        "def search(query: Query = None, exact: Exact = '') -> str:\n"
        "    return ''\n"
    )
    # A `type` alias reaches pydantic as a TypeAliasType: even `type Exact = str` is not `str`.
    result = check_files([path], select_rules(None, []))
    assert {(f.parameter, f.fixable) for f in result.findings} == {("query", True), ("exact", True)}
