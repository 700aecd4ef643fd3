"""The rules, one module each (see `model` for what a rule declares), found by walking this
package, and their selection; the findings they produce (`findings`).

May import `analysis` and `runtime` (a rule declares its run-time marker); nothing above."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Sequence

from mcp_codemod.rules.model import Rule


def _discovered() -> tuple[Rule, ...]:
    """Every module of this package that declares a `RULE`, in the order of their codes: adding
    a rule is adding its module (as pyupgrade finds its plugins), never editing a list."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        rule = getattr(importlib.import_module(f"{__name__}.{module.name}"), "RULE", None)
        if isinstance(rule, Rule):
            found.append(rule)
    return tuple(sorted(found, key=lambda rule: rule.code))


RULES: tuple[Rule, ...] = _discovered()
RULES_BY_CODE = {rule.code: rule for rule in RULES}


def select_rules(select: list[str] | None, ignore: list[str]) -> tuple[Rule, ...]:
    """Rules enabled by `--select`/`--ignore`; codes are matched by prefix, as ruff does (`MCP`)."""
    return layered_rules([(select, [], ignore)])


def layered_rules(layers: Iterable[tuple[Sequence[str] | None, Sequence[str], Sequence[str]]]):
    """The rules chosen by layers of (select, extend-select, ignore), as ruff layers the
    configuration and the command line: a `select` replaces what the layers before it chose,
    `extend-select` adds to it, `ignore` removes (within a layer, `ignore` wins)."""
    chosen = {rule.code for rule in RULES if rule.enabled_by_default}
    for select, extend_select, ignore in layers:
        if select is not None:
            chosen = {rule.code for rule in _matching(select)}
        chosen |= {rule.code for rule in _matching(extend_select)}
        chosen -= {rule.code for rule in _matching(ignore)}
    return tuple(rule for rule in RULES if rule.code in chosen)


def _matching(codes: Sequence[str]) -> list[Rule]:
    if "ALL" in codes:
        return list(RULES)
    return [rule for rule in RULES if any(rule.code.startswith(code) for code in codes)]


def unknown_codes(codes: list[str]) -> list[str]:
    return [c for c in codes if c != "ALL" and not any(r.code.startswith(c) for r in RULES)]
