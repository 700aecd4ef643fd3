"""The rules, one module each (see `model` for what a rule declares), found by walking this
package, and their selection; the findings they produce (`findings`).

May import `analysis` and `runtime` (a rule declares its run-time marker); nothing above."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_codemod.rules.model import Rule

    RULES: tuple[Rule, ...]
    RULES_BY_CODE: dict[str, Rule]


@functools.cache
def _discovered() -> tuple[Rule, ...]:
    """Every module of this package that declares a `RULE`, in the order of their codes: adding
    a rule is adding its module (as pyupgrade finds its plugins), never editing a list."""
    import pkgutil

    from mcp_codemod.rules.model import Rule

    found = []
    for module in pkgutil.iter_modules(__path__):
        rule = getattr(importlib.import_module(f"{__name__}.{module.name}"), "RULE", None)
        if isinstance(rule, Rule):
            found.append(rule)
    return tuple(sorted(found, key=lambda rule: rule.code))


@functools.cache
def _by_code() -> dict[str, Rule]:
    return {rule.code: rule for rule in _discovered()}


def __getattr__(name: str) -> Any:
    """`RULES` and `RULES_BY_CODE`, found when first asked for: the rules' modules import the
    analysis's data, most of the start-up of a run the run cache answers, which needs none of
    them (its findings only name their codes)."""
    if name == "RULES":
        return _discovered()
    if name == "RULES_BY_CODE":
        return _by_code()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ChosenRules(Sequence["Rule"]):
    """`layered_rules(layers)`, chosen when first read. The run cache is keyed by the layers
    (with the code, which decides what they choose), so a run it answers imports no rule."""

    def __init__(
        self, layers: Iterable[tuple[Sequence[str] | None, Sequence[str], Sequence[str]]]
    ) -> None:
        self.layers = tuple(
            (None if select is None else tuple(select), tuple(extend_select), tuple(ignore))
            for select, extend_select, ignore in layers
        )

    @functools.cached_property
    def rules(self) -> tuple[Rule, ...]:
        return layered_rules(self.layers)

    def __getitem__(self, index):  # type: ignore[override]
        return self.rules[index]

    def __len__(self) -> int:
        return len(self.rules)


def select_rules(select: list[str] | None, ignore: list[str]) -> tuple[Rule, ...]:
    """Rules enabled by `--select`/`--ignore`; codes are matched by prefix, as ruff does (`MCP`)."""
    return layered_rules([(select, [], ignore)])


def layered_rules(layers: Iterable[tuple[Sequence[str] | None, Sequence[str], Sequence[str]]]):
    """The rules chosen by layers of (select, extend-select, ignore), as ruff layers the
    configuration and the command line: a `select` replaces what the layers before it chose,
    `extend-select` adds to it, `ignore` removes (within a layer, `ignore` wins)."""
    rules = _discovered()
    chosen = {rule.code for rule in rules if rule.enabled_by_default}
    for select, extend_select, ignore in layers:
        if select is not None:
            chosen = {rule.code for rule in _matching(select)}
        chosen |= {rule.code for rule in _matching(extend_select)}
        chosen -= {rule.code for rule in _matching(ignore)}
    return tuple(rule for rule in rules if rule.code in chosen)


def _matching(codes: Sequence[str]) -> list[Rule]:
    if "ALL" in codes:
        return list(_discovered())
    return [rule for rule in _discovered() if any(rule.code.startswith(code) for code in codes)]


def unknown_codes(codes: list[str]) -> list[str]:
    rules = _discovered()
    return [c for c in codes if c != "ALL" and not any(r.code.startswith(c) for r in rules)]
