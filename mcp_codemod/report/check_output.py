"""What `check` prints: text, statistics and summaries; the machine formats (json, github, gitlab,
junit: `machine_formats`; sarif: `sarif`) by name in FORMATTERS."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from mcp_codemod.report import plural

# What a report of findings or unchecked registrations needs is imported where it is used: a
# clean run the run cache answers prints its summary without the rules and the analysis.
if TYPE_CHECKING:
    from mcp_codemod.engine.checker import CheckResult
    from mcp_codemod.rules.findings import Finding

FIX_COMMAND = "mcp-codemod fix --write"
PASSED = "All checks passed!"


class Style(Protocol):
    """How a piece of text is coloured (`click.style`'s signature): the command line chooses."""

    def __call__(self, text: str, *, fg: str | None = None, bold: bool | None = None) -> str: ...


def plain(text: str, *, fg: str | None = None, bold: bool | None = None) -> str:
    return text


def text(
    result: CheckResult,
    statistics: bool,
    unsafe_fixes: bool = False,
    *,
    style: Style = plain,
    quiet: bool = False,
) -> str:
    """The findings (or their statistics) and the summary; `quiet`: without the summary (the
    registrations not checked are still listed: they fail the run); `style` colours them as
    ruff does (path bold, code red, fix mark cyan)."""
    lines = []
    for error in result.errors:
        lines.append(f"{style(error.path, bold=True)}: {style('error', fg='red')}: {error.message}")
    if statistics:
        lines.extend(
            f"{row['count']:>5}\t{row['code']}\t{'[*] ' if row['fixable'] else ''}{row['name']}"
            for row in _statistics(result, unsafe_fixes)
        )
    else:
        colon = style(":", fg="cyan")
        for finding in result.findings:
            mark = style("[*] ", fg="cyan") if finding.applies(unsafe_fixes) else ""
            lines.append(
                f"{style(finding.path, bold=True)}{colon}{finding.line}{colon}{finding.column}"
                f"{colon} {style(finding.code, fg='red', bold=True)} {mark}{finding.message}"
            )
    if quiet:
        if result.unchecked:
            lines.append(unchecked_note(result))
    else:
        closing = summary(result, unsafe_fixes)
        if closing == PASSED:
            closing = style(closing, fg="green")
        lines.append(closing)
    return "\n".join(lines) + ("\n" if lines else "")


def _statistics(result: CheckResult, unsafe_fixes: bool) -> list[dict]:
    """A row per rule that found something, then a row per kind of registration not checked
    (`unchecked-registration`, named by its kind): those decide the exit code too."""
    from mcp_codemod.report.unchecked import RECORD_TYPE
    from mcp_codemod.rules import RULES_BY_CODE

    findings: tuple[Finding, ...] = result.findings
    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.applies(unsafe_fixes)}
    rows = [
        {"code": code, "name": RULES_BY_CODE[code].name, "count": count, "fixable": code in fixable}
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    kinds = Counter(tool.kind.value for tool in result.unchecked)
    rows += [
        {"code": RECORD_TYPE, "name": kind, "count": count, "fixable": False}
        for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
    ]
    return rows


def statistics_json(result: CheckResult, unsafe_fixes: bool = False) -> str:
    import json

    return json.dumps(_statistics(result, unsafe_fixes), indent=2) + "\n"


def summary(result: CheckResult, unsafe_fixes: bool = False) -> str:
    """The closing lines. "All checks passed!" is a promise: only when nothing was found,
    nothing found was turned off, and every registration was checked or lands on a server that
    protects it."""
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
    elif result.unprotected:
        parts.append(
            f"No issues found in the tools checked, but {plural(len(result.unprotected), 'tool')} "
            "that the server may JSON-pre-parse went unchecked (listed below)."
        )
    elif result.unchecked:
        # Their server keeps text as sent, but a strict integer they declare would still refuse
        # `5.0`, and a guarded server still decodes JSON for a parameter that takes anything:
        # not every check passed on them, whatever the exit code says.
        parts.append(
            "No issues found in the tools checked; "
            f"{plural(len(result.unchecked), 'tool registration')} could not be checked, "
            "on servers that do not JSON-pre-parse text parameters (listed below)."
        )
    elif result.errors:
        parts.append("No issues found in the files checked.")
    elif result.suppressed:
        parts.append(
            f"No issues reported: {plural(result.suppressed, 'finding')} turned off by `noqa` "
            "or `per-file-ignores`."
        )
    else:
        parts.append(PASSED)
    if result.errors:
        parts.append(f"{plural(len(result.errors), 'file')} could not be checked.")
    if result.unchecked:
        parts.append(unchecked_note(result))
    return "\n".join(parts)


def unchecked_note(result: CheckResult) -> str:
    """Each registration whose tool was not checked, why, and what protects it or would."""
    from mcp_codemod.report.unchecked import remedy

    lines = [
        f"{plural(len(result.unchecked), 'tool registration')} not checked "
        "(`mcp-codemod probe` checks any server at run time):"
    ]
    lines.extend(
        f"  {tool.path}:{tool.line}: {tool.reason}; {remedy(tool)}" for tool in result.unchecked
    )
    return "\n".join(lines)


def _formatter(module: str, name: str) -> Callable[[CheckResult], str]:
    """`name` of `mcp_codemod.report.<module>`, imported when a report in its format is made."""

    def formatted(result: CheckResult) -> str:
        return getattr(importlib.import_module(f"mcp_codemod.report.{module}"), name)(result)

    return formatted


FORMATTERS = {
    "json": _formatter("machine_formats", "as_json"),
    "github": _formatter("machine_formats", "github"),
    "sarif": _formatter("sarif", "sarif"),
    "gitlab": _formatter("machine_formats", "gitlab"),
    "junit": _formatter("machine_formats", "junit"),
}
