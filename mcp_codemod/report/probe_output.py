"""What `mcp-codemod probe` prints: a table or JSON of the arguments a live server does not
receive as sent."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from mcp_codemod.probe import strict_mode
from mcp_codemod.probe.client_behaviours import CLIENT_BEHAVIOURS
from mcp_codemod.probe.results import ProbeReport, SchemaNode, StrictModeProblem, schema_checks
from mcp_codemod.report import plural
from mcp_codemod.rules.model import Rule, SchemaCheck

# Why each kind of strict-mode problem matters (`probe --openai-strict`).
_STRICT_MODE = {
    strict_mode.OPEN_OBJECT: "an object open to undeclared properties: the OpenAI Agents SDK "
    "sends the tool non-strict",
    strict_mode.UNCONVERTED_REF: "a `$ref` the OpenAI Agents SDK does not convert: it sends "
    "the tool non-strict",
    strict_mode.NO_ARGUMENTS: "no arguments, an object open to undeclared ones: the OpenAI "
    "Agents SDK sends the tool non-strict",
    strict_mode.UNUSED_DEFAULT: "optional, with the default {detail}: strict mode requires "
    "every argument, and the default is never given",
    strict_mode.REFUSED_FORMAT: "the format `{detail}`: the OpenAI API refuses it in a strict "
    "schema",
}


def strict_mode_reason(problem: StrictModeProblem) -> str:
    return _STRICT_MODE[problem.kind].format(detail=problem.detail)


def probe_json(
    report: ProbeReport,
    openai_strict: bool = False,
    legacy_clients: bool = False,
    clients: bool = False,
) -> str:
    arguments = [
        {
            "tool": problem.tool,
            "parameter": problem.parameter,
            "kind": problem.kind,
            "sent": problem.sent,
            "outcome": problem.outcome,
            "received": None if problem.error is not None else repr(problem.received),
            "error": problem.error,
            "schema_path": None,
        }
        for problem in report.problems
    ]
    strict = [
        {
            "tool": problem.tool,
            "parameter": problem.parameter or None,
            "kind": problem.kind,
            "sent": None,
            "outcome": "schema",
            "received": None,
            "error": strict_mode_reason(problem),
            "schema_path": problem.path,
        }
        for problem in (report.strict_mode if openai_strict else ())
    ]
    client_forms = [
        {
            "tool": problem.tool,
            "parameter": problem.parameter,
            "kind": "client-behaviour",
            "behaviour": problem.behaviour,
            "sent": problem.sent,
            "outcome": problem.outcome,
            "received": None if problem.error is not None else repr(problem.received),
            "error": problem.error,
            "schema_path": None,
        }
        for problem in (report.client_forms if clients else ())
    ]
    # What fails the probe first, then the opt-ins: strict mode, then legacy clients.
    checks = schema_checks()
    failing = [
        record
        for rule, check in checks
        if not check.legacy_clients
        for record in _node_records(report, rule, check)
    ]
    legacy = [
        record
        for rule, check in checks
        if check.legacy_clients and legacy_clients
        for record in _node_records(report, rule, check)
    ]
    return json.dumps(arguments + failing + strict + legacy + client_forms, indent=2)


def _node_records(report: ProbeReport, rule: Rule, check: SchemaCheck) -> list[dict[str, object]]:
    return [
        {
            "tool": node.tool,
            "parameter": node.parameter,
            "kind": check.kind,
            "sent": None,
            "outcome": "schema",
            "received": None,
            "error": check.error.format(path=node.path),
            "schema_path": node.path,
        }
        for node in report.found_by(rule)
    ]


def probe_text(
    report: ProbeReport,
    openai_strict: bool = False,
    legacy_clients: bool = False,
    clients: bool = False,
) -> str:
    strict = report.strict_mode if openai_strict else ()
    legacy = report.legacy_client_nodes() if legacy_clients else ()
    client_forms = report.client_forms if clients else ()
    if not report.failed and not strict and not legacy and not client_forms:
        return f"Every argument arrives as sent ({report.summary()})."
    lines: list[str] = []
    counts: list[str] = []
    if report.problems:
        rows = [("TOOL", "PARAMETER", "SENT", "RECEIVED")]
        rows += [(p.tool, p.parameter, repr(p.sent), p.describe()) for p in report.problems]
        lines += _probe_table(rows)
        parameters = len({(p.tool, p.parameter) for p in report.problems})
        tools = len({p.tool for p in report.problems})
        counts.append(
            f"{plural(len(report.problems), 'argument')} changed or rejected, in "
            f"{plural(parameters, 'parameter')} of {plural(tools, 'tool')}"
        )
    for rule, check in schema_checks():
        if not check.legacy_clients:
            _node_table(report.found_by(rule), check, lines, counts)
    if strict:
        if lines:
            lines.append("")
        rows = [("TOOL", "PARAMETER", "OPENAI STRICT MODE (where in the schema, and why)")]
        rows += [
            (p.tool, p.parameter or "-", f"{p.path or '/'}: {strict_mode_reason(p)}")
            for p in strict
        ]
        lines += _probe_table(rows)
        tools = len({p.tool for p in strict})
        counts.append(f"{plural(len(strict), 'strict-mode problem')} in {plural(tools, 'tool')}")
    for rule, check in schema_checks():
        if check.legacy_clients and legacy_clients:
            _node_table(report.found_by(rule), check, lines, counts)
    if client_forms:
        if lines:
            lines.append("")
        rows = [("TOOL", "PARAMETER", "CLIENT BEHAVIOUR", "SENT", "RECEIVED")]
        rows += [
            (p.tool, p.parameter, p.behaviour, repr(p.sent), p.describe()) for p in client_forms
        ]
        lines += _probe_table(rows)
        lines += client_sources({p.behaviour for p in client_forms})
        parameters = len({(p.tool, p.parameter) for p in client_forms})
        counts.append(
            f"{plural(len(client_forms), 'client argument')} changed or rejected, in "
            f"{plural(parameters, 'parameter')}"
        )
    lines.append(f"{'; '.join(counts)} ({report.summary()}).")
    return "\n".join(lines)


def _node_table(
    nodes: tuple[SchemaNode, ...], check: SchemaCheck, lines: list[str], counts: list[str]
) -> None:
    """The table of what a rule's probe check found, and its count, if it found anything."""
    if not nodes:
        return
    if lines:
        lines.append("")
    lines += _probe_table(
        [("TOOL", "PARAMETER", check.column)] + [(n.tool, n.parameter, n.path) for n in nodes]
    )
    noun, after = check.counted
    tools = len({n.tool for n in nodes})
    counts.append(f"{plural(len(nodes), noun)}{after} in {plural(tools, 'tool')}")


