"""`probe --clients` and `assert_tools_keep_arguments(clients=True)`: each documented client
behaviour, replayed against every parameter it applies to through the framework's own argument
handling; the rules' own cases (MCP002, MCP006, MCP008) are what it finds before their fix and
nothing after; the table of behaviours names a client and a source for each."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main
from mcp_codemod.probe import client_behaviours
from mcp_codemod.probe.client_behaviours import CLIENT_BEHAVIOURS
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.rules import RULES_BY_CODE
from mcp_codemod.rules.model import Invalid
from mcp_codemod.testing import assert_tools_keep_arguments

from .servers import load_server

pytestmark = pytest.mark.sdk

FASTMCP_SERVER = """\
from fastmcp import FastMCP

mcp = FastMCP("accounts")


@mcp.tool
def lookup(account: str | None = None, tags: list[str] | None = None, page: int = 1) -> str:
    return ""
"""


def test_every_behaviour_names_a_known_form_and_a_client_with_a_source():
    assert {b.form for b in CLIENT_BEHAVIOURS} == set(client_behaviours.FORMS)
    for behaviour in CLIENT_BEHAVIOURS:
        assert behaviour.reports, behaviour.name
        for report in behaviour.reports:
            assert report.client and report.source, behaviour.name
    assert len({b.name for b in CLIENT_BEHAVIOURS}) == len(CLIENT_BEHAVIOURS)


CASES = [
    pytest.param(code, index, case, id=f"{code}-invalid-{index}")
    for code in ("MCP002", "MCP006", "MCP008")
    for index, case in enumerate(c for c in RULES_BY_CODE[code].cases if isinstance(c, Invalid))
]


@pytest.mark.parametrize(("code", "index", "case"), CASES)
def test_the_rules_cases_fail_before_their_fix_and_pass_after(tmp_path, code, index, case):
    _, before = load_server(case.source, tmp_path)
    assert probe_server(before).client_forms, "the case's server takes every client form"
    _, after = load_server(case.fixed, tmp_path)
    report = probe_server(after)
    if report.framework.startswith("fastmcp 2.") and "strict" in report.framework:
        # fastmcp 2.x's strict mode checks the advertised schema first (docs/runtime.md): only
        # the whole float, an integer to Draft 2020-12, passes it.
        assert {p.behaviour for p in report.client_forms} == {"number sent as its text"}
        return
    assert report.client_forms == ()


def test_a_parameter_that_takes_the_sent_value_as_its_own_is_not_reported(tmp_path):
    _, server = load_server(
        """\
from datetime import datetime

from fastmcp import FastMCP

mcp = FastMCP("dates")


@mcp.tool
def since(when: str | datetime | None = None, page: int | str = 1) -> str:
    return ""
""",
        tmp_path,
    )
    assert probe_server(server).client_forms == ()


def test_the_command_lists_each_failing_form_and_exits_1(tmp_path, monkeypatch):
    (tmp_path / "listed_accounts.py").write_text(FASTMCP_SERVER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    plain = CliRunner().invoke(main, ["probe", "listed_accounts.py:mcp"])
    assert "CLIENT BEHAVIOUR" not in plain.output
    asked = CliRunner().invoke(main, ["probe", "--clients", "listed_accounts.py:mcp"])
    assert asked.exit_code == 1, asked.output
    lines = asked.output.splitlines()
    header = next(line for line in lines if "CLIENT BEHAVIOUR" in line)
    assert header.split() == ["TOOL", "PARAMETER", "CLIENT", "BEHAVIOUR", "SENT", "RECEIVED"]
    rows = lines[lines.index(header) + 1 :]
    assert any(row.split()[:2] == ["lookup", "tags"] and "'[\"a\"]'" in row for row in rows)
    assert any(row.split()[:2] == ["lookup", "tags"] and "'null'" in row for row in rows)
    assert any(row.split()[:2] == ["lookup", "account"] and "12345" in row for row in rows)
    assert any("https://github.com/anthropics/claude-code/issues/90123" in row for row in rows)
    as_json = CliRunner().invoke(
        main, ["probe", "--clients", "--output-format", "json", "listed_accounts.py:mcp"]
    )
    behaviours = [e for e in json.loads(as_json.output) if e["kind"] == "client-behaviour"]
    assert {(e["parameter"], e["behaviour"]) for e in behaviours} == {
        ("tags", "array sent as JSON text"),
        ("tags", 'null sent as the text "null"'),
        ("account", "digit-only text sent as a number"),
    }
    assert all(e["outcome"] == "rejected" and e["error"] for e in behaviours)


def test_the_command_passes_a_fixed_server(tmp_path, monkeypatch):
    fixed = RULES_BY_CODE["MCP008"].example.fixed
    (tmp_path / "fixed_accounts.py").write_text(fixed, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    asked = CliRunner().invoke(main, ["probe", "--clients", "fixed_accounts.py:mcp"])
    assert asked.exit_code == 0, asked.output
    assert asked.output.startswith("Every argument arrives as sent")


def test_the_pytest_helper_fails_on_client_forms_only_when_asked(tmp_path):
    _, server = load_server(RULES_BY_CODE["MCP008"].example.source, tmp_path)
    assert_tools_keep_arguments(server)
    with pytest.raises(AssertionError) as failure:
        assert_tools_keep_arguments(server, clients=True)
    message = str(failure.value)
    assert "lookup(account): digit-only text sent as a number: sent 12345, rejected" in message
    assert "meant '12345'" in message
    assert "anthropics/claude-code/issues/90123" in message
