"""Run-time guards for MCP tool arguments. Needs only pydantic and the server's mcp/fastmcp.

The server-side names (`GuardedFastMCP`, `GuardedMCPServer`, `guard`, `install`, `uninstall`)
load the mcp SDK on first use, so a client that only needs `coerce_integer_arguments` does not.
"""

from __future__ import annotations

from typing import Any

from .coerce import IntegerCoercingSession, coerce_integer_arguments
from .guards import (
    AcceptDigitText,
    AcceptNumberAsText,
    AcceptWholeFloat,
    ArrayItemsSchema,
    DecodeJsonText,
    NoPreParse,
    OpenAIStrictFormats,
    TypedSchema,
)

_SERVER_NAMES = ("guard", "install", "uninstall", "GuardedFastMCP", "GuardedMCPServer")

# The guarded classes are left out: only one of them can be imported in a given environment.
__all__ = [
    "AcceptDigitText",
    "AcceptNumberAsText",
    "AcceptWholeFloat",
    "ArrayItemsSchema",
    "DecodeJsonText",
    "IntegerCoercingSession",
    "NoPreParse",
    "OpenAIStrictFormats",
    "TypedSchema",
    "coerce_integer_arguments",
    "guard",
    "install",
    "uninstall",
]


def __getattr__(name: str) -> Any:
    if name not in _SERVER_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import servers

    return getattr(servers, name)  # a guarded class of the other mcp major: an ImportError
