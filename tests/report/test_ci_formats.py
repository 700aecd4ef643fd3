"""The formats CI reads: SARIF valid against the SARIF 2.1.0 schema (with fingerprints and rule
pages), GitLab's Code Climate JSON and JUnit as ruff emits them, and the registrations that
were not checked as records of their own in each."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner
from demo_servers import EXPOSED, UNKNOWN_FRAMEWORK

from mcp_codemod.cli import main
from mcp_codemod.rules import RULES

# The validator comes with the mcp SDK (its dependency), as in every test environment here.
jsonschema = pytest.importorskip("jsonschema")

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif" / "sarif-schema-2.1.0.json"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(EXPOSED)
    (tmp_path / "company.py").write_text(UNKNOWN_FRAMEWORK)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


def sarif_of(*args: str) -> dict:
    return json.loads(run("--output-format", "sarif", *args).stdout)


def test_sarif_is_valid_against_the_sarif_2_1_0_schema(project):
    document = sarif_of()

    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(document)
    assert document["runs"][0]["results"], "the run must hold a result to validate one"


def test_the_schema_test_catches_an_invalid_document(project):
    # The check above can fail: a result without its message is refused.
    document = sarif_of()
    del document["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(document)


def mcp001_of(document: dict) -> dict:
    return next(r for r in document["runs"][0]["results"] if r["ruleId"] == "MCP001")


def test_sarif_fingerprints_survive_a_line_move_and_tell_findings_apart(project):
    first = mcp001_of(sarif_of())["partialFingerprints"]
    (project / "server.py").write_text("# a comment that moves every line\n" + EXPOSED)
    moved = mcp001_of(sarif_of())
    assert moved["locations"][0]["physicalLocation"]["region"]["startLine"] == 8
    assert moved["partialFingerprints"] == first
    (project / "server.py").write_text(EXPOSED.replace("query", "text"))
    assert mcp001_of(sarif_of())["partialFingerprints"] != first


def test_each_rule_points_at_its_page_in_docs_rules(project, monkeypatch):
    rules = sarif_of()["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["helpUri"] for rule in rules] == [f"docs/rules/{r.code}.md" for r in RULES]
    monkeypatch.setenv("MCP_CODEMOD_DOCS_URL", "https://example.org/o/mcp-codemod/blob/v1/")
    published = sarif_of()["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"]
    assert published == f"https://example.org/o/mcp-codemod/blob/v1/docs/rules/{RULES[0].code}.md"


def test_sarif_names_each_unchecked_registration_with_kind_reason_and_remedy(project):
    invocation = sarif_of()["runs"][0]["invocations"][0]
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["descriptor"] == {"id": "unchecked-registration"}
    # Its server is unknown, but the tree builds a pre-parsing one: it counts against that one
    # (MCP004 reports it and sets the exit code; docs/analysis.md).
    assert notification["level"] == "warning"
    location = notification["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "company.py"
    assert location["region"]["startLine"] == 6
    properties = notification["properties"]
    assert properties["kind"] == "untied"
    assert properties["sets_exit_code"] is False
    assert "MCP004" in properties["remedy"]
    assert "counted against FastMCP(...) at server:3" in properties["reason"]


def test_json_lists_unchecked_registrations_as_records_of_their_own(project):
    items = json.loads(run("--output-format", "json").stdout)
    assert {item["type"] for item in items} == {"finding", "unchecked-registration"}
    (record,) = [item for item in items if item["type"] == "unchecked-registration"]
    assert record["path"] == "company.py"
    assert record["line"] == 6
    assert record["kind"] == "untied"  # counted against server.py's server (MCP004)
    assert record["sets_exit_code"] is False and record["protected"] is False
    assert record["reason"] and "MCP004" in record["remedy"]


def test_gitlab_is_code_climate_json_as_ruff_emits_it(project, monkeypatch):
    monkeypatch.setenv("CI_PROJECT_DIR", str(project.parent))
    result = run("--output-format", "gitlab")
    assert result.exit_code == 1
    issues = json.loads(result.stdout)
    finding = next(issue for issue in issues if issue["check_name"] == "MCP001")
    assert set(finding) == {"check_name", "description", "severity", "fingerprint", "location"}
    assert finding["description"].startswith("MCP001: Tool `search`")
    assert finding["severity"] == "major"
    # Relative to the repository (CI_PROJECT_DIR), as GitLab needs them.
    assert finding["location"]["path"] == f"{project.name}/server.py"
    assert finding["location"]["positions"]["begin"] == {"line": 7, "column": 12}
    # company.py's registration is MCP004's: it counts against server.py's server.
    assert {issue["check_name"] for issue in issues} == {"MCP001", "MCP004"}
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)


def test_junit_has_a_failing_case_per_finding_and_a_passing_one_when_clean(project):
    tree = ElementTree.fromstring(run("--output-format", "junit").stdout)
    assert tree.tag == "testsuites"
    assert tree.get("failures") == "2"
    suites = {suite.get("name"): suite for suite in tree}
    case = suites["server.py"].find("testcase")
    assert case.get("name") == "org.mcp-codemod.MCP001"
    assert case.get("line") == "7"
    assert case.find("failure").get("message").startswith("Tool `search`")
    # company.py's registration counts against server.py's server: MCP004 there.
    assert suites["company.py"].find("testcase").get("name") == "org.mcp-codemod.MCP004"
    (project / "company.py").unlink()
    (project / "server.py").write_text(EXPOSED.replace("str | None = None", 'str = ""'))
    clean = run("--output-format", "junit")
    assert clean.exit_code == 0
    tree = ElementTree.fromstring(clean.stdout)
    assert tree.get("failures") == "0"
    assert tree.find("testsuite/testcase").get("name") == "No errors found"


@pytest.mark.parametrize("fmt", ["json", "sarif", "gitlab", "junit", "github"])
def test_the_unchecked_registrations_keep_failing_the_run_in_every_format(project, fmt):
    (project / "server.py").unlink()
    result = run("--output-format", fmt)
    assert result.exit_code == 1
    assert "company.py" in result.stdout
