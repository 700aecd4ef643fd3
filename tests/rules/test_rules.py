"""Every rule's own cases, as Fixit generates tests from a rule's VALID and INVALID examples.

A valid case gets no finding from its rule; an invalid case gets findings exactly on its lines,
and `fix --write --unsafe-fixes` turns it into its `fixed` text (or leaves it alone when the rule
has no fix for it), after which the rule is silent and a second fix changes nothing. The messages
of all invalid cases are a snapshot (tests/rules/snapshots/rule-messages.txt): run with
MCP_CODEMOD_UPDATE_SNAPSHOTS=1 to rewrite it, and review the diff.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.engine.checker import check_files
from mcp_codemod.fix.apply import fix_findings
from mcp_codemod.rules import RULES
from mcp_codemod.rules.model import Invalid, Rule, Valid
from mcp_codemod.rules.unguarded_server import KIND_NAMES

SNAPSHOT = Path(__file__).parent / "snapshots" / "rule-messages.txt"

VALID = [
    pytest.param(rule, case, id=f"{rule.code}-valid-{index}")
    for rule in RULES
    for index, case in enumerate(c for c in rule.cases if isinstance(c, Valid))
]
INVALID = [
    pytest.param(rule, case, id=f"{rule.code}-invalid-{index}")
    for rule in RULES
    for index, case in enumerate(c for c in rule.cases if isinstance(c, Invalid))
]


def findings(tmp_path: Path, rule: Rule, source: str):
    path = tmp_path / "server.py"
    path.write_text(source, encoding="utf-8")
    return [f for f in check_files([path], (rule,), jobs=1).findings if f.code == rule.code]


def fixed(tmp_path: Path, rule: Rule, source: str) -> str:
    path = tmp_path / "server.py"
    path.write_text(source, encoding="utf-8")
    result = check_files([path], (rule,), jobs=1)
    outcome = fix_findings(result.findings, result.digests, {path.resolve()})
    assert outcome.failures == ()
    return outcome.files[0].fixed if outcome.files else source


@pytest.mark.parametrize(("rule", "case"), VALID)
def test_valid_case_has_no_finding(tmp_path, rule, case):
    assert findings(tmp_path, rule, case.source) == []


@pytest.mark.parametrize(("rule", "case"), INVALID)
def test_invalid_case_is_found_on_its_lines(tmp_path, rule, case):
    assert sorted(f.line for f in findings(tmp_path, rule, case.source)) == sorted(case.lines)


@pytest.mark.parametrize(("rule", "case"), INVALID)
def test_invalid_case_fixes_to_its_fixed_text(tmp_path, rule, case):
    after = fixed(tmp_path, rule, case.source)
    if case.fixed is None:
        assert after == case.source
        assert not any(f.fixable for f in findings(tmp_path, rule, case.source))
        return
    assert after == case.fixed
    ast.parse(after)
    assert findings(tmp_path, rule, after) == []
    assert fixed(tmp_path, rule, after) == after


def test_every_rule_documents_itself():
    for rule in RULES:
        assert rule.code.startswith("MCP") and rule.name and rule.summary and rule.why
        assert rule.fix_title and rule.fix_safety
        assert any(isinstance(c, Valid) for c in rule.cases), rule.code
        assert rule.example.source and rule.use_instead
    assert len({r.code for r in RULES}) == len({r.name for r in RULES}) == len(RULES)


def test_messages_match_the_snapshot(tmp_path):
    lines = []
    for rule in RULES:
        for index, case in enumerate(c for c in rule.cases if isinstance(c, Invalid)):
            for finding in findings(tmp_path, rule, case.source):
                fix = "no fix" if finding.fix is None else finding.fix.safety.value
                lines.append(
                    f"{rule.code} invalid-{index} {finding.line}:{finding.column} [{fix}] "
                    f"{finding.message}"
                )
    text = "\n".join(lines) + "\n"
    if os.environ.get("MCP_CODEMOD_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert text == SNAPSHOT.read_text(encoding="utf-8")


def test_a_rule_that_protects_a_client_names_it_and_its_reference_in_its_documentation():
    from mcp_codemod.report.rule_help import rule_help

    protecting = [rule for rule in RULES if rule.clients]
    assert protecting
    for rule in protecting:
        page = rule_help(rule)
        assert "## Clients it protects" in page
        for client in rule.clients:
            assert f"- {client.name}: {client.reference}" in page


def test_every_kind_of_unchecked_registration_counts_for_mcp004():
    """A kind MCP004's message cannot name would leave its server unguarded, silently. A
    registration on a server of unknown framework is on no server MCP004 judges (it is unchecked,
    and counts against the tree's servers as `untied`)."""
    assert set(KIND_NAMES) == set(Unchecked) - {Unchecked.UNKNOWN_FRAMEWORK}
