"""What probing a server finds, as plain data: the arguments that do not arrive as sent, the
arrays without `items` in input schemas, and the tools that could not be probed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
class ArrayWithoutItems:
    """An array in a tool's input schema without `items`, which VS Code's MCP client refuses."""

    tool: str
    parameter: str
    path: str
    """Where the array is, as a JSON pointer into the tool's input schema."""


@dataclass(frozen=True)
class UntypedNode:
    """A node of a tool's input schema without `type` (the parameter, a union member, array
    items), which Gemini CLI's MCP client up to 0.7 drops the tool for and the OpenAI API
    refuses in strict mode."""

    tool: str
    parameter: str
    path: str
    """Where the node is, as a JSON pointer into the tool's input schema."""


@dataclass(frozen=True)
class LoneRef:
    """A `$ref` with nothing beside it but a `None` default (a model or an enum on the mcp SDK)
    at a node of a tool's input schema where Gemini CLI's MCP client up to 0.7.0 looks for a
    type (the parameter, a union member, array items): that client drops the tool, current
    clients accept it."""

    tool: str
    parameter: str
    path: str
    """Where the `$ref` is, as a JSON pointer into the tool's input schema."""


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
    arrays_without_items: tuple[ArrayWithoutItems, ...] = ()
    not_probed: tuple[tuple[str, str], ...] = ()
    """(tool, reason) for tools whose argument handling the probe cannot reproduce."""
    arrivals: tuple[Arrival, ...] = ()
    """What every value sent arrived as, for every probed parameter (`ARRIVAL_PROBES` and the
    parameter's own probes): the record that tells what a change to the server changed."""
    untyped_nodes: tuple[UntypedNode, ...] = ()
    # Reported by `probe --openai-strict` only (an opt-in, as the rules are): not in `failed`.
    strict_mode: tuple[StrictModeProblem, ...] = ()
    # Reported by `probe --legacy-clients` only (an opt-in, as MCP201 is): not in `failed`.
    lone_refs: tuple[LoneRef, ...] = ()
    # Reported by `probe --clients` only: not in `failed`.
    client_forms: tuple[ClientFormProblem, ...] = ()

    @property
    def failed(self) -> bool:
        return bool(self.problems or self.arrays_without_items or self.untyped_nodes)

    def summary(self) -> str:
        return f"probed {count(len(self.tools), 'tool')} of {self.server!r}, {self.framework}"


def count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
