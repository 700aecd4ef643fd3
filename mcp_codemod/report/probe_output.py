"""What `mcp-codemod probe` prints: a table or JSON of the arguments a live server does not
receive as sent."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from mcp_codemod.probe import strict_mode
from mcp_codemod.probe.client_behaviours import CLIENT_BEHAVIOURS
from mcp_codemod.probe.results import ProbeReport, StrictModeProblem
from mcp_codemod.report import plural

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
    arrays = [
        {
            "tool": array.tool,
            "parameter": array.parameter,
            "kind": "array-without-items",
            "sent": None,
            "outcome": "schema",
            "received": None,
            "error": f"the array at {array.path} has no `items`",
            "schema_path": array.path,
        }
        for array in report.arrays_without_items
    ]
    untyped = [
        {
            "tool": node.tool,
            "parameter": node.parameter,
            "kind": "untyped-node",
            "sent": None,
            "outcome": "schema",
            "received": None,
            "error": f"the node at {node.path} has no `type`",
            "schema_path": node.path,
        }
        for node in report.untyped_nodes
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
    lone_refs = [
        {
            "tool": ref.tool,
            "parameter": ref.parameter,
            "kind": "lone-ref",
            "sent": None,
            "outcome": "schema",
            "received": None,
            "error": f"the `$ref` at {ref.path} has no `type` beside it",
            "schema_path": ref.path,
        }
        for ref in (report.lone_refs if legacy_clients else ())
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
    return json.dumps(arguments + arrays + untyped + strict + lone_refs + client_forms, indent=2)


def probe_text(
    report: ProbeReport,
    openai_strict: bool = False,
    legacy_clients: bool = False,
    clients: bool = False,
) -> str:
    strict = report.strict_mode if openai_strict else ()
    lone_refs = report.lone_refs if legacy_clients else ()
    client_forms = report.client_forms if clients else ()
    if not report.failed and not strict and not lone_refs and not client_forms:
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
    if report.arrays_without_items:
        if lines:
            lines.append("")
        rows = [
            ("TOOL", "PARAMETER", "ARRAY WITHOUT ITEMS (VS Code's MCP client refuses the tool)")
        ]
        rows += [(a.tool, a.parameter, a.path) for a in report.arrays_without_items]
        lines += _probe_table(rows)
        tools = len({a.tool for a in report.arrays_without_items})
        counts.append(
            f"{plural(len(report.arrays_without_items), 'array')} without items in "
            f"{plural(tools, 'tool')}"
        )
    if report.untyped_nodes:
        if lines:
            lines.append("")
        rows = [
            (
                "TOOL",
                "PARAMETER",
                "NODE WITHOUT TYPE (Codex shows a string, strict OpenAI refuses the tool)",
            )
        ]
        rows += [(n.tool, n.parameter, n.path) for n in report.untyped_nodes]
        lines += _probe_table(rows)
        tools = len({n.tool for n in report.untyped_nodes})
        counts.append(
            f"{plural(len(report.untyped_nodes), 'node')} without type in {plural(tools, 'tool')}"
        )
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
    if lone_refs:
        if lines:
            lines.append("")
        rows = [("TOOL", "PARAMETER", "$REF ALONE (Gemini CLI up to 0.7.0 drops the tool)")]
        rows += [(r.tool, r.parameter, r.path) for r in lone_refs]
        lines += _probe_table(rows)
        tools = len({r.tool for r in lone_refs})
        counts.append(f"{plural(len(lone_refs), 'lone `$ref`')} in {plural(tools, 'tool')}")
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
