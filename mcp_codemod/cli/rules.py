"""`mcp-codemod rules` and `mcp-codemod rule CODE`: the rules' own documentation."""

from __future__ import annotations

import click

from mcp_codemod.cli.exits import fail


@click.command(name="rules")
def list_rules() -> None:
    """List the rules."""
    from mcp_codemod.report.rule_help import rule_table
    from mcp_codemod.rules import RULES

    click.echo(rule_table(RULES), nl=False)


@click.command(name="rule")
@click.argument("code")
def explain_rule(code: str) -> None:
    """Explain one rule: what it finds, why it matters, an example and the fix."""
    from mcp_codemod.report.rule_help import rule_help
    from mcp_codemod.rules import RULES_BY_CODE

    rule = RULES_BY_CODE.get(code.strip().upper())
    if rule is None:
        fail(f"unknown rule {code!r}; `mcp-codemod rules` lists them")
    click.echo(rule_help(rule), nl=False)
