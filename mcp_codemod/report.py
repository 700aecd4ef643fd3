"""Formatters: findings in, text out. Nothing here decides what is reported."""

from __future__ import annotations

import json
from collections import Counter

from mcp_codemod import __version__
from mcp_codemod.checker import CheckResult
from mcp_codemod.findings import Finding
from mcp_codemod.rules import RULES, RULES_BY_CODE

FIX_COMMAND = "mcp-codemod fix --write"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def text(result: CheckResult, statistics: bool) -> str:
    lines = []
    for error in result.errors:
        lines.append(f"{error.path}: error: {error.message}")
    if statistics:
        lines.extend(_statistics(result.findings))
    else:
        for finding in result.findings:
            mark = "[*] " if finding.fixable else ""
            lines.append(
                f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {mark}{finding.message}"
            )
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def _statistics(findings: tuple[Finding, ...]) -> list[str]:
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.fixable}
    return [
        f"{count:>5}\t{code}\t{'[*] ' if code in fixable else ''}{RULES_BY_CODE[code].name}"
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def summary(result: CheckResult) -> str:
    parts = []
    if result.findings:
        fixable = sum(f.fixable for f in result.findings)
        line = f"Found {plural(len(result.findings), 'issue')}"
        if fixable:
            line += f" ({fixable} fixable with `{FIX_COMMAND}`)"
        parts.append(line + ".")
    else:
        parts.append("All checks passed!")
    if result.errors:
        parts.append(f"{plural(len(result.errors), 'file')} could not be checked.")
    if result.unresolved:
        parts.append(unresolved_note(result))
    return "\n".join(parts)


def unresolved_note(result: CheckResult) -> str:
    lines = [
        f"{plural(len(result.unresolved), 'tool')} not checked: a server or function that cannot "
        "be resolved statically. State the framework of such servers with `framework` in "
        "[tool.mcp-codemod] (or --framework); `mcp-codemod probe` checks any server at run time."
    ]
    lines.extend(f"  {u.path}:{u.line}: {u.reason}" for u in result.unresolved)
    return "\n".join(lines)


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
            "help": {"text": rule.fix.replace("\n", " ")},
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
                        "informationUri": "https://pypi.org/project/mcp-codemod/",
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
