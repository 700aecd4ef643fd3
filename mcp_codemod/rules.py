"""The rules: each is data (code, name, documentation, a before/after example) plus a predicate.

The examples are complete modules. The test suite runs `check` on each `before` (the rule must fire),
on each `after` (nothing may fire), and, for fixable rules, `fix` on `before` (it must give `after`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mcp_codemod.analysis.linker import ToolParameter
from mcp_codemod.analysis.types import ACCEPT_WHOLE_FLOAT, NO_PRE_PARSE, Integer, Text


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    why: str
    fix: str
    before: str
    after: str
    enabled_by_default: bool
    fixable: bool  # whether `fix` rewrites (some of) its findings
    check: Callable[
        [ToolParameter], str | None
    ]  # the message, or None when the rule does not apply

    def is_fixable(self, parameter: ToolParameter) -> bool:
        if not self.fixable:
            return False
        if self.code == "MCP001" and NO_PRE_PARSE in parameter.facts.markers:
            return parameter.server.swap is not None  # only the server is left to guard
        return parameter.fix_site[1] is not None and _fixable_shape(self, parameter)


def _fixable_shape(rule: Rule, parameter: ToolParameter) -> bool:
    # `Any` and unannotated parameters have nothing to wrap: the author has to choose a type.
    return rule.code != "MCP001" or parameter.facts.text is Text.ADMITS_STR


def _describe(parameter: ToolParameter) -> str:
    annotation = parameter.parameter.annotation_text
    name = parameter.parameter.name
    return f"`{name}: {annotation}`" if annotation else f"`{name}` (no annotation)"


def _pre_parsed(parameter: ToolParameter) -> str | None:
    server = parameter.server
    if server.framework is None or not server.framework.pre_parses_json:
        return None
    if parameter.facts.text not in (Text.ADMITS_STR, Text.ANY):
        return None
    if NO_PRE_PARSE in parameter.facts.markers:
        # The marker cannot stop the SDK; only a guarded server can. Where the server's
        # construction is in sight and unguarded, the marker is a false promise.
        if server.origin is None:
            return None
        return (
            f"Tool `{parameter.tool}`: {_describe(parameter)} is marked NoPreParse, but its "
            f"server ({server.description}) is not guarded: {server.framework.title} still "
            "JSON-pre-parses it"
        )
    return (
        f"Tool `{parameter.tool}`: {_describe(parameter)} is JSON-pre-parsed by "
        f'{server.framework.title}: the string "null" arrives as None and "[1, 2]" as a list'
    )


def _rejects_whole_float(parameter: ToolParameter) -> str | None:
    facts = parameter.facts
    if facts.integer is Integer.NONE or ACCEPT_WHOLE_FLOAT in facts.markers:
        return None
    framework = parameter.server.framework
    strict_server = parameter.server.strict_input_validation and framework is not None
    if facts.integer is Integer.STRICT or parameter.parameter.default_is_strict:
        reason = "strict validation"
    elif strict_server and framework.value == "fastmcp":
        reason = "the server's strict_input_validation"
    else:
        return None
    return (
        f"Tool `{parameter.tool}`: integer {_describe(parameter)} rejects whole-number floats "
        f"such as 5.0 ({reason}), which float64-serializing clients send"
    )


_LARGE_ID = re.compile(r"(^|_)(id|ids|snowflake)$|snowflake|_(ns|nanos|nanoseconds)$", re.I)


def _large_integer_name(parameter: ToolParameter) -> str | None:
    facts = parameter.facts
    if facts.integer is Integer.NONE or facts.text in (Text.ADMITS_STR, Text.ANY):
        return None
    if not _LARGE_ID.search(parameter.parameter.name):
        return None
    return (
        f"Tool `{parameter.tool}`: integer {_describe(parameter)} may carry values above 2**53, "
        "which float64-serializing clients round before they reach the server"
    )


MCP001 = Rule(
    code="MCP001",
    name="json-pre-parsed-parameter",
    summary="A text parameter that the MCP SDK JSON-pre-parses",
    why=(
        "mcp 1.x `FastMCP` and mcp 2.x `MCPServer` run `json.loads` on every string argument whose\n"
        "annotation is not exactly `str`. For `str | None`, `Optional[str]`, `str | list[str]`,\n"
        '`Literal["null", ...]`, `Any` and unannotated parameters the string "null" arrives as None (as if\n'
        'it had not been sent), and "[1, 2]" or \'{"a": 1}\' arrive as a list or dict and fail\n'
        "validation. Free text (queries, file contents, names) cannot carry those values at all.\n"
        "The standalone `fastmcp` package does not pre-parse: its tools are not reported."
    ),
    fix=(
        "`mcp-codemod fix --write` wraps the annotation as `Annotated[..., NoPreParse]` and makes\n"
        "the server a `GuardedFastMCP` / `GuardedMCPServer`, which never pre-parses a string for a\n"
        "parameter that admits strings. `Any` and unannotated parameters need a real type first.\n"
        "A parameter already marked `NoPreParse` whose server is built in sight and unguarded is\n"
        "reported too: the marker alone cannot stop the SDK, so the fix guards the server."
    ),
    before="""\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("search")


