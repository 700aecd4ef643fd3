"""The textual prefilter: whether a file's bytes can hold anything the analysis looks for.

Parsing is what costs; reading and searching bytes costs a hundredth of it (see docs/speed.md).
"""

from __future__ import annotations

import re

from mcp_codemod.sources import decode

# A file can register a tool, guard a server, or create one (whose callers pass it on to
# `register_tools(mcp)` functions elsewhere) only if it says one of these. Any other module is
# parsed only when a candidate imports from it.
CANDIDATE_WORDS = ("add_tool", "mcp_codemod", "FastMCP", "MCPServer", "_tool_manager", "async_tool")
# `.tool` as Python reads an attribute: blanks, line continuations and (inside brackets) comments
# may stand between the dot and the name. The alternatives cannot overlap: no backtracking.
TOOL_ATTRIBUTE = r"\.(?:[\s\\]|#[^\r\n]*[\r\n])*tool\b"
# Tested on the bytes (every source encoding Python accepts is ASCII-compatible), word by word:
# substring search is several times faster than one regex with alternatives.
_WORDS_IN_BYTES = tuple(word.encode() for word in CANDIDATE_WORDS)
_TOOL_IN_BYTES = re.compile(TOOL_ATTRIBUTE.encode())
_TOOL_IN_TEXT = re.compile(TOOL_ATTRIBUTE)


def is_candidate(data: bytes) -> bool:
    """Whether a file's bytes can hold a registration, a guard or a server. Raises SourceError
    for bytes that are not ASCII and cannot be decoded."""
    if any(word in data for word in _WORDS_IN_BYTES):
        return True
    if b"tool" in data and _TOOL_IN_BYTES.search(data):
        return True
    if data.isascii():
        return False
    import unicodedata

    # Python reads identifiers NFKC-normalized: `mcp.ｔｏｏｌ` is `mcp.tool`.
    text = decode(data).text
    if unicodedata.is_normalized("NFKC", text):
        return False
    text = unicodedata.normalize("NFKC", text)
    return any(word in text for word in CANDIDATE_WORDS) or bool(_TOOL_IN_TEXT.search(text))
