"""What current MCP clients are documented to send in place of the value a tool's schema asks
for: one entry per behaviour, each naming its clients and the public reports that show it.

`probe --clients` (and `assert_tools_keep_arguments(server, clients=True)`) replays every
behaviour against every parameter it applies to. A new behaviour is one entry in
`CLIENT_BEHAVIOURS`; its `form` is one of `FORMS`, which say what is sent and what the tool should
receive (the replay, in `server_probe`, decides where a form applies from the parameter's schema
and validator).
"""

from __future__ import annotations

from dataclasses import dataclass

ARRAY_TEXT = "array-text"
"""An array sent as its JSON text (`'["a"]'`): the tool should receive the array."""
OBJECT_TEXT = "object-text"
"""An object sent as its JSON text (`'{"a": 1}'`): the tool should receive the object."""
NULL_TEXT = "null-text"
"""JSON null sent as the text `"null"` for a nullable parameter that takes no text: `None`."""
WHOLE_FLOAT = "whole-float"
"""An integer sent as a whole float (`5.0`): the integer."""
NUMBER_TEXT = "number-text"
"""An integer sent as its decimal text (`"5"`) to a parameter that takes no text: the integer."""
DIGITS_AS_NUMBER = "digits-as-number"
"""Digit-only text sent as a JSON number (`12345`) to a union of text and null that takes no
number: the text `"12345"`."""
TEXT_AS_SENT = "text-as-sent"
"""The texts `"null"` and `"[1]"` for a parameter that takes text: the text as sent."""

FORMS = (ARRAY_TEXT, OBJECT_TEXT, NULL_TEXT, WHOLE_FLOAT, NUMBER_TEXT, DIGITS_AS_NUMBER)
FORMS += (TEXT_AS_SENT,)


@dataclass(frozen=True)
class Report:
    """A public report of the behaviour: the client and version it names, and where it is."""

    client: str
    source: str


@dataclass(frozen=True)
class ClientBehaviour:
    name: str
    """What the client does, as the probe's table prints it."""
    form: str
    """One of `FORMS`."""
    reports: tuple[Report, ...]


def _claude_code(number: int, version: str) -> Report:
    return Report(
        f"Claude Code {version}", f"https://github.com/anthropics/claude-code/issues/{number}"
    )


# Read in each report's own text (docs/client-schemas.md, "What clients send"): the version is
# the one the report names, the date the report's.
CLIENT_BEHAVIOURS: tuple[ClientBehaviour, ...] = (
    ClientBehaviour(
        "array sent as JSON text",
        ARRAY_TEXT,
        (
            _claude_code(93179, "(latest, 2026-09, open)"),
            _claude_code(59227, "2.1.138 (2026-05)"),
            Report(
                "Codex CLI 0.118.0 (2026-04, open)", "https://github.com/openai/codex/issues/16841"
            ),
            Report(
                "mcp-remote 0.1.38 (2026-08)", "https://github.com/punkpeye/mcp-remote/issues/319"
            ),
        ),
    ),
    ClientBehaviour(
        "object sent as JSON text",
        OBJECT_TEXT,
        (
            _claude_code(93179, "(latest, 2026-09, open)"),
            Report(
                "Codex CLI 0.118.0 (2026-04, open)", "https://github.com/openai/codex/issues/16841"
            ),
        ),
    ),
    ClientBehaviour(
        'null sent as the text "null"',
        NULL_TEXT,
        (
            _claude_code(81911, "2.1.220 (2026-07)"),
            _claude_code(95239, "desktop app (2026-09, open)"),
        ),
    ),
    ClientBehaviour(
        "integer sent as a whole float",
        WHOLE_FLOAT,
        (
            Report(
                "Warp v0.2026.06.03 (2026-06, open)",
                "https://github.com/warpdotdev/warp/issues/12333",
            ),
        ),
    ),
    ClientBehaviour(
        "number sent as its text",
        NUMBER_TEXT,
        (
            _claude_code(32524, "2.1.71 (2026-03)"),
            _claude_code(76228, "desktop app 1.20186.0 (2026-07, a regression)"),
        ),
    ),
    ClientBehaviour(
        "digit-only text sent as a number",
        DIGITS_AS_NUMBER,
        (_claude_code(90123, "(latest, 2026-08, open): stdio servers, an anyOf shown as {}"),),
    ),
    ClientBehaviour(
        'the texts "null" and "[1]" for a text parameter',
        TEXT_AS_SENT,
        (Report("any client", "docs/runtime.md: the mcp SDK's pre-parse decodes them"),),
    ),
)
