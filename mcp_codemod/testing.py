"""Assertions for a project's own test suite.

```python
from mcp_codemod.testing import assert_tools_keep_arguments
from myserver import mcp


def test_tools_keep_their_arguments():
    assert_tools_keep_arguments(mcp)
```
"""

from __future__ import annotations

import warnings
from typing import Any

from mcp_codemod.probe.results import JSON_TEXT, TEXT, WHOLE_FLOAT, ProbeReport, schema_checks
from mcp_codemod.probe.server_probe import probe_server
from mcp_codemod.report.probe_output import client_sources
from mcp_codemod.rules import strict_integer, structured_json_text

__all__ = ["assert_tools_keep_arguments"]


def assert_tools_keep_arguments(server: Any, *, clients: bool = False) -> None:
    """Fail when a tool of `server` would receive a probe argument changed, or not at all.

    The probe of `mcp-codemod probe`: for every registered tool, the strings "null", "[1]" and
    '{"a": 1}' go to each parameter that takes them, 5.0 to each integer parameter and the JSON
    text of an array or object to each structured parameter, through the framework's own
    argument handling; tool bodies are never run. An input schema with an array without `items`
    fails too. In the suite, a new tool or parameter cannot bring the problem back unnoticed.
    Tools the probe cannot reproduce (not plain function tools) are named in a warning; a
    server with no tools at all fails (nothing was probed).

    With `clients=True`, what current clients are documented to send in place of a value
    (`mcp-codemod probe --clients`: arrays and objects as JSON text, "null" as text, integers as
    floats or text, digits as a number) is replayed too, and must reach each tool as the value
    meant.
    """
    __tracebackhide__ = True
    report = probe_server(server)
    for tool, reason in report.not_probed:
        warnings.warn(f"tool {tool!r} not probed: {reason}", stacklevel=2)
    if not report.tools and not report.not_probed:
        # A pass would promise what nothing was probed for: the modules that register the
        # tools were not imported (or the wrong server was given).
        raise AssertionError(
            f"probed nothing: {report.server!r} has no tools registered; import the modules "
            "that register them before the assertion"
        )
    if report.failed or (clients and report.client_forms):
        raise AssertionError(_message(report, clients))


_ADVICE = {
    TEXT: (
        "Text parameters: guard the server (mcp_codemod.runtime.guard(server), or the "
        "GuardedFastMCP / GuardedMCPServer class)."
    ),
    WHOLE_FLOAT: (
        "Integer parameters: annotate them "
        f"Annotated[..., mcp_codemod.runtime.{strict_integer.RULE.marker}]."
    ),
    JSON_TEXT: (
        "Structured parameters that clients may send as JSON text: annotate them "
        f"Annotated[..., mcp_codemod.runtime.{structured_json_text.RULE.marker}]."
    ),
}


def _message(report: ProbeReport, clients: bool) -> str:
    lines = []
    if report.problems:
        lines.append(f"Tool arguments that do not arrive as sent ({report.summary()}):")
        lines += [
            f"  {p.tool}({p.parameter}): sent {p.sent!r}, "
            + (f"received {p.received!r}" if p.error is None else f"rejected: {p.error}")
            for p in report.problems
        ]
    # What each rule's probe check found, but for legacy clients (not a failed probe).
    found = [
        (rule, check, report.found_by(rule))
        for rule, check in schema_checks()
        if not check.legacy_clients and report.found_by(rule)
    ]
    for _, check, nodes in found:
        lines.append(f"{check.failure} ({report.summary()}):")
        lines += [f"  {n.tool}({n.parameter}): {n.path}" for n in nodes]
    client_forms = report.client_forms if clients else ()
    if client_forms:
        lines.append(
            f"What current clients send that does not arrive as meant ({report.summary()}):"
        )
        lines += [
            f"  {p.tool}({p.parameter}): {p.behaviour}: sent {p.sent!r}, "
            + (f"received {p.received!r}" if p.error is None else f"rejected: {p.error}")
            + f", meant {p.intended!r}"
            for p in client_forms
        ]
        lines += client_sources({p.behaviour for p in client_forms})
    kinds = {p.kind for p in report.problems}
    lines += [advice for kind, advice in _ADVICE.items() if kind in kinds]
    lines += [
        f"{check.remedy}: annotate the parameter Annotated[..., mcp_codemod.runtime.{rule.marker}]."
        for rule, check, _ in found
    ]
    lines.append(
        "`mcp-codemod fix --write` makes these changes for the tools it sees in the source."
    )
    return "\n".join(lines)