@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
""",
    after="""\
from typing import Annotated

from mcp_codemod.runtime import GuardedFastMCP, NoPreParse

mcp = GuardedFastMCP("search")


@mcp.tool()
def search(query: Annotated[str | None, NoPreParse] = None) -> str:
    return query or ""
""",
    enabled_by_default=True,
    fixable=True,
    check=_pre_parsed,
)

MCP002 = Rule(
    code="MCP002",
    name="strict-integer-rejects-whole-float",
    summary="A strictly validated integer parameter that rejects 5.0",
    why=(
        "Some clients pass tool arguments through a protobuf `Struct`, whose numbers are all\n"
        "float64: the integer 5 arrives as 5.0. Lax pydantic turns 5.0 into 5, but strict\n"
        "validation (`StrictInt`, `Annotated[int, Strict()]`, `Field(strict=True)`,\n"
        "`conint(strict=True)`, a fastmcp 3+ server with `strict_input_validation=True`) rejects\n"
        "it, so the tool fails for those clients."
    ),
    fix=(
        "`mcp-codemod fix --write` adds the `AcceptWholeFloat` marker: 5.0 becomes 5 before\n"
        "validation, 5.5, nan, inf and booleans are still rejected, the JSON schema is unchanged."
    ),
    before="""\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

mcp = FastMCP("pages")


@mcp.tool()
def page(number: StrictInt) -> str:
    return str(number)
""",
    after="""\
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp_codemod.runtime import AcceptWholeFloat
from pydantic import StrictInt

mcp = FastMCP("pages")


@mcp.tool()
def page(number: Annotated[StrictInt, AcceptWholeFloat]) -> str:
    return str(number)
""",
    enabled_by_default=True,
    fixable=True,
    check=_rejects_whole_float,
)

MCP003 = Rule(
    code="MCP003",
    name="large-integer-id",
    summary="An integer parameter whose name says it carries 64-bit IDs",
    why=(
        "Integers above 2**53 (64-bit document IDs, snowflakes, nanosecond timestamps) are\n"
        "rounded by clients that serialize numbers as float64, before the server sees them: no\n"
        "server-side validation can restore the lost digits. Advisory: off by default, since the\n"
        "name is only a hint; enable it with `--select MCP003`."
    ),
    fix="Accept such IDs as strings (`int | str`, or `str` and convert), and document it.",
    before="""\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("chat")


@mcp.tool()
def delete_message(message_id: int) -> str:
    return str(message_id)
""",
    after="""\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("chat")


@mcp.tool()
def delete_message(message_id: str) -> str:
    return str(int(message_id))
""",
    enabled_by_default=False,
    fixable=False,
    check=_large_integer_name,
)

RULES: tuple[Rule, ...] = (MCP001, MCP002, MCP003)
RULES_BY_CODE = {rule.code: rule for rule in RULES}


def select_rules(select: list[str] | None, ignore: list[str]) -> tuple[Rule, ...]:
    """Rules enabled by `--select`/`--ignore`; codes are matched by prefix, as ruff does (`MCP`)."""
    if select is None:
        chosen = [rule for rule in RULES if rule.enabled_by_default]
    else:
        chosen = [rule for rule in RULES if any(rule.code.startswith(s) for s in select)]
        if any(s == "ALL" for s in select):
            chosen = list(RULES)
    return tuple(rule for rule in chosen if not any(rule.code.startswith(i) for i in ignore))


def unknown_codes(codes: list[str]) -> list[str]:
    return [c for c in codes if c != "ALL" and not any(r.code.startswith(c) for r in RULES)]
