"""The prefilter (engine/prefilter.py): whether a file's bytes can hold a registration, a
guard or a server. It loses nothing a full parse finds, and answers what its words and patterns
define, also where NFKC normalization changes the text.
"""

from __future__ import annotations

import random
import re
import sys
import unicodedata
from pathlib import Path

import pytest
from conftest import FIXTURES, candidate_by_definition

from mcp_codemod.engine import prefilter
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.prefilter import is_candidate

from .check_runs import ALL, files_of, same


def test_prefilter_loses_nothing_on_the_fixtures():
    files = files_of(FIXTURES)
    same(check_files(files, ALL), check_files(files, ALL, prefilter=False))


def test_prefilter_loses_nothing_on_odd_spellings(tricky: Path):
    files = files_of(tricky)
    with_prefilter = check_files(files, ALL)
    same(with_prefilter, check_files(files, ALL, prefilter=False))
    assert {(Path(f.path).name, f.parameter) for f in with_prefilter.findings} == {
        ("spaced.py", "query"),
        ("commented.py", "query"),
        ("continued.py", "query"),
        ("fullwidth.py", "query"),
        ("impl.py", "query"),
    }


def test_candidates_by_their_bytes():
    assert is_candidate(b"app.tool()")
    assert is_candidate(b"app.\n  # why\n  tool")
    assert is_candidate("mcp.ｔｏｏｌ()".encode())
    # Each word and pattern in its normalized form, on a line of its own among ASCII ones.
    assert is_candidate("import os\nfrom ｍｃｐ_ｃｏｄｅｍｏｄ import guard\n".encode())
    assert is_candidate("import os\nmcp = ＦａｓｔＭＣＰ('x')\n".encode())
    assert is_candidate("import os\nｅｘｅｃ(open(path).read())\n".encode())
    assert is_candidate("# ünïcode\nx.add_tool(f)".encode())
    assert not is_candidate(b"toolbox = tools.tooling()")
    # Tools given to a constructor (of a project subclass of a server class, perhaps).
    assert is_candidate(b'mcp = Notes("t", tools=[Tool.from_function(search)])')
    assert is_candidate(b"Notes(\n    tools = TOOLS)")
    assert is_candidate("# ünïcode\nNotes('t', tools=TOOLS)".encode())
    assert not is_candidate(b"tools = [search]\nif tools == []: pass\nf(my_tools=1)")
    # After a `tool` alone on a line (read backwards for a dot), a later `tools=` still counts.
    assert is_candidate(b"names = (\n    tool\n)\nListToolsResult(tools=page)\n")
    assert not is_candidate("# ünïcode\nmcp.tools".encode())
    assert is_candidate(b'exec(compile(code, GENERATED, "exec"))')
    assert is_candidate(b"exec (\n    open(path).read())")
    assert is_candidate(b"exec(Path(here, 'tools.py').read_text())")
    assert is_candidate(b'exec((Path(__file__).parent / "tools.py").read_text())')
    assert not is_candidate(b"session.exec(select(User))")
    # Once a file is normalized, the patterns read it as Python does: `ñ` is a name, so this
    # makes a server. No character here normalizes to an ASCII one (the decomposed `é` composes):
    # that alone does not tell that normalizing finds nothing.
    assert is_candidate("# e\u0301\nserver = make(ñ.FastMCP)".encode())
    # A name that is not ASCII is a name on the bytes too, in a file already normalized.
    assert is_candidate("server = make(ñ.FastMCP)".encode())


@pytest.mark.parametrize(
    ("source", "candidate"),
    [
        (b'mcp = FastMCP("x")', True),
        (b"app = server.MCPServer(\n    'x')", True),
        (b"class Server(FastMCP[State]): ...", True),
        (b"class Server(\n    Base,\n    FastMCP,\n): ...", True),
        (b"from mcp.server.fastmcp import FastMCP as App", True),
        (b"App = fastmcp.FastMCP", True),
        (b"server = make(mcp.server.fastmcp.FastMCP)", True),
        (b'app = MCPApp(name="agent")', True),
        (b"def run(app: MCPApp) -> None: ...", False),
        # Only annotations and the imports they need: no server can be made here.
        (b"from mcp.server.fastmcp import FastMCP\n\ndef run(server: FastMCP) -> None: ...", False),
        (b"def make() -> FastMCP: ...\nservers: list[MCPServer] = []", False),
        (b"server: Optional[FastMCP] = None", False),
    ],
)
def test_a_server_class_counts_where_a_server_can_be_made(source: bytes, candidate: bool):
    assert is_candidate(source) is candidate


