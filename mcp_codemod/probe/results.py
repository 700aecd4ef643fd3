"""What probing a server finds, as plain data: the arguments that do not arrive as sent, the
schema nodes the rules' probe checks find, and the tools that could not be probed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_codemod.rules import RULES, RULES_BY_CODE
from mcp_codemod.rules.model import Rule, SchemaCheck

# What a problem is about; the kind also says which fix applies.
TEXT = "text"
"""A string argument for a parameter that takes strings does not arrive as that string."""
WHOLE_FLOAT = "whole-float"
"""`5.0` for an integer parameter does not arrive as `5`."""
JSON_TEXT = "json-text"
"""A structured value sent as its JSON text is rejected or changed."""


class _Outcome:
    """What an argument that does not reach the tool as meant came to: changed or rejected."""

    received: Any
    error: str | None

    @property
    def outcome(self) -> str:
        return "changed" if self.error is None else "rejected"

    def describe(self) -> str:
        return repr(self.received) if self.error is None else f"rejected: {self.error}"


@dataclass(frozen=True)
class Problem(_Outcome):
    """One argument that does not reach the tool as sent."""

    tool: str
    parameter: str
    kind: str
    """TEXT, WHOLE_FLOAT or JSON_TEXT."""
    sent: Any
    """The argument as the client sends it (a JSON value)."""
    received: Any = None
    """What the tool would receive, when validation accepted the argument."""
    error: str | None = None
    """Why validation rejected the argument; None when it was accepted but changed."""


@dataclass(frozen=True)
class ClientFormProblem(_Outcome):
    """A documented client behaviour (`client_behaviours.CLIENT_BEHAVIOURS`) whose argument does
    not reach the tool as the value the client meant: it is rejected or arrives changed."""

    tool: str
    parameter: str
    behaviour: str
    """The behaviour's name."""
    sent: Any
    intended: Any
    """What the tool should receive: the parameter's own validation of the value meant."""
    received: Any = None
    error: str | None = None


@dataclass(frozen=True)
class Arrival:
    """What one value sent for one parameter arrives as, problem or not."""

    tool: str
    parameter: str
    sent: Any
    received: Any = None
    error: str | None = None
    """Why validation rejected the argument; None when it arrived as `received`."""

    @property
    def as_sent(self) -> bool:
        return self.error is None and same(self.received, self.sent)

    def same_outcome(self, other: Arrival) -> bool:
        """Whether `other` arrived as this did: the same value, or an error both times."""
        if self.error is not None or other.error is not None:
            return self.error is not None and other.error is not None
        return same(self.received, other.received)


def same(a: Any, b: Any) -> bool:
    """Equal and of the same type: `1` is not `True`, nor `"1"`."""
    return type(a) is type(b) and a == b


@dataclass(frozen=True)
class SchemaNode:
    """A node of a tool's input schema that a rule's probe check (`Rule.schema_check`) finds:
    an array without `items`, a node without `type`, a `$ref` alone."""

    rule: str
    """The code of the rule whose check found it."""
    tool: str
    parameter: str
    path: str
    """Where the node is, as a JSON pointer into the tool's input schema."""


@dataclass(frozen=True)
class StrictModeProblem:
    """Why OpenAI strict mode does not take a tool's input schema as it is (`probe/strict_mode.py`
    names the kinds): the OpenAI Agents SDK sends it non-strict, drops a default, or the OpenAI
    API refuses it."""

    tool: str
    parameter: str  # "" for the tool as a whole
    kind: str
    path: str  # the JSON pointer into the tool's input schema ("" for the root)
    detail: str = ""  # the format refused, the default never given


@dataclass(frozen=True)
class ProbeReport:
    """What probing one server found."""

    server: str
    framework: str
    tools: tuple[str, ...]
    """The tools that were probed, in registration order."""
    problems: tuple[Problem, ...]
    not_probed: tuple[tuple[str, str], ...] = ()
    """(tool, reason) for tools whose argument handling the probe cannot reproduce."""
    arrivals: tuple[Arrival, ...] = ()
    """What every value sent arrived as, for every probed parameter (`ARRIVAL_PROBES` and the
    parameter's own probes): the record that tells what a change to the server changed."""
    schema_nodes: tuple[SchemaNode, ...] = ()
    """What each rule's probe check found, rule by rule, tool by tool. Those of a check for
    legacy clients are reported by `probe --legacy-clients` only (an opt-in, as their rules
    are): not in `failed`."""
    # Reported by `probe --openai-strict` only (an opt-in, as the rules are): not in `failed`.
    strict_mode: tuple[StrictModeProblem, ...] = ()
    # Reported by `probe --clients` only: not in `failed`.
    client_forms: tuple[ClientFormProblem, ...] = ()

    def found_by(self, rule: Rule) -> tuple[SchemaNode, ...]:
        """The schema nodes the rule's probe check found."""
        return tuple(node for node in self.schema_nodes if node.rule == rule.code)

    def legacy_client_nodes(self) -> tuple[SchemaNode, ...]:
        """What the checks for legacy clients found (`probe --legacy-clients`)."""
        return tuple(node for node in self.schema_nodes if _for_legacy_clients(node))

    @property
    def failed(self) -> bool:
        return bool(self.problems or any(not _for_legacy_clients(n) for n in self.schema_nodes))

    def summary(self) -> str:
        return f"probed {count(len(self.tools), 'tool')} of {self.server!r}, {self.framework}"


def count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def schema_checks() -> tuple[tuple[Rule, SchemaCheck], ...]:
    """Each rule with a probe check, and its check, in the rules' order."""
    return tuple((rule, rule.schema_check) for rule in RULES if rule.schema_check is not None)


def _for_legacy_clients(node: SchemaNode) -> bool:
    check = RULES_BY_CODE[node.rule].schema_check
    return check is not None and check.legacy_clients
