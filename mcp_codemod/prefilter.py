"""The textual prefilter: whether a file's bytes can hold anything the analysis looks for.

Parsing is what costs; reading and searching bytes costs a hundredth of it (see docs/speed.md).
"""

from __future__ import annotations

import re

from mcp_codemod.sources import decode

# A file can register a tool, guard a server, or create one (whose callers pass it on to
# `register_tools(mcp)` functions elsewhere), or run a file of tools in its namespace with an
# imported server (`analysis/exec_files.py`), or make an application object whose framework
# registers tools by itself (`MCPApp`, analysis/framework_tools.py), only if it says one of these.
# Any other module is parsed only when a candidate imports from it, or names a registrar the
# analysis looks for the callers of (`Project.load_callers`).
CANDIDATE_WORDS = ("add_tool", "mcp_codemod", "_tool_manager")
# A server class (or mcp-agent's `MCPApp`) named where a server can be made: called or
# subscripted (`FastMCP(...)`, `FastMCP[T]`), imported under another name (`FastMCP as App`), or
# after `(`, `,` or `=` (a base class, `make(FastMCP)`, `App = FastMCP`). Where it is only an
# annotation (`server: FastMCP`, `-> FastMCP`, `Optional[FastMCP]`) or imported for one, the file
# can make no server: the frameworks' own modules say `FastMCP` everywhere that way.
SERVER_CLASSES = ("FastMCP", "MCPServer", "MCPApp")
_SERVER_CLASS = rf"(?:{'|'.join(SERVER_CLASSES)})\b"
SERVER_MADE = (
    rf"{_SERVER_CLASS}[\s\\]*(?:[(\[]|as\b)"
    rf"|[(,=][\s\\]*(?:\w+[\s\\]*\.[\s\\]*)*{_SERVER_CLASS}"
)
_SERVER_NAMES = tuple(name.encode() for name in SERVER_CLASSES)
# `exec(compile(...))`, `exec(open(...).read())`, `exec(Path(...).read_text())`: the word `exec(`
# alone would pass every database driver (`cursor.exec(...)`).
EXEC_FILE = r"exec[\s\\]*\([\s\\(]*(?:compile|open|Path|pathlib)\b"
# `.tool` as Python reads an attribute: blanks, line continuations and (inside brackets) comments
# may stand between the dot and the name. The alternatives cannot overlap: no backtracking.
TOOL_ATTRIBUTE = r"\.(?:[\s\\]|#[^\r\n]*[\r\n])*(?:async_)?tool\b"
# Tested on the bytes (every source encoding Python accepts is ASCII-compatible), word by word:
# substring search is several times faster than one regex with alternatives.
_WORDS_IN_BYTES = tuple(word.encode() for word in CANDIDATE_WORDS)
_TOOL_IN_BYTES = re.compile(TOOL_ATTRIBUTE.encode())
_TOOL_IN_TEXT = re.compile(TOOL_ATTRIBUTE)
_EXEC_IN_BYTES = re.compile(EXEC_FILE.encode())
_EXEC_IN_TEXT = re.compile(EXEC_FILE)
# The pattern starts with no literal: tried only on files that say a server class's name.
_SERVER_MADE_IN_BYTES = re.compile(SERVER_MADE.encode())
_SERVER_MADE_IN_TEXT = re.compile(SERVER_MADE)
# The pattern above tries a match at every `.` of a file; the word `tool` is rare, and a pattern
# starting with a literal is searched as fast as a substring. From each `tool` (or `async_tool`),
# what precedes it is read backwards.
_TOOL_WORD = re.compile(rb"tool\b")
_BLANKS = frozenset(b" \t\n\r\f\v\\")
_DOT = ord(".")


def is_candidate(data: bytes) -> bool:
    """Whether a file's bytes can hold a registration, a guard or a server. Raises SourceError
    for bytes that are not ASCII and cannot be decoded."""
    if any(word in data for word in _WORDS_IN_BYTES):
        return True
    if _has_tool_attribute(data) or _EXEC_IN_BYTES.search(data):
        return True
    if any(name in data for name in _SERVER_NAMES) and _SERVER_MADE_IN_BYTES.search(data):
        return True
    if data.isascii():
        return False
    import unicodedata

    # Python reads identifiers NFKC-normalized: `mcp.ｔｏｏｌ` is `mcp.tool`.
    text = decode(data).text
    if unicodedata.is_normalized("NFKC", text):
        return False
    text = unicodedata.normalize("NFKC", text)
    return (
        any(word in text for word in CANDIDATE_WORDS)
        or _TOOL_IN_TEXT.search(text) is not None
        or _EXEC_IN_TEXT.search(text) is not None
        or _SERVER_MADE_IN_TEXT.search(text) is not None
    )


def _has_tool_attribute(data: bytes) -> bool:
    """`_TOOL_IN_BYTES.search(data)`, answered from the few places that say `tool`."""
    for match in _TOOL_WORD.finditer(data):
        start = match.start()
        if data.endswith(b"async_", 0, start):  # `@app.async_tool` (mcp-agent)
            start -= len(b"async_")
        before = start - 1
        crossed_line = False
        while before >= 0 and data[before] in _BLANKS:
            crossed_line = crossed_line or data[before] in b"\r\n"
            before -= 1
        if before >= 0 and data[before] == _DOT:
            return True
        if crossed_line:
            # A comment may stand between a dot and the name on an earlier line.
            return _TOOL_IN_BYTES.search(data) is not None
    return False