@pytest.mark.parametrize(
    "source",
    [
        b"app.tool",
        b"app . tool()",
        b"app.\\\n    tool()",
        b"(app.\r\n  tool)",
        b"(app.  # a comment\n    # another\n  tool)",
        b"(app  # not the dot\n  tool)",
        b"tool()",
        b"x = 1\ntool = app.tools",
        b"toolbox.tool_kit",
        b"  tool",
        b"\ntool",
        b"app.tools + tool",
        b"@app.async_tool",
        b"app.\n  async_tool",
        b"async_tool()",
        b"app.xasync_tool",
        b"(app  # no dot\n  tool, add_tool)",
    ],
)
def test_the_tool_attribute_found_from_the_word_is_what_the_pattern_finds(source: bytes):
    words = [word.encode() for word in prefilter.CANDIDATE_WORDS if "tool" in word]
    expected = any(word in source for word in words) or re.search(
        prefilter.TOOL_ATTRIBUTE.encode(), source
    )
    assert prefilter._says_tool(source) == bool(expected)


# Pieces of sources where the prefilter's shortcuts could go wrong: the words and their parts,
# what may stand between a name and a dot or a bracket, and characters that NFKC changes (`ｔ`,
# `…`, `\xa0`, a decomposed `é`) or that only a Unicode pattern reads as blank or name (`\x85`,
# `ñ`).
PIECES = (
    "tool", "tools", "async_", "add_", "_manager", ".", " ", "\n", "\r", "\\", "#", "# c\n", "(",
    ")", ",", "=", "[", "as", "x", "_", "FastMCP", "MCPServer", "MCPApp", "MCP", "Fast", "Server",
    "App", "exec", "compile", "open", "Path", "mcp_codemod", "ｔｏｏｌ", "ＭＣＰ", "ｅｘｅｃ", "é",
    "e\u0301", "ñ", "\u2028", "\xa0", "…", "\x85",
)  # fmt: skip


def _sources(count: int, seed: int) -> list[bytes]:
    pick = random.Random(seed)
    return ["".join(pick.choices(PIECES, k=pick.randint(1, 12))).encode() for _ in range(count)]


def test_the_prefilter_answers_what_its_patterns_define():
    for source in _sources(5000, seed=16):
        assert is_candidate(source) == candidate_by_definition(source), source


def test_normalization_never_reaches_across_a_line_end_nor_changes_ascii():
    # What lets the prefilter normalize only the lines that are not ASCII, each alone: `\n` is
    # a starter (reordering never moves a character across it) that no character decomposes into
    # or composes with, and ASCII characters are starters that decompose into nothing else and
    # compose with no other ASCII character.
    ascii_text = "".join(map(chr, range(128)))
    assert unicodedata.normalize("NFKD", ascii_text) == ascii_text
    assert not any(map(unicodedata.combining, ascii_text))
    for code in range(sys.maxunicode + 1):
        decomposition = unicodedata.decomposition(chr(code)).split()
        assert "000A" not in decomposition, hex(code)
        if len(decomposition) == 2 and not decomposition[0].startswith("<"):  # a pair composes
            assert any(int(part, 16) >= 128 for part in decomposition), hex(code)
    assert unicodedata.normalize("NFKC", "ｍｃｐ.\nｔｏｏｌ") == "mcp.\ntool"


def test_the_server_made_from_each_name_is_what_the_pattern_finds():
    for source in _sources(5000, seed=17):
        source = source.decode().encode("ascii", "ignore")
        expected = bool(re.search(prefilter.SERVER_MADE.encode(), source))
        assert prefilter._makes_server(source) == expected, source
