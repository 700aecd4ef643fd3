"""What `check` prints in each output format (json, github, sarif; the text output's columns
counted in characters), and what `rules` and `rule CODE` print."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_servers import server_module, tool

from mcp_codemod.cli import main
from mcp_codemod.rules import RULES

# Three parameters, one a finding of MCP001 (the others' rules are off by default or silent).
EXPOSED = server_module(
    tool("search", "query", "str | None = None, page: StrictInt = 1, user_id: int = 0", '""'),
    imports="from mcp.server.fastmcp import FastMCP\nfrom pydantic import StrictInt",
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(EXPOSED)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_json_output(project):
    result = run("check", "--output-format", "json")
    items = json.loads(result.output)
    assert items[0] == {
        "type": "finding",
        "code": "MCP001",
        "path": "server.py",
        "line": 8,
        "column": 12,
        "tool": "search",
        "parameter": "query",
        "annotation": "str | None",
        "framework": "mcp1",
        "message": "Tool `search`: `query: str | None` is JSON-pre-parsed by mcp 1.x FastMCP: "
        'the string "null" arrives as None and "[1, 2]" as a list',
        "fixable": True,
        "fix": {
            "applicability": "safe",
            "message": "Mark it `NoPreParse` and make the server a `GuardedFastMCP`",
        },
    }


def test_github_output(project):
    lines = run("check", "--output-format", "github").output.splitlines()
    assert lines[0].startswith("::error file=server.py,line=8,col=12,title=MCP001::MCP001 Tool")


def test_sarif_output(project):
    document = json.loads(run("check", "--output-format", "sarif").output)
    assert document["version"] == "2.1.0"
    run_ = document["runs"][0]
    # The PyPI project of that name is someone else's: no link at all rather than a wrong one.
    assert "pypi" not in json.dumps(document).lower()
    assert [rule["id"] for rule in run_["tool"]["driver"]["rules"]] == [r.code for r in RULES]
    result = run_["results"][0]
    assert result["ruleId"] == "MCP001"
    location = result["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "server.py"},
        "region": {"startLine": 8, "startColumn": 12},
    }


def test_columns_count_characters_not_bytes(project):
    source = EXPOSED.replace(
        "def search(query: str | None = None,", 'def search(é: str = "ü", query: str | None = None,'
    )
    (project / "server.py").write_text(source, encoding="utf-8")
    [finding] = [
        i
        for i in json.loads(run("check", "--output-format", "json").output)
        if i["parameter"] == "query"
    ]
    line = source.splitlines()[finding["line"] - 1]
    assert line[finding["column"] - 1 :].startswith("query:")


def test_rules_and_rule(project):
    listing = run("rules").output
    assert "MCP001  [*] json-pre-parsed-parameter" in listing
    assert "(off by default)" in listing.splitlines()[2]
    # The summaries form one column, however long the longest name.
    assert (
        len(
            {
                line.index(rule.summary)
                for line, rule in zip(listing.splitlines(), RULES, strict=True)
            }
        )
        == 1
    )
    explained = run("rule", "mcp002").output
    assert explained.startswith("# MCP002 (strict-integer-rejects-whole-float)")
    assert "## Why is this bad?" in explained and "AcceptWholeFloat" in explained
