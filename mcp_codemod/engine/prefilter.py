"""The textual prefilter: whether a file's bytes can hold anything the analysis looks for.

Parsing is what costs; reading and searching bytes costs a hundredth of it (see docs/speed.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcp_codemod.engine.file_io import decode

# A file can register a tool, guard a server, or create one (whose callers pass it on to
# `register_tools(mcp)` functions elsewhere), or run a file of tools in its namespace with an
# imported server (`analysis/scan/exec_files.py`), or make an application object whose framework
# registers tools by itself (`MCPApp`, analysis/link/framework_tools.py), only if it says one of these.
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
_MADE_AFTER = r"[\s\\]*(?:[(\[]|as\b)"
# A name may hold letters that are not ASCII (`ñ.FastMCP`): any such character counts, on the
# bytes (where `\w` is ASCII) as in the text.
_MADE_BEFORE = r"[(,=][\s\\]*(?:(?:\w|[^\x00-\x7f])+[\s\\]*\.[\s\\]*)*"
SERVER_MADE = rf"{_SERVER_CLASS}{_MADE_AFTER}|{_MADE_BEFORE}{_SERVER_CLASS}"
# `exec(compile(...))`, `exec(open(...).read())`, `exec(Path(...).read_text())`: the word `exec(`
# alone would pass every database driver (`cursor.exec(...)`).
EXEC_FILE = r"exec[\s\\]*\([\s\\(]*(?:compile|open|Path|pathlib)\b"
# `.tool` as Python reads an attribute: blanks, line continuations and (inside brackets) comments
# may stand between the dot and the name. The alternatives cannot overlap: no backtracking.
TOOL_ATTRIBUTE = r"\.(?:[\s\\]|#[^\r\n]*[\r\n])*(?:async_)?tool\b"
# A keyword argument `tools=` (`Notes("t", tools=[...])`): tools given to the constructor of a
# class that may be a project subclass of a server class, which the file need not name.
TOOLS_KEYWORD = r"[(,][\s\\]*tools[\s\\]*=(?!=)"

# On the bytes (every source encoding Python accepts is ASCII-compatible), each search costs a
# pass over them, and a pattern that starts with no literal is tried at every byte. So each of the
# rare words that every pattern holds (`tool`, `MCP`, `exec`, `mcp_codemod`) is searched once, and
# the patterns are tried only where it stands.
# The candidate words that say `tool`, with the offset of `tool` in each.
_TOOL_WORDS = tuple(
    (word.encode(), word.index("tool")) for word in CANDIDATE_WORDS if "tool" in word
)
_OTHER_WORDS = tuple(word.encode() for word in CANDIDATE_WORDS if "tool" not in word)
_TOOL_IN_BYTES = re.compile(f"{TOOL_ATTRIBUTE}|{TOOLS_KEYWORD}".encode())
# Every server class says `MCP` (`str.index` fails at import otherwise). A pattern finds `MCP`
# faster than `bytes.find`, which is the faster for `tool` and `exec` (bench/HISTORY.md).
_MCP = re.compile(rb"MCP")
_SERVER_NAMES = tuple((name.encode(), name.index("MCP")) for name in SERVER_CLASSES)
_MADE_AFTER_IN_BYTES = re.compile(_MADE_AFTER.encode())
_EXEC_IN_BYTES = re.compile(EXEC_FILE.encode())
_BLANKS = frozenset(b" \t\n\r\f\v\\")  # `[\s\\]` on bytes
_WORD = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")  # `\w`
_NAME = _WORD | frozenset(range(0x80, 0x100))  # `(?:\w|[^\x00-\x7f])`
_OPENERS = frozenset(b"(,=")  # before a server made from a (dotted) name
_ARGUMENT_OPENERS = frozenset(b"(,")  # before a keyword argument
_DOT = ord(".")

_TOOL_IN_TEXT = re.compile(f"{TOOL_ATTRIBUTE}|{TOOLS_KEYWORD}")
_EXEC_IN_TEXT = re.compile(EXEC_FILE)
_SERVER_MADE_IN_TEXT = re.compile(SERVER_MADE)


def is_candidate(data: bytes) -> bool:
    """Whether a file's bytes can hold a registration, a guard or a server. Raises SourceError
    for bytes that are not ASCII and cannot be decoded."""
    if any(word in data for word in _OTHER_WORDS):
        return True
    if _says_tool(data) or _makes_server(data):
        return True
    if any(_EXEC_IN_BYTES.match(data, at) for at in _places(data, b"exec")):
        return True
    if data.isascii():
        return False
    import unicodedata

    # Python reads identifiers NFKC-normalized: `mcp.ｔｏｏｌ` is `mcp.tool`. Normalization never
    # reaches across a line end (a test looks at every character) and leaves ASCII as it is, so
    # only the lines that are not ASCII are normalized: a third of the time of the whole text. A
    # pattern is tried only on a text that says its word.
    text = decode(data).text
    if unicodedata.is_normalized("NFKC", text):
        return False
    text = "\n".join(
        line if line.isascii() else unicodedata.normalize("NFKC", line) for line in text.split("\n")
    )
    return (
        any(word in text for word in CANDIDATE_WORDS)
        or ("tool" in text and _TOOL_IN_TEXT.search(text) is not None)
        or ("exec" in text and _EXEC_IN_TEXT.search(text) is not None)
        or (
            any(name in text for name in SERVER_CLASSES)
            and _SERVER_MADE_IN_TEXT.search(text) is not None
        )
    )


def _says_tool(data: bytes) -> bool:
    """Whether `data` holds a candidate word that says `tool`, or `_TOOL_IN_BYTES` matches: read
    from each `tool`, the attribute backwards."""
    for start in _places(data, b"tool"):
        end = start + len(b"tool")
        if any(start >= at and data.startswith(word, start - at) for word, at in _TOOL_WORDS):
            return True
        if end < len(data) and data[end] in _WORD:  # `tools`: not the attribute
            if data.startswith(b"s", end) and _is_tools_keyword(data, start, end + 1):
                return True
            continue
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
            # A comment may stand between a dot and the name on an earlier line: the pattern
            # answers for the attribute and a later `tools=`, what is left are the words.
            return _TOOL_IN_BYTES.search(data) is not None or any(
                word in data for word, _ in _TOOL_WORDS
            )
    return False


def _is_tools_keyword(data: bytes, start: int, end: int) -> bool:
    """Whether the `tools` at `start:end` is a keyword argument (`TOOLS_KEYWORD`)."""
    if start > 0 and data[start - 1] in _NAME:  # `my_tools=`
        return False
    before = start - 1
    while before >= 0 and data[before] in _BLANKS:
        before -= 1
    if before < 0 or data[before] not in _ARGUMENT_OPENERS:
        return False
    after = end
    while after < len(data) and data[after] in _BLANKS:
        after += 1
    return data.startswith(b"=", after) and not data.startswith(b"==", after)


def _makes_server(data: bytes) -> bool:
    """Whether `SERVER_MADE` matches in `data`, tried only where a server class is named."""
    for match in _MCP.finditer(data):
        for name, at in _SERVER_NAMES:
            start = match.start() - at
            end = start + len(name)
            if (
                start >= 0
                and data.startswith(name, start)
                and (end == len(data) or data[end] not in _WORD)  # `\b`
                and (_MADE_AFTER_IN_BYTES.match(data, end) or _made_before(data, start))
            ):
                return True
    return False


def _made_before(data: bytes, start: int) -> bool:
    """Whether `_MADE_BEFORE` matches some bytes that end at `start`. Its parts are disjoint sets
    of bytes, so read backwards it has one way to go: blanks, then `(`, `,`, `=` (a match) or a
    dot, then blanks, a name, and again."""
    before = start - 1
    while True:
        while before >= 0 and data[before] in _BLANKS:
            before -= 1
        if before < 0 or data[before] != _DOT:
            return before >= 0 and data[before] in _OPENERS
        before -= 1
        while before >= 0 and data[before] in _BLANKS:
            before -= 1
        if before < 0 or data[before] not in _NAME:
            return False
        while before >= 0 and data[before] in _NAME:
            before -= 1


def _places(data: bytes, word: bytes) -> Iterator[int]:
    """Where `word` (which cannot overlap itself) starts in `data`: `bytes.find` searches faster
    than a pattern."""
    at = data.find(word)
    while at >= 0:
        yield at
        at = data.find(word, at + len(word))
