"""SARIF 2.1.0, as code scanning reads it: one result per finding, with `partialFingerprints`
(code scanning deduplicates alerts on them) and each rule's `helpUri` at its page in
docs/rules/. The registrations that were not checked are tool execution notifications (not
results: they are no rule's finding), with their kind, reason and remedy."""

from __future__ import annotations

import json
import os

from mcp_codemod import __version__
from mcp_codemod.engine.checker import CheckResult
from mcp_codemod.report import unchecked
from mcp_codemod.report.machine_formats import finding_fingerprint
from mcp_codemod.report.record_fields import SARIF_UNCHECKED_PROPERTIES
from mcp_codemod.rules import RULES

# Where the rule pages are published, e.g. https://github.com/OWNER/mcp-codemod/blob/v0.1.0
# (the GitHub Action sets it from its own repository and ref). Without it, `helpUri` is the
# page's path in the repository, a relative reference.
DOCS_URL_VARIABLE = "MCP_CODEMOD_DOCS_URL"
FINGERPRINT_KEY = "mcpCodemod/v1"


def help_uri(code: str) -> str:
    page = f"docs/rules/{code}.md"
    base = os.environ.get(DOCS_URL_VARIABLE, "").rstrip("/")
    return f"{base}/{page}" if base else page


def _uri(path: str) -> str:
    return path.replace("\\", "/")


def sarif(result: CheckResult) -> str:
    codes = [rule.code for rule in RULES]
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why.replace("\n", " ")},
            "help": {"text": rule.fix_title.replace("\n", " ")},
            "helpUri": help_uri(rule.code),
            "defaultConfiguration": {"enabled": rule.enabled_by_default},
        }
        for rule in RULES
    ]
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": codes.index(f.code),
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.path)},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: finding_fingerprint(f)},
            "properties": {"tool": f.tool, "parameter": f.parameter, "fixable": f.fixable},
        }
        for f in result.findings
    ]
    notifications = [
        {
            "level": "error",
            "message": {"text": e.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(e.path)}}}],
        }
        for e in result.errors
    ]
    notifications += [
        {
            "descriptor": {"id": unchecked.RECORD_TYPE},
            # An error where it fails the run; a note where something protects it.
            "level": "error" if record["sets_exit_code"] else "warning",
            "message": {"text": f"Tool not checked: {record['reason']}; {record['remedy']}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(record["path"])},
                        "region": {"startLine": record["line"]},
                    }
                }
            ],
            "properties": {key: record[key] for key in SARIF_UNCHECKED_PROPERTIES},
        }
        for record in unchecked.records(result)
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
                        # this one has no public address of its own to point at.
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
