"""The formats CI reads: json (ruff's list of diagnostics, plus the registrations not checked as
records of their own), github (workflow commands), gitlab (Code Climate JSON, as ruff emits it)
and junit (as ruff emits it)."""

from __future__ import annotations

import hashlib
import json
import os

from mcp_codemod.engine.checker import CheckResult
from mcp_codemod.report import unchecked
from mcp_codemod.rules.findings import Finding

FILE_ERROR = "E902"  # ruff's code for a file that cannot be read


def as_json(result: CheckResult) -> str:
    items: list[dict] = [
        {
            "type": "finding",
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
        {
            "type": "error",
            "code": FILE_ERROR,
            "path": e.path,
            "line": None,
            "column": None,
            "message": e.message,
        }
        for e in result.errors
    ]
    items += unchecked.records(result)
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
    lines += [
        f"::error file={_escape_property(tool.path)},line={tool.line},"
        f"title={unchecked.RECORD_TYPE}::"
        + _escape_data(f"Tool not checked: {tool.reason}; {unchecked.remedy(tool)}")
        for tool in result.unchecked
        if unchecked.sets_exit_code(tool)
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def fingerprint(*parts: object) -> str:
    """Stable across runs and line moves: what the finding is about, not where it sits."""
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:16]


def finding_fingerprint(f: Finding) -> str:
    return fingerprint(f.code, f.path.replace("\\", "/"), f.tool, f.parameter, f.message)


def _gitlab_path(path: str) -> str:
    # GitLab wants paths relative to the repository: ruff relativizes to CI_PROJECT_DIR.
    base = os.environ.get("CI_PROJECT_DIR")
    if base:
        relative = os.path.relpath(os.path.abspath(path), base)
        if not relative.startswith(".."):
            path = relative
    return path.replace("\\", "/")


def _location(path: str, line: int, column: int) -> dict:
    position = {"line": line, "column": column}
    return {"path": _gitlab_path(path), "positions": {"begin": position, "end": position}}


def gitlab(result: CheckResult) -> str:
    issues = [
        {
            "check_name": f.code,
            "description": f"{f.code}: {f.message}",
            "severity": "major",
            "fingerprint": finding_fingerprint(f),
            "location": _location(f.path, f.line, f.column),
        }
        for f in result.findings
    ]
    issues += [
        {
            "check_name": FILE_ERROR,
            "description": f"{FILE_ERROR}: {e.message}",
            "severity": "major",
            "fingerprint": fingerprint(FILE_ERROR, e.path, e.message),
            "location": _location(e.path, 1, 1),
        }
        for e in result.errors
    ]
    issues += [
        {
            "check_name": unchecked.RECORD_TYPE,
            "description": f"Tool not checked: {tool.reason}; {unchecked.remedy(tool)}",
            "severity": "major",
            "fingerprint": fingerprint(unchecked.RECORD_TYPE, tool.path, tool.reason),
            "location": _location(tool.path, tool.line, 1),
        }
        for tool in result.unchecked
        if unchecked.sets_exit_code(tool)
    ]
    return json.dumps(issues, indent=2) + "\n"


def junit(result: CheckResult) -> str:
    """One test suite per file, one failing test case per finding, as ruff's junit output."""
    cases: dict[str, list[tuple[str, int, int, str]]] = {}
    for f in result.findings:
        cases.setdefault(f.path, []).append((f.code, f.line, f.column, f.message))
    for e in result.errors:
        cases.setdefault(e.path, []).append((FILE_ERROR, 1, 1, e.message))
    for tool in result.unchecked:
        if unchecked.sets_exit_code(tool):
            message = f"Tool not checked: {tool.reason}; {unchecked.remedy(tool)}"
            cases.setdefault(tool.path, []).append((unchecked.RECORD_TYPE, tool.line, 1, message))
    total = sum(len(items) for items in cases.values())
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="mcp-codemod" tests="{total}" failures="{total}" errors="0">',
    ]
    if not cases:
        lines += [
            '  <testsuite name="mcp-codemod" tests="1" disabled="0" errors="0" failures="0" '
            'package="org.mcp-codemod">',
            '    <testcase name="No errors found"/>',
            "  </testsuite>",
        ]
    # Imported here: it brings in urllib and email, which every other report can do without.
    from xml.sax.saxutils import escape, quoteattr

    for path in sorted(cases):
        items = cases[path]
        lines.append(
            f'  <testsuite name={quoteattr(path)} tests="{len(items)}" disabled="0" errors="0" '
            f'failures="{len(items)}" package="org.mcp-codemod">'
        )
        for code, line, column, message in items:
            lines += [
                f"    <testcase name={quoteattr('org.mcp-codemod.' + code)} "
                f'classname={quoteattr(path)} line="{line}" column="{column}">',
                f"      <failure message={quoteattr(message)}>"
                f"line {line}, col {column}, {escape(message)}</failure>",
                "    </testcase>",
            ]
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    return "\n".join(lines) + "\n"