def client_sources(behaviours: set[str]) -> list[str]:
    """Who does each behaviour, and where that is shown, for the behaviours named."""
    return [
        f"  {behaviour.name}: "
        + "; ".join(f"{report.client} {report.source}" for report in behaviour.reports)
        for behaviour in CLIENT_BEHAVIOURS
        if behaviour.name in behaviours
    ]


def _probe_table(rows: list[tuple[str, ...]]) -> list[str]:
    """Columns padded to their widest cell, except the last."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    return [
        "  ".join(
            [*(cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)), row[-1]]
        )
        for row in rows
    ]


def not_probed(tool: str, reason: str) -> str:
    return f"mcp-codemod: tool {tool!r} not probed: {reason}"


def nothing_probed(
    server: str, module: str, target: str, imports: Sequence[str], missing: Sequence[str]
) -> str:
    """Why `server` has no tools once `module` is loaded, and the command that loads them
    (`missing`: the modules that register tools on it, besides those `--import`ed)."""
    message = f"probed nothing: server {server!r} has no tools once {module} is loaded"
    if not missing:
        return f"{message}; import the modules that register them with `--import MODULE`"
    command = ["mcp-codemod", "probe", *(f"--import={name}" for name in (*imports, *missing))]
    return (
        f"{message}; {', '.join(missing)} register tools on it: `{shlex.join([*command, target])}`"
    )
