"""What `check` prints: text, statistics, summaries and the machine formats (json, github, sarif)."""

from __future__ import annotations

import json
from collections import Counter

from mcp_codemod import __version__
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.subjects import UnresolvedTool
from mcp_codemod.engine.checker import CheckResult
from mcp_codemod.report import plural
from mcp_codemod.rules import RULES, RULES_BY_CODE
from mcp_codemod.rules.findings import Finding

FIX_COMMAND = "mcp-codemod fix --write"


def text(result: CheckResult, statistics: bool, unsafe_fixes: bool = False) -> str:
    lines = []
    for error in result.errors:
        lines.append(f"{error.path}: error: {error.message}")
    if statistics:
        lines.extend(
            f"{row['count']:>5}\t{row['code']}\t{'[*] ' if row['fixable'] else ''}{row['name']}"
            for row in _statistics(result.findings, unsafe_fixes)
        )
    else:
        for finding in result.findings:
            mark = "[*] " if finding.applies(unsafe_fixes) else ""
            lines.append(
                f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {mark}{finding.message}"
            )
    lines.append(summary(result, unsafe_fixes))
    return "\n".join(lines) + "\n"


def _statistics(findings: tuple[Finding, ...], unsafe_fixes: bool) -> list[dict]:
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.applies(unsafe_fixes)}
    return [
        {"code": code, "name": RULES_BY_CODE[code].name, "count": count, "fixable": code in fixable}
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def statistics_json(result: CheckResult, unsafe_fixes: bool = False) -> str:
    return json.dumps(_statistics(result.findings, unsafe_fixes), indent=2) + "\n"


def summary(result: CheckResult, unsafe_fixes: bool = False) -> str:
    """The closing lines. "All checks passed!" is a promise: only when nothing was found and
    every registration was checked or lands on a server that protects it."""
    parts = []
    if result.findings:
        applicable = sum(f.applies(unsafe_fixes) for f in result.findings)
        hidden = sum(f.fixable and not f.applies(unsafe_fixes) for f in result.findings)
        command = FIX_COMMAND + (" --unsafe-fixes" if unsafe_fixes else "")
        line = f"Found {plural(len(result.findings), 'issue')}"
        if applicable:
            line += f" ({applicable} fixable with `{command}`)"
        parts.append(line + ".")
        if hidden:
            parts.append(
                f"{plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with `{FIX_COMMAND} --unsafe-fixes`."
            )
    elif result.unchecked:
        parts.append(
            f"No issues found in the tools checked, but {plural(len(result.unchecked), 'tool')} "
            "that the server may JSON-pre-parse went unchecked (listed below)."
        )
    elif result.unresolved:
        # Their server keeps text as sent, but a strict integer they declare would still refuse
        # `5.0`, and a guarded server still decodes JSON for a parameter that takes anything:
        # not every check passed on them, whatever the exit code says.
        parts.append(
            "No issues found in the tools checked; "
            f"{plural(len(result.unresolved), 'tool registration')} could not be checked, "
            "on servers that do not JSON-pre-parse text parameters (listed below)."
        )
    else:
        parts.append("All checks passed!")
    if result.errors:
        parts.append(f"{plural(len(result.errors), 'file')} could not be checked.")
    if result.unresolved:
        parts.append(unresolved_note(result))
    return "\n".join(parts)


def unresolved_note(result: CheckResult) -> str:
    """Each registration whose tool was not checked, why, and what protects it or would."""
    lines = [
        f"{plural(len(result.unresolved), 'tool registration')} not checked "
        "(`mcp-codemod probe` checks any server at run time):"
    ]
    lines.extend(
        f"  {tool.path}:{tool.line}: {tool.reason}; {_remedy(tool)}" for tool in result.unresolved
    )
    return "\n".join(lines)


def _remedy(tool: UnresolvedTool) -> str:
    framework = tool.server.framework
    if framework is None:
        return (
            "state its framework with `framework` in [tool.mcp-codemod] (or `--framework`), "
            "or guard the server with `mcp_codemod.runtime.guard(server)`"
        )
    if not framework.pre_parses_json:
        if framework in (Framework.GUARDED_MCP1, Framework.GUARDED_MCP2):
            return (
                "protected: the server is guarded (its `Any` and unannotated parameters, if any, "
                "are still JSON-pre-parsed)"
            )
        return f"protected: {framework.title} does not pre-parse"
    return "unprotected: guard the server (MCP004)"


def as_json(result: CheckResult) -> str:
    items = [
        {
            "code": f.code,
            "path": f.path,
            "line": f.line,
            "column": f.column,
            "tool": f.tool,
            "parameter": f.parameter,
            "annotation": f.annotation,
            "framework": f.framework,
            "message": f.message,
            "fixable": f.fixable,
            "fix": None
            if f.fix is None
            else {"applicability": f.fix.safety.value, "message": f.fix.title},
        }
        for f in result.findings
    ]
    items += [
        {"code": "E902", "path": e.path, "line": None, "column": None, "message": e.message}
        for e in result.errors
    ]
    return json.dumps(items, indent=2) + "\n"


def _escape_property(value: str) -> str:
    return (
        value.replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
        .replace(":", "%3A")
        .replace(",", "%2C")
    )


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github(result: CheckResult) -> str:
    lines = [
        f"::error file={_escape_property(e.path)},title=mcp-codemod::{_escape_data(e.message)}"
        for e in result.errors
    ]
    lines += [
        f"::error file={_escape_property(f.path)},line={f.line},col={f.column},"
        f"title={f.code}::{_escape_data(f'{f.code} {f.message}')}"
        for f in result.findings
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def sarif(result: CheckResult) -> str:
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why.replace("\n", " ")},
            "help": {"text": rule.fix_title.replace("\n", " ")},
            "defaultConfiguration": {"enabled": rule.enabled_by_default},
        }
        for rule in RULES
    ]
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": [r.code for r in RULES].index(f.code),
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path.replace("\\", "/")},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
            "properties": {"tool": f.tool, "parameter": f.parameter, "fixable": f.fixable},
        }
        for f in result.findings
    ]
    notifications = [
        {
            "level": "error",
            "message": {"text": e.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": e.path}}}],
        }
        for e in result.errors
    ]
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcp-codemod",
                        "version": __version__,
                        # No informationUri: the PyPI name mcp-codemod is another project's, and
                        # this one has no public address to point at.
                        "rules": rules,
                    }
                },
                "results": results,
                "invocations": [
                    {
                        "executionSuccessful": not result.errors,
                        "toolExecutionNotifications": notifications,
                    }
                ],
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"


FORMATTERS = {"json": as_json, "github": github, "sarif": sarif}
