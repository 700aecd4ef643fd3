"""What a rule is: its documentation, its subject, its check, its fix and its cases.

A rule judges one kind of subject (`ToolParameter`: one argument of one tool; `RegisteredTool`:
one tool as a whole; `ServerTools`: one server with the registrations the analysis could not
follow) and returns a `Report`: the message
and, where it can, the `Fix` with its edits and whether applying it is safe. The engine
(`mcp_codemod.engine.checker`) turns reports into findings; the fixer applies their fixes. A rule carries
its own cases (`Valid`, `Invalid`), from which the tests are generated and the first example of
`mcp-codemod rule CODE` is taken, as Fixit rules do; the run-time marker its fix writes (a name
`mcp_codemod.runtime` exports); and, for a rule about what clients make of the schema, the check
`mcp-codemod probe` runs on a live server's listed input schemas (`SchemaCheck`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

from mcp_codemod.analysis.subjects import RegisteredTool, ServerTools, ToolParameter
from mcp_codemod.rules.findings import Fix

Subject = TypeVar("Subject", ToolParameter, RegisteredTool, ServerTools)


class FixAvailability(str, Enum):
    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


@dataclass(frozen=True)
class Report:
    """What a rule says about one subject."""

    message: str
    fix: Fix | None = None


@dataclass(frozen=True)
class Valid:
    """A module on which the rule reports nothing."""

    source: str


@dataclass(frozen=True)
class Invalid:
    """A module on which the rule reports exactly at `lines` (1-based), and that `fix --write`
    (with `--unsafe-fixes` for an unsafe fix) turns into `fixed`; `fixed` is None when there is
    no fix."""

    source: str
    lines: tuple[int, ...]
    fixed: str | None = None


@dataclass(frozen=True)
class Client:
    """An MCP client a rule protects the server's tools in: its name (with the versions where it
    matters) and where its behaviour is shown (its source, or a public report)."""

    name: str
    reference: str


@dataclass(frozen=True)
class SchemaCheck:
    """What `mcp-codemod probe` (and `assert_tools_keep_arguments`) finds for the rule in a live
    server's listed input schemas, and how it says so: the node the rule reports the annotation
    of, judged where the client judges it."""

    find: Callable[[dict[str, Any]], Iterator[tuple[str, str]]]
    """A tool's input schema → (parameter, JSON pointer) of each node the rule is about."""
    kind: str  # the JSON record's `kind`
    column: str  # the text table's last column: what the node is, and what the client does
    error: str  # the JSON record's `error`, with `{path}`
    counted: tuple[str, str]  # the summary's noun and what follows it: ("array", " without items")
    failure: str  # the pytest helper's heading: what the schemas hold, and who refuses it
    remedy: str  # the pytest helper's advice, before the marker: "Arrays without items"
    # Reported only by `probe --legacy-clients`, as its rule is opt-in; not a failed probe.
    legacy_clients: bool = False


@dataclass(frozen=True)
class Rule(Generic[Subject]):
    code: str
    name: str
    summary: str
    why: str  # "Why is this bad?"
    fix_title: str  # what the fix does, or what to do by hand when there is none
    fix_safety: str  # why the fix is safe, or when it is not
    subject: type[Subject]
    check: Callable[[Subject], Report | None]
    availability: FixAvailability
    enabled_by_default: bool
    cases: tuple[Valid | Invalid, ...]
    # The clients that refuse, drop or mangle what the rule reports (empty: the server's own SDK).
    clients: tuple[Client, ...] = ()
    # The `mcp_codemod.runtime` marker its fix writes (the runtime never names a rule).
    marker: str | None = None
    schema_check: SchemaCheck | None = None

    @property
    def example(self) -> Invalid:
        return next(case for case in self.cases if isinstance(case, Invalid))

    @property
    def use_instead(self) -> str:
        """The example fixed, or for a rule without a fix, its first valid case."""
        if self.example.fixed is not None:
            return self.example.fixed
        return next(case.source for case in self.cases if isinstance(case, Valid))
