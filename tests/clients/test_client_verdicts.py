"""Proof against the clients' own code: the schemas the real SDK generates for each rule's
invalid cases are refused or dropped by the client the rule protects, and every client accepts
them once `fix` has applied the rule's fix.

The servers are the rules' own cases, listed by the installed SDK; the clients are the packages
CI installs (tests/clients/conftest.py): Gemini CLI core 0.61.0 and 0.7.0 (the last with its
client-side check for missing types), the TypeScript MCP SDK's client, the OpenAI Agents SDK's
strict conversion, and a port of VS Code Copilot Chat's schema check (not installable).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_codemod.rules import RULES_BY_CODE
from mcp_codemod.rules.model import Invalid, Valid

from .client_code import listed_tools, missing, verdicts

pytestmark = pytest.mark.clients

# What the protected client does to a reported tool before the fix. `untyped` and
# `format-refused`: the OpenAI Agents SDK sends the tool as strict with nodes without a type, or
# with a format strict mode does not support, which the OpenAI API refuses ("schema must have a
# 'type' key", "'uri' is not a valid format"; the API cannot be reached from a test).
# `default-required`: the SDK's strict schema requires an argument whose default the listing
# offered, and the model cannot send null for it.
REFUSED_BEFORE = {
    "MCP005": {"vscode-port": "refused"},
    "MCP007": {"gemini-cli-0.7": "dropped", "openai-agents": "untyped"},
    # `digits-refused`: the tool is listed, but the CLI's own check of the model's arguments
    # refuses an ID sent as its digits, the only form that keeps every digit above 2**53.
    "MCP003": {"gemini-cli-0.61": "digits-refused", "gemini-cli-0.7": "digits-refused"},
    # No fix: the case's tool is shown sent non-strict (`fallback`), and nothing after.
    "MCP101": {"openai-agents": "fallback"},
    "MCP102": {"openai-agents": "fallback"},
    "MCP103": {"openai-agents": "default-required"},
    "MCP104": {"openai-agents": "format-refused"},
    "MCP201": {"gemini-cli-0.7": "dropped"},
}
# Where a case's tool is judged beyond its rule, (before, after) for the client. Gemini CLI up
# to 0.7 drops a tool whose parameter is a `$ref` (a model on the mcp SDK: no `type` of its
# own), which MCP201 reports and MCP005's fix leaves; the VS Code port does not look into
# `$defs`, where that model's tuple is.
CASE_VERDICTS = {
    ("MCP101", 1): {"gemini-cli-0.7": ("dropped", None)},
    # A model's `$ref` (mcp SDK) is no node the Agents SDK sends strict: it falls back before
    # the fix and after (a `type` beside a `$ref` is a sibling it does not merge).
    ("MCP201", 0): {"openai-agents": ("fallback", "fallback")},
    ("MCP005", 2): {"gemini-cli-0.7": ("dropped", "dropped"), "vscode-port": ("accepted", None)},
}
DIGITS = "9007199254740993"
CLIENTS = ("gemini-cli-0.61", "gemini-cli-0.7", "ts-sdk", "vscode-port", "openai-agents")


def invalid(code: str) -> list[Invalid]:
    return [case for case in RULES_BY_CODE[code].cases if isinstance(case, Invalid)]


CASES = [(code, index, case) for code in REFUSED_BEFORE for index, case in enumerate(invalid(code))]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], list[tuple]]:
    """For each case, its fixed tools: (wire name before, wire name after), and the tools to
    serve, renamed so that one run of each client judges every case."""
    tmp_path = tmp_path_factory.mktemp("servers")
    pairs: dict[tuple[str, int], list[tuple[str, str]]] = {}
    wire: list[dict[str, Any]] = []
    for code, index, case in CASES:
        try:
            before = listed_tools(case.source, tmp_path)
            after = listed_tools(case.fixed or case.source, tmp_path)
        except ImportError as error:  # a case for the other mcp major
            pairs[(code, index)] = [("skip", error.name or str(error))]
            continue
        fixed = {tool["name"]: tool for tool in after}
        changed = [t for t in before if t["inputSchema"] != fixed[t["name"]]["inputSchema"]]
        if case.fixed is None:
            changed = before  # no fix: each tool is shown as the client takes it
        assert changed, f"{code} case {index}: the fix changed no tool's schema"
        pairs[(code, index)] = []
        for tool in changed:
            names = []
            after_properties = fixed[tool["name"]]["inputSchema"]["properties"]
            args = {
                name: DIGITS
                for name, schema in tool["inputSchema"]["properties"].items()
                if code == "MCP003" and schema != after_properties[name]
            }
            for listed in (tool, fixed[tool["name"]]):
                names.append(f"t{len(wire)}")
                wire.append({**listed, "name": names[-1], **({"_args": args} if args else {})})
            pairs[(code, index)].append(tuple(names))
    return {"pairs": pairs, "wire": wire}  # type: ignore[return-value]


@pytest.fixture(scope="module")
def judged(served) -> Any:
    cache: dict[str, dict[str, dict[str, Any]]] = {}

    def judge(client: str) -> dict[str, dict[str, Any]]:
        reason = missing(client)
        if reason is not None:
            pytest.skip(reason)
        if client not in cache:
            cache[client] = verdicts(client, served["wire"])
        return cache[client]

    return judge


def accepted(client: str, row: dict[str, Any]) -> bool:
    if row.get("argsError"):
        return False
    if client == "openai-agents":
        # Strict and what the API takes, or non-strict (the SDK's fallback keeps the tool
        # usable). A default strict mode requires is not a refusal: MCP103 shows it apart.
        strict = row["verdict"] == "strict" and not row["untyped"] and not row["formats"]
        return row["verdict"] == "fallback" or strict
    return row["verdict"] == "accepted"


def outcome(client: str, row: dict[str, Any]) -> str:
    if client == "openai-agents" and row["verdict"] == "strict":
        if row["untyped"]:
            return "untyped"
        if row["formats"]:
            return "format-refused"
        if row["defaults"]:
            return "default-required"
    if row.get("argsError"):
        return "digits-refused"
    return row["verdict"]


@pytest.mark.parametrize(
    ("code", "index", "client"),
    [
        pytest.param(code, index, client, id=f"{code}-{index}-{client}")
        for code, index, _ in CASES
        for client in CLIENTS
    ],
)
def test_the_protected_client_refuses_the_reported_tool_and_every_client_takes_it_fixed(
    served, judged, code, index, client
):
    pairs = served["pairs"][(code, index)]
    if pairs and pairs[0][0] == "skip":
        pytest.skip(f"the case's server imports {pairs[0][1]}, not installed here")
    rows = judged(client)
    has_fix = invalid(code)[index].fixed is not None
    expected_before = REFUSED_BEFORE[code].get(client)
    expected_after = None
    if client in CASE_VERDICTS.get((code, index), {}):
        expected_before, expected_after = CASE_VERDICTS[(code, index)][client]
    for before, after in pairs:
        if expected_before in (None, "accepted"):
            assert accepted(client, rows[before]), rows[before]
        else:
            assert outcome(client, rows[before]) == expected_before, rows[before]
        if has_fix and expected_after is None:
            assert accepted(client, rows[after]), rows[after]
        elif has_fix:
            assert outcome(client, rows[after]) == expected_after, rows[after]


def test_every_rule_that_names_a_client_is_proven_here():
    named = {rule.code for rule in RULES_BY_CODE.values() if rule.clients}
    assert named <= set(REFUSED_BEFORE)


def test_the_harnesses_are_in_the_repository():
    harness = Path(__file__).parent / "harness"
    assert {p.name for p in harness.iterdir()} >= {
        "fake_server.mjs",
        "gemini.mjs",
        "ts_sdk.mjs",
        "vscode_port.mjs",
        "openai_strict.py",
    }


def test_a_model_with_a_description_is_made_strict_where_mcp101_says_nothing(tmp_path):
    """The Agents SDK inlines a `$ref` with keywords beside it and converts the definition:
    MCP101's valid case is strict, its invalid model case (the `$ref` alone) is not."""
    reason = missing("openai-agents")
    if reason is not None:
        pytest.skip(reason)
    rule = RULES_BY_CODE["MCP101"]
    described = [case for case in rule.cases if isinstance(case, Valid)][-1]
    try:
        tools = listed_tools(described.source, tmp_path) + listed_tools(
            invalid("MCP101")[1].source, tmp_path
        )
    except ImportError as error:
        pytest.skip(f"the case's server imports {error.name}, not installed here")
    wire = [{**tool, "name": f"t{index}"} for index, tool in enumerate(tools)]
    rows = verdicts("openai-agents", wire)
    assert rows["t0"]["verdict"] == "strict" and accepted("openai-agents", rows["t0"]), rows
    assert rows["t1"]["verdict"] == "fallback", rows
