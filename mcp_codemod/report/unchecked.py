"""The registrations whose tools were not checked, as records of their own in every machine
format: where, why (`kind`, `reason`), what protects them or would (`remedy`), and whether they
set the exit code (a server of unknown framework may JSON-pre-parse, and no finding says so)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp_codemod.analysis.frameworks import Framework

if TYPE_CHECKING:
    from mcp_codemod.analysis.subjects import UncheckedRegistration
    from mcp_codemod.engine.checker import CheckResult

RECORD_TYPE = "unchecked-registration"


def remedy(tool: UncheckedRegistration) -> str:
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
    # Only here: a rule's module imports the analysis, which a stored result's report of
    # protected registrations does without.
    from mcp_codemod.rules.unguarded_server import RULE as UNGUARDED_SERVER

    return f"unprotected: guard the server ({UNGUARDED_SERVER.code})"


def sets_exit_code(tool: UncheckedRegistration) -> bool:
    """Whether the registration fails the run by itself (no finding reports it)."""
    return tool.server.framework is None


def protected(tool: UncheckedRegistration) -> bool:
    framework = tool.server.framework
    return framework is not None and not framework.pre_parses_json


def records(result: CheckResult) -> list[dict]:
    return [
        {
            "type": RECORD_TYPE,
            "path": tool.path,
            "line": tool.line,
            "kind": tool.kind.value,
            "reason": tool.reason,
            "remedy": remedy(tool),
            "server": tool.server.description,
            "framework": None if tool.server.framework is None else tool.server.framework.value,
            "protected": protected(tool),
            "sets_exit_code": sets_exit_code(tool),
        }
        for tool in result.unchecked
    ]
