"""`mcp-codemod rule CODE`: a rule's documentation from its own metadata; `mcp-codemod rules`:
the table of them."""

from __future__ import annotations

from collections.abc import Sequence

from mcp_codemod.rules.model import FixAvailability, Rule


def rule_table(rules: Sequence[Rule]) -> str:
    """A line per rule: code, `[*]` when it has a fix, name, summary, and whether it is off."""
    width = max(len(rule.name) for rule in rules)
    lines = []
    for rule in rules:
        default = "" if rule.enabled_by_default else "  (off by default)"
        fix = "[*]" if rule.availability is not FixAvailability.NEVER else "   "
        lines.append(f"{rule.code}  {fix} {rule.name:<{width}} {rule.summary}{default}\n")
    return "".join(lines)


def rule_help(rule: Rule) -> str:
    """`mcp-codemod rule CODE`: the sections of ruff's rule pages."""
    default = "Enabled by default" if rule.enabled_by_default else "Off by default"
    availability = {
        FixAvailability.ALWAYS: "Fix is always available",
        FixAvailability.SOMETIMES: "Fix is sometimes available",
        FixAvailability.NEVER: "No automatic fix",
    }[rule.availability]
    return (
        f"# {rule.code} ({rule.name})\n\n{rule.summary}. {default}. {availability}.\n\n"
        f"## Why is this bad?\n{rule.why}\n\n"
        f"## Example\n```python\n{rule.example.source}```\n\n"
        f"## Use instead\n```python\n{rule.use_instead}```\n\n"
        f"## Fix\n{rule.fix_title}\n\n"
        f"## Fix safety\n{rule.fix_safety}\n" + _clients(rule)
    )


def _clients(rule: Rule) -> str:
    return f"\n## Clients it protects\n{client_list(rule)}" if rule.clients else ""


def client_list(rule: Rule) -> str:
    """The clients the rule protects, one line each: name (with versions), then source."""
    return "".join(f"- {client.name}: {client.reference}\n" for client in rule.clients)
