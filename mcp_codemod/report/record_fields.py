"""What each record of the machine formats holds, in one place: the JSON records by `type`, the
kinds of registration not checked, and the SARIF properties. docs/cli.md carries this text
between its `record-fields` markers (`python -m mcp_codemod.report.record_fields` prints it), and
tests/test_docs.py holds both that and the records the formats emit to it."""

from __future__ import annotations

import sys

from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.report.unchecked import RECORD_TYPE
from mcp_codemod.rules import RULES, unguarded_server

JSON_RECORDS: dict[str, dict[str, str]] = {
    "finding": {
        "type": '`"finding"`',
        "code": f"the rule (`{RULES[0].code}`)",
        "path": "the file",
        "line": "1-based",
        "column": "1-based",
        "tool": f"the tool's name; `null` for a finding about a server ({unguarded_server.RULE.code})",
        "parameter": "the parameter; `null` for a finding about a server",
        "annotation": "the parameter's annotation, whole (cut in `message` when long); `null` "
        "for a finding about a server",
        "framework": "the server's framework (`mcp1`, `mcp2`, `fastmcp`...)",
        "message": "what `check` prints",
        "fixable": "whether a fix exists (safe or unsafe)",
        "fix": "`null`, or `applicability` (`safe`/`unsafe`) and `message`",
    },
    "error": {
        "type": '`"error"`: a file that could not be checked',
        "code": "`E902` (ruff's code for it)",
        "path": "the file",
        "line": "`null`",
        "column": "`null`",
        "message": "why",
    },
    RECORD_TYPE: {
        "type": f'`"{RECORD_TYPE}"`: a tool registration whose tool the analysis could not see',
        "path": "the file of the registration",
        "line": "its line",
        "kind": "why it was not seen (below)",
        "reason": "the same, in words",
        "remedy": "what protects it, or would",
        "server": "the server it registers on",
        "framework": "the server's framework; `null` when unknown",
        "protected": "its server does not pre-parse, or is guarded",
        "sets_exit_code": "true for a server of unknown framework: nothing else reports it, so "
        "it fails the run by itself",
    },
}

UNCHECKED_KINDS: dict[Unchecked, str] = {
    Unchecked.UNKNOWN_FRAMEWORK: "the server's class cannot be resolved",
    Unchecked.HELPER_PARAMETER: "the tool is a parameter of a project helper",
    Unchecked.LOOP_VARIABLE: "the tool comes from a loop over what cannot be resolved",
    Unchecked.THIRD_PARTY: "the tool is imported from outside the project, its source not found",
    Unchecked.GENERATED_SIGNATURE: "the tool's signature is made at run time (`fn.__signature__`)",
    Unchecked.EXEC_TEXT: "in a file exec'd from a text that may not be the file's",
    Unchecked.NOT_FOUND: "any other expression the analysis cannot follow",
    Unchecked.FRAMEWORK_TOOLS: "tools the framework registers by itself, from code outside the "
    "project (mcp-agent's `workflows-*`)",
    Unchecked.UNRESOLVED_ANNOTATION: "a parameter's annotation names what the analysis cannot "
    "resolve (a third-party name, a `TypeVar`, a string, a type made at run time)",
    Unchecked.UNKNOWN_USE: "the server, or its `tool`/`add_tool`, is handed to code the analysis "
    "does not follow (`tool = mcp.tool`, `getattr(mcp, 'tool')`)",
    Unchecked.UNTIED: "a registration on a server of unknown framework, counted against each "
    "pre-parsing server the tree builds",
    Unchecked.OVER_BUDGET: "a question that needed more work than its budget: what it would have "
    "decided may be a registration on any server",
}

# The SARIF tool execution notification of an unchecked registration: `properties` holds these
# fields of its JSON record.
SARIF_UNCHECKED_PROPERTIES = (
    "kind",
    "reason",
    "remedy",
    "framework",
    "protected",
    "sets_exit_code",
)


def reference() -> str:
    """The Markdown of docs/cli.md between its `record-fields` markers."""
    lines = ["The `json` records, by `type`:", ""]
    for fields in JSON_RECORDS.values():
        lines.append(f"- {fields['type']}:")
        lines += [
            f"  - `{field}`: {meaning}" for field, meaning in fields.items() if field != "type"
        ]
    lines += ["", f"The `kind` of an `{RECORD_TYPE}` record:", ""]
    lines += [f"- `{kind.value}`: {meaning}" for kind, meaning in UNCHECKED_KINDS.items()]
    properties = ", ".join(f"`{field}`" for field in SARIF_UNCHECKED_PROPERTIES)
    lines += [
        "",
        f"In SARIF, an `{RECORD_TYPE}` is a tool execution notification whose `properties` "
        f"hold {properties}, as in its JSON record.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference())
