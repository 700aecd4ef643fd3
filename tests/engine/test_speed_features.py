"""The prefilter, the cache and the process pool make `check` fast; none of them may change what
it finds."""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import random
import re
import subprocess
import sys
import unicodedata
import weakref
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, candidate_by_definition, modules_added_by

import mcp_codemod
from mcp_codemod import api
from mcp_codemod.cli import main
from mcp_codemod.engine import checker, parallel, prefilter
from mcp_codemod.engine import facts_cache as cache_module
from mcp_codemod.engine import file_facts as module_facts
from mcp_codemod.engine import project as project_modules
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover
from mcp_codemod.engine.prefilter import is_candidate
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.rules import select_rules

ALL = select_rules(["ALL"], [])


def files_of(*paths: Path) -> list[Path]:
    return discover(list(paths), DEFAULT_EXCLUDE, respect_gitignore=True)


def package_of(directory: Path, modules: dict[str, str]) -> Path:
    """A package of these modules (name → text) at `directory`."""
    directory.mkdir()
    (directory / "__init__.py").write_text("")
    for name, text in modules.items():
        (directory / name).write_text(text)
    return directory


def same(first: checker.CheckResult, second: checker.CheckResult) -> None:
    assert first.findings == second.findings
    assert [f.fix for f in first.findings] == [f.fix for f in second.findings]
    assert first.errors == second.errors
    assert first.unchecked == second.unchecked
    assert first.tools == second.tools


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The modules parsed in this process (jobs=1 keeps every parse here)."""
    seen: list[str] = []
    scan = module_facts.scan_source

    def counting(task):
        seen.append(task.display)
        return scan(task)

    monkeypatch.setattr(module_facts, "scan_source", counting)
    return seen


# ---- prefilter -----------------------------------------------------------------------------

TRICKY = {
    "server.py": "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n",
    # Python allows blanks, continuations and comments between the dot and the attribute; these
    # modules name nothing else the prefilter looks for.
    "spaced.py": (
        "from server import mcp\n@mcp. tool()\ndef spaced(query: str | None = None) -> str: ...\n"
    ),
    "commented.py": (
        "from server import mcp\n"
        "@(mcp  # the server\n"
        "    .  # its method\n"
        "    tool)()\n"
        "def commented(query: str | None = None) -> str: ...\n"
    ),
    "continued.py": (
        "from server import mcp\n"
        "def continued(query: str | None = None) -> str: ...\n"
        "mcp.\\\n"
        "tool()(continued)\n"
    ),
    # Identifiers are NFKC-normalized: this is `mcp.tool`.
    "fullwidth.py": (
        "from server import mcp\n@mcp.ｔｏｏｌ()\ndef wide(query: str | None = None) -> str: ...\n"
    ),
    # The tool function lives in a module that names nothing the prefilter looks for.
    "impl.py": "def search(query: str | None = None) -> str: ...\n",
    "register.py": "from server import mcp\nfrom impl import search\nmcp.add_tool(search)\n",
}


@pytest.fixture
def tricky(tmp_path: Path) -> Path:
    for name, text in TRICKY.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


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


# ---- cache ---------------------------------------------------------------------------------


def test_a_second_run_parses_nothing(fixtures_copy: Path, tmp_path: Path, parses):
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    assert parses
    parses.clear()
    second = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    assert parses == []
    same(first, second)


def test_an_unchanged_stamp_is_not_even_read(
    fixtures_copy: Path, tmp_path: Path, monkeypatch, parses
):
    # Files written a moment ago are hashed again until their timestamps are old enough.
    monkeypatch.setattr(cache_module, "RACY_NS", 0)
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    read: list[Path] = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self) or read_bytes(self))
    same(first, check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache"))
    assert [path for path in read if fixtures_copy in path.parents] == []


def pre_parsed(result: checker.CheckResult) -> list:
    return [finding for finding in result.findings if finding.code == "MCP001"]


def test_a_changed_file_is_parsed_again(fixtures_copy: Path, tmp_path: Path, parses):
    files = files_of(fixtures_copy)
    before = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    server = fixtures_copy / "mcp2_server.py"
    server.write_text(server.read_text().replace("str | None", "str"), encoding="utf-8")
    parses.clear()
    after = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    assert parses == [module_facts.display_path(server)]
    assert after == check_files(files, ALL)
    # `pattern: str = None` is no longer pre-parsed (MCP103 reports its default instead).
    assert len(pre_parsed(after)) < len(pre_parsed(before))


def test_another_version_does_not_trust_the_cache(
    fixtures_copy: Path, tmp_path: Path, monkeypatch, parses
):
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    count = len(parses)
    monkeypatch.setattr(mcp_codemod, "__version__", "999.0")
    parses.clear()
    same(first, check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache"))
    assert len(parses) == count


def test_other_analysis_code_does_not_trust_the_cache(
    fixtures_copy: Path, tmp_path: Path, monkeypatch
):
    """Facts are pickled dataclasses: code whose classes have other fields would read an old
    pickle's missing field as its default."""
    check_files(files_of(fixtures_copy), ALL, jobs=1, cache_dir=tmp_path / "cache")
    assert cache_module.FactsCache(tmp_path / "cache").entries
    monkeypatch.setattr(cache_module, "_analysis_fingerprint", lambda: "other analysis code")
    assert cache_module.FactsCache(tmp_path / "cache").entries == {}


def test_the_cache_key_hashes_the_module_of_every_cached_class():
    hashed = {source.resolve() for source in cache_module.analysis_sources()}
    modules = {module for module, _ in cache_module.FACTS_CLASSES if module != "builtins"}
    assert "mcp_codemod.analysis.facts" in modules
    for module in modules:
        assert Path(importlib.import_module(module).__file__).resolve() in hashed, module


def test_a_moved_working_directory_does_not_reuse_paths(
    fixtures_copy: Path, tmp_path: Path, monkeypatch
):
    files = [path.resolve() for path in files_of(fixtures_copy)]
    monkeypatch.chdir(fixtures_copy)
    check_files(files, ALL, cache_dir=tmp_path / "cache")
    monkeypatch.chdir(fixtures_copy / "notes_app")
    found = check_files(files, ALL, cache_dir=tmp_path / "cache")
    assert found == check_files(files, ALL)
    assert any(f.path.startswith("..") for f in found.findings)


def _cache_file(directory: Path) -> Path:
    [found] = [path for path in directory.rglob("facts-*") if path.is_file()]
    return found


class _Exploit:
    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (Path.touch, (self.target,))


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage", "wrong-shapes", "code"])
def test_a_damaged_cache_is_ignored(fixtures_copy: Path, tmp_path: Path, damage: str):
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, cache_dir=tmp_path / "cache")
    cache_file = _cache_file(tmp_path / "cache")
    data = cache_file.read_bytes()
    key, entries = pickle.loads(data)
    damaged = {
        "empty": b"",
        "truncated": data[: len(data) // 2],
        "garbage": b"not a pickle at all" * 10,
        "wrong-shapes": pickle.dumps((key, dict.fromkeys(entries, ("wrong", "shape")))),
        # A planted cache file must not run code when it is read.
        "code": pickle.dumps((key, _Exploit(tmp_path / "exploited"))),
    }[damage]
    cache_file.write_bytes(damaged)
    same(first, check_files(files, ALL, cache_dir=tmp_path / "cache"))
    assert not (tmp_path / "exploited").exists()


def test_damaged_facts_inside_a_valid_cache_are_parsed_again(
    fixtures_copy: Path, tmp_path: Path, parses
):
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    store = cache_module.FactsCache(tmp_path / "cache")
    for path, raw in store.entries.items():
        if raw[3] is not None and raw[3][3] is not None:
            store.entries[path] = (*raw[:3], (*raw[3][:3], b"\x80\x05garbage", None))
    store.changed = True
    store.save()
    parses.clear()
    same(first, check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache"))
    assert parses


def test_no_cache_writes_nothing(fixtures_copy: Path, monkeypatch):
    monkeypatch.chdir(fixtures_copy)
    before = sorted(fixtures_copy.rglob("*"))
    check_files(files_of(fixtures_copy), ALL)
    assert sorted(fixtures_copy.rglob("*")) == before


def test_the_cache_directory_is_tagged_and_ignored(tmp_path: Path):
    directory = cache_module.default_cache_dir(tmp_path / "pyproject.toml")
    assert directory == tmp_path / ".mcp-codemod-cache"
    check_files(files_of(FIXTURES), ALL, cache_dir=directory)
    assert (directory / ".gitignore").read_text() == "*\n"
    assert (
        (directory / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )


def test_unparsable_candidates_are_cached_too(tmp_path: Path, parses):
    (tmp_path / "broken.py").write_text("mcp.tool(\n", encoding="utf-8")
    files = [tmp_path / "broken.py"]
    first = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    parses.clear()
    assert check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache") == first
    assert parses == []
    assert "cannot parse" in first.errors[0].message


# ---- discovery ----------------------------------------------------------------------------

REGISTRARS = {
    "pyproject.toml": "[project]\nname = 'app'\n",
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n"
        "from tools_a import register_a\n"
        "from tools_b import register_b\n"
        "mcp = FastMCP('s')\n"
        "register_a(mcp)\n"
        "register_b(mcp)\n"
    ),
    "tools_a.py": (
        "def register_a(server):\n"
        "    @server.tool()\n"
        "    def a(query: str | None = None) -> str: ...\n"
    ),
    "tools_b.py": (
        "def register_b(server):\n"
        "    @server.tool()\n"
        "    def b(query: str | None = None) -> str: ...\n"
    ),
    # Mentions a registrar's name without passing it anything: read, parsed, no caller.
    "notes.py": "from tools_a import register_a  # FastMCP\n",
}


@pytest.fixture
def registrars(tmp_path: Path) -> Path:
    for name, text in REGISTRARS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.fixture
def walks(monkeypatch) -> list[list[Path]]:
    """The paths each discovery of the run walked."""
    seen: list[list[Path]] = []

    def counting(paths, *args, **kwargs):
        seen.append(list(paths))
        return discover(paths, *args, **kwargs)

    monkeypatch.setattr(api, "discover", counting)
    monkeypatch.setattr(project_modules, "discover", counting)
    return seen


def _tools(result: checker.CheckResult) -> set[str | None]:
    return {finding.tool for finding in result.findings}


def test_callers_of_every_registrar_come_from_one_walk(registrars: Path, walks):
    given = [registrars / "tools_a.py", registrars / "tools_b.py"]
    result = check_files(given, ALL)
    assert _tools(result) == {"a", "b"}
    assert walks == [[registrars.resolve()]]


def test_a_walked_tree_is_not_walked_again(registrars: Path, walks, monkeypatch):
    monkeypatch.chdir(registrars)
    _settings, result = api.check_paths(["."], api.Options(cache=False, select=["ALL"]))
    assert _tools(result) == {"a", "b"}
    assert walks == [[Path(".")]]
    same(result, check_files(files_of(registrars), ALL))


# ---- the run cache ------------------------------------------------------------------------


@pytest.fixture
def settled(monkeypatch) -> None:
    """Files written a moment ago are not trusted by their stamps; these tests edit files and
    expect the next run to see it all the same."""
    monkeypatch.setattr(cache_module, "RACY_NS", 0)


@pytest.fixture
def answered_by_the_run_cache(monkeypatch):
    """Within this block, a run that reads the facts cache (or parses) fails."""

    @contextlib.contextmanager
    def block():
        def refuse(*_args, **_kwargs):
            raise AssertionError("the run was not answered by the run cache")

        with monkeypatch.context() as patch:
            patch.setattr(checker, "FactsCache", refuse)
            patch.setattr(module_facts, "scan_source", refuse)
            yield

    return block


def _cached_and_fresh(files: list[Path], cache: Path) -> checker.CheckResult:
    cached = check_files(files, ALL, jobs=1, cache_dir=cache)
    same(cached, check_files(files, ALL, jobs=1))
    assert cached.digests == check_files(files, ALL, jobs=1).digests
    return cached


def test_the_run_cache_follows_edits_additions_and_deletions(
    fixtures_copy: Path, tmp_path: Path, settled, answered_by_the_run_cache
):
    cache = tmp_path / "cache"
    first = _cached_and_fresh(files_of(fixtures_copy), cache)
    with answered_by_the_run_cache():
        same(first, check_files(files_of(fixtures_copy), ALL, cache_dir=cache))

    server = fixtures_copy / "mcp2_server.py"
    server.write_text(server.read_text().replace("str | None", "str"), encoding="utf-8")
    edited = _cached_and_fresh(files_of(fixtures_copy), cache)
    assert len(pre_parsed(edited)) < len(pre_parsed(first))

    (fixtures_copy / "added.py").write_text(
        "from mcp.server.fastmcp import FastMCP\n"
        "app = FastMCP('added')\n"
        "@app.tool()\n"
        "def appended(note: str | None = None) -> str: ...\n",
        encoding="utf-8",
    )
    added = _cached_and_fresh(files_of(fixtures_copy), cache)
    assert {f.tool for f in added.findings} - {f.tool for f in edited.findings} == {"appended"}

    server.unlink()
    deleted = _cached_and_fresh(files_of(fixtures_copy), cache)
    assert not any(f.path.endswith("mcp2_server.py") for f in deleted.findings)
    with answered_by_the_run_cache():
        same(deleted, check_files(files_of(fixtures_copy), ALL, cache_dir=cache))


def test_the_run_cache_follows_files_that_were_not_given(
    registrars: Path, tmp_path: Path, settled, answered_by_the_run_cache
):
    """A registrar's result depends on its callers elsewhere in the project, and on modules
    that appear where an import found nothing."""
    cache = tmp_path / "cache"
    given = [registrars / "tools_a.py"]
    assert _tools(_cached_and_fresh(given, cache)) == {"a"}
    with answered_by_the_run_cache():
        assert _tools(check_files(given, ALL, cache_dir=cache)) == {"a"}

    # The caller's server becomes standalone fastmcp, which does not pre-parse: its text union
    # is reported only for digits sent as a number (MCP008), no longer as pre-parsed (MCP001).
    server = registrars / "server.py"
    server.write_text(server.read_text().replace("mcp.server.fastmcp", "fastmcp"), "utf-8")
    after = _cached_and_fresh(given, cache)
    assert {(finding.tool, finding.code) for finding in after.findings} == {("a", "MCP008")}

    # A new caller passes a pre-parsing server.
    (registrars / "second.py").write_text(
        "from mcp.server.fastmcp import FastMCP\n"
        "from tools_a import register_a\n"
        "register_a(FastMCP('second'))\n",
        encoding="utf-8",
    )
    _cached_and_fresh(given, cache)

    # A package now stands where `from tools_a import ...` found a module beside the caller.
    (registrars / "lib").mkdir()
    (registrars / "lib" / "__init__.py").write_text("", encoding="utf-8")
    last = _cached_and_fresh(given, cache)
    with answered_by_the_run_cache():
        same(last, check_files(given, ALL, cache_dir=cache))


def test_the_callers_of_a_registrar_are_looked_for_in_the_files_that_mention_it(
    registrars: Path, tmp_path: Path, settled, monkeypatch
):
    """With a cache, whether a file mentions a registrar's name is kept per file: after an edit
    elsewhere, the search reads none of the files it already knows."""
    cache = tmp_path / "cache"
    given = [registrars / "tools_a.py"]
    check_files(given, ALL, jobs=1, cache_dir=cache)
    tool = registrars / "tools_a.py"
    tool.write_text(tool.read_text().replace("query", "text"), encoding="utf-8")
    read: list[str] = []
    read_bytes = Path.read_bytes

    def reading(self: Path) -> bytes:
        if self.parent == registrars:
            read.append(self.name)
        return read_bytes(self)

    with monkeypatch.context() as patch:
        patch.setattr(Path, "read_bytes", reading)
        result = check_files(given, ALL, jobs=1, cache_dir=cache)
    assert read == ["tools_a.py"]
    assert {(f.tool, f.parameter) for f in result.findings} == {("a", "text")}
    same(result, check_files(given, ALL, jobs=1))


def test_fix_from_a_stored_result_is_the_fix_from_a_fresh_run(
    fixtures_copy: Path, tmp_path: Path, settled, monkeypatch, answered_by_the_run_cache
):
    """`fix` trusts the digests of the result it gets: a stored one holds those of the given
    files, as a fresh one does."""
    monkeypatch.chdir(fixtures_copy)
    cached = api.Options(cache_dir=tmp_path / "cache")
    api.check_paths(["."], cached)
    with answered_by_the_run_cache():
        from_store = api.fix_paths(["."], cached, unsafe_fixes=True)
    fresh = api.fix_paths(["."], api.Options(cache=False), unsafe_fixes=True)
    assert from_store.fixes.files
    assert [(f.path, f.fixed) for f in from_store.fixes.files] == [
        (f.path, f.fixed) for f in fresh.fixes.files
    ]
    assert from_store.fixes.failures == fresh.fixes.failures == ()


@pytest.mark.parametrize("damage", ["garbage", "code"])
def test_a_damaged_run_cache_is_ignored(fixtures_copy: Path, tmp_path: Path, settled, damage: str):
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, cache_dir=tmp_path / "cache")
    [stored] = (tmp_path / "cache").rglob("runs/*")
    stored.write_bytes(
        b"not a pickle" if damage == "garbage" else pickle.dumps(_Exploit(tmp_path / "exploited"))
    )
    same(first, check_files(files, ALL, cache_dir=tmp_path / "cache"))
    assert not (tmp_path / "exploited").exists()


# ---- processes -----------------------------------------------------------------------------


def test_processes_find_what_one_process_finds(fixtures_copy: Path, tricky: Path, monkeypatch):
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)  # a pool even for a few files
    files = files_of(fixtures_copy, tricky)
    serial = check_files(files, ALL, jobs=1)
    pooled = check_files(files, ALL, jobs=2)
    same(serial, pooled)
    same(pooled, check_files(files, ALL, jobs=2))


BATCHED_PROJECT = {
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n"
        "from .notes import add_note\n"
        "from .search import find\n"
        "mcp = FastMCP('batched')\n\n"
        "def register(name, fn):\n"
        "    mcp.tool(name=name)(fn)\n\n"
        "register('note', add_note)\n"
        "register('find', find)\n"
    ),
    "notes.py": (
        "from .text import Text\n"
        "from .limits import Count\n\n"
        "def add_note(text: Text, count: Count) -> str:\n"
        "    return text\n"
    ),
    "search.py": "from .text import Text\n\ndef find(query: Text) -> str:\n    return query\n",
    "text.py": "Text = str | None\n",
    "limits.py": (
        "from typing import Annotated\n"
        "from pydantic import Field\n\n"
        "Count = Annotated[int, Field(strict=True)]\n"
    ),
}


def test_loading_modules_in_batches_finds_what_loading_them_one_by_one_finds(
    tmp_path: Path, monkeypatch
):
    package = package_of(tmp_path / "batched", BATCHED_PROJECT)
    given = files_of(package)  # only server.py is parsed upfront: the others on demand
    batches: list[int] = []
    preload = project_modules.Project.preload

    def counted(self, modules):
        before = len(self.by_path)
        preload(self, modules)
        batches.append(len(self.by_path) - before)

    monkeypatch.setattr(project_modules.Project, "preload", counted)
    batched = check_files(given, ALL, jobs=1)
    assert batches == [2, 2]  # the tools' modules, then their types' modules
    assert {f.code for f in batched.findings} == {"MCP001", "MCP002"}
    monkeypatch.setattr(project_modules.Project, "preload", lambda self, modules: None)
    same(batched, check_files(given, ALL, jobs=1))


PARSED_AHEAD_PROJECT = {
    # The helper's registration comes first: its callers are searched for before the tools'
    # modules are loaded. Had the parse ahead loaded them, the callers in `notes` and `search`
    # would be found among the loaded modules, and the search, which finds `more`'s, skipped.
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n"
        "from .notes import add_note\n"
        "from .search import Finder\n"
        "mcp = FastMCP('ahead')\n"
        "finder = Finder()\n\n"
        "def register(fn, title):\n"
        "    mcp.tool(name=title)(fn)\n\n"
        "mcp.tool()(add_note)\n"
        "mcp.tool()(finder.find)\n"
    ),
    "notes.py": (
        "from .server import register\n\n"
        "def add_note(text: str | None) -> str:\n"
        "    return text\n\n"
        "def tag(label: dict | str) -> str:\n"
        "    return label\n\n"
        "register(tag, 'tag')\n"
    ),
    "search.py": (
        "from .server import register\n\n"
        "class Finder:\n"
        "    def find(self, query: str | None) -> str:\n"
        "        return query\n\n"
        "def count(items: list | str) -> int:\n"
        "    return len(items)\n\n"
        "register(count, 'count')\n"
    ),
    "more.py": (
        "from .server import register\n\n"
        "def shout(words: list | str) -> str:\n"
        "    return str(words)\n\n"
        "register(shout, 'shout')\n"
    ),
}


def test_modules_parsed_ahead_are_loaded_where_they_would_be_without_it(
    tmp_path: Path, monkeypatch
):
    package = package_of(tmp_path / "ahead", PARSED_AHEAD_PROJECT)
    given = files_of(package)  # only server.py is parsed upfront: the others on demand
    parsed_ahead: list[list[str]] = []
    parse_ahead = project_modules.Project.parse_ahead

    def recorded(self, modules):
        before = set(self.parsing_ahead)
        parse_ahead(self, modules)
        parsed_ahead.append(sorted(Path(path).name for path in set(self.parsing_ahead) - before))

    projects: list[project_modules.Project] = []
    made = project_modules.Project.__init__

    def init(self, *arguments, **keywords):
        projects.append(self)
        made(self, *arguments, **keywords)

    monkeypatch.setattr(project_modules.Project, "__init__", init)
    monkeypatch.setattr(project_modules.Project, "parse_ahead", recorded)
    ahead = check_files(given, ALL, jobs=1)
    assert [batch for batch in parsed_ahead if batch] == [["notes.py", "search.py"]]
    assert not projects[0].parsed_ahead and not projects[0].parsing_ahead, "never loaded"
    # Every caller of the helper is found: the search ran before the tools' modules were loaded.
    assert {(Path(f.path).name, f.line) for f in ahead.findings} == {
        ("notes.py", 3),
        ("notes.py", 6),
        ("search.py", 4),
        ("search.py", 7),
        ("more.py", 3),
    }
    monkeypatch.setattr(project_modules.Project, "parse_ahead", lambda self, modules: None)
    one_by_one = check_files(given, ALL, jobs=1)
    same(ahead, one_by_one)
    assert list(projects[0].by_path) == list(projects[1].by_path)


TYPED_PROJECT = {
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n"
        "from .layout import Layout\n"
        "from .notes import Note\n"
        "mcp = FastMCP('typed')\n\n"
        "@mcp.tool()\n"
        "def arrange(layout: Layout, note: Note = None) -> str:\n"
        "    return note or ''\n"
    ),
    # The tool's parameters' types: loaded together, as the tools' annotation modules are.
    "notes.py": "Note = str | None\n",
    "layout.py": (
        "from .base import Model\n"
        "from .filters import Filter\n"
        "from .names import Title\n\n"
        "class Layout(Model):\n"
        "    filter: Filter | None = None\n"
        "    title: Title = 'x'\n"
    ),
    # What describing its type follows: parsed ahead together.
    "base.py": "from pydantic import BaseModel\n\nclass Model(BaseModel):\n    kind: int = 0\n",
    "filters.py": ("from .criteria import Criteria\n\nclass Filter(Model):\n    where: Criteria\n"),
    "names.py": "Title = str | list[str]\n",
    # One step further: loaded when `shape_of` gets there.
    "criteria.py": "Criteria = list[int]\n",
    # Named by no tool's annotation: never parsed.
    "unused.py": "class Unused:\n    x: int\n",
}


def test_the_types_parsed_ahead_are_loaded_where_they_would_be_without_it(
    tmp_path: Path, monkeypatch
):
    package = package_of(tmp_path / "typed", TYPED_PROJECT)
    given = files_of(package)
    parsed_ahead: list[list[str]] = []
    parse_ahead = project_modules.Project.parse_ahead

    def recorded(self, modules):
        before = set(self.parsing_ahead) | set(self.parsed_ahead)
        parse_ahead(self, modules)
        added = set(self.parsing_ahead) | set(self.parsed_ahead)
        parsed_ahead.append(sorted(Path(path).name for path in added - before))

    projects: list[project_modules.Project] = []
    made = project_modules.Project.__init__

    def init(self, *arguments, **keywords):
        projects.append(self)
        made(self, *arguments, **keywords)

    monkeypatch.setattr(project_modules.Project, "__init__", init)
    monkeypatch.setattr(project_modules.Project, "parse_ahead", recorded)
    ahead = check_files(given, ALL, jobs=1)
    assert parsed_ahead[-1] == ["base.py", "filters.py", "names.py"]
    loaded = {Path(path).name for path in projects[0].by_path}
    assert {"criteria.py", "base.py"} <= loaded and "unused.py" not in loaded
    assert not projects[0].parsed_ahead and not projects[0].parsing_ahead, "never loaded"
    assert ahead.findings
    monkeypatch.setattr(project_modules.Project, "parse_ahead", lambda self, modules: None)
    one_by_one = check_files(given, ALL, jobs=1)
    same(ahead, one_by_one)
    assert list(projects[0].by_path) == list(projects[1].by_path)


def test_results_keep_the_input_order(monkeypatch):
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)
    monkeypatch.setattr(parallel, "_CHUNK_BYTES", 3)  # many chunks, finishing in any order
    items = [-item for item in range(40)]
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in items:
            mapped.put(item, 1 + abs(item) % 2)
        assert workers.pool is not None
        assert mapped.results() == [abs(item) for item in items]


def test_what_is_handed_over_whole_goes_to_the_workers_in_shares():
    with parallel.Workers(2) as workers:
        workers.start()
        mapped = parallel.OrderedMap(abs, workers)
        for item in range(-9, 0):
            mapped.put(item, 10)
        mapped.hand_over_all()
        assert len(mapped.chunks) == 2 and not mapped.waiting
        assert mapped.results() == list(range(9, 0, -1))
    with parallel.Workers(1) as workers:  # no workers: they wait for the results
        mapped = parallel.OrderedMap(abs, workers)
        mapped.put(-1, 10)
        mapped.hand_over_all()
        assert not mapped.chunks and mapped.results() == [1]


def test_modules_parsed_ahead_by_the_workers_are_those_parsed_here(fixtures_copy: Path):
    paths = [path.resolve() for path in files_of(fixtures_copy)]
    here = module_facts.FileFacts(None).facts_of(paths)
    with parallel.Workers(2) as workers:
        workers.start()
        ahead = module_facts.FileFacts(None, workers=workers).facts_ahead(paths)
        assert ahead() == here


def test_what_was_given_before_the_workers_start_is_shared_out(monkeypatch):
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 10)
    monkeypatch.setattr(parallel, "_CHUNK_BYTES", 2)
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in range(10):  # the tenth starts the workers
            mapped.put(-item, 1)
        assert len(mapped.chunks) == 5, "all went to one worker"
        assert mapped.results() == list(range(10))


def test_one_job_runs_everything_in_this_process(monkeypatch):
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)
    with parallel.Workers(1) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in range(-10, 0):
            mapped.put(item, 100_000)
        assert mapped.results() == list(range(10, 0, -1))
        assert workers.pool is None


def test_few_items_run_in_this_process():
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        for item in (-1, -2):
            mapped.put(item, 10)
        assert mapped.results() == [1, 2]
        assert workers.pool is None


def test_one_large_item_runs_in_this_process():
    # A worker would only add the round trip of one big module's facts.
    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(abs, workers)
        mapped.put(-3, parallel.POOL_THRESHOLD_BYTES * 10)
        assert mapped.results() == [3]
        assert workers.pool is None


@pytest.mark.parametrize("count", [2, 3, 5, 7, 12])
def test_a_later_batch_is_shared_by_the_running_workers_and_this_process(count, monkeypatch):
    # The workers started by a run's first large batch take a share of every later one, however
    # small: each item exactly once, in order.
    monkeypatch.setattr(parallel, "POOL_THRESHOLD_BYTES", 0)
    with parallel.Workers(2) as workers:
        first = parallel.OrderedMap(abs, workers)
        for item in (-1, -2):
            first.put(item, 1)
        assert first.results() == [1, 2] and workers.pool is not None
        later = parallel.OrderedMap(_pid_of, workers)
        for item in range(count):
            later.put(item, 1)
        results = later.results()
    assert [item for item, _ in results] == list(range(count))
    assert {pid for _, pid in results} - {os.getpid()}, "no worker took a share"
    assert results[-1][1] == os.getpid(), "this process took no share"


def _pid_of(item: int) -> tuple[int, int]:
    return item, os.getpid()


@pytest.mark.parametrize(
    ("sizes", "parts", "runs"),
    [
        # A large module among small ones is a share of its own; by count this process took
        # the large one and two more.
        ([10, 10, 10, 10, 60, 10, 10], 3, [[10, 10, 10, 10], [60], [10, 10]]),
        ([5, 1, 1, 1, 1, 1], 3, [[5], [1, 1], [1, 1, 1]]),
        ([1] * 9, 3, [[1, 1, 1]] * 3),
        ([1, 1], 3, [[1], [1]]),  # never an empty share
        ([1, 1, 100], 3, [[1, 1], [100]]),
        ([7], 3, [[7]]),
    ],
)
def test_a_batch_is_shared_out_by_size(sizes, parts, runs):
    start, shares = 0, []
    for end in [*parallel._cuts(sizes, parts), len(sizes)]:
        shares.append(sizes[start:end])
        start = end
    assert shares == runs


def test_a_run_is_freed_when_it_returns(fixtures_copy: Path, monkeypatch):
    # A library caller, a long-lived process, gets its memory back when the run returns.
    projects = []
    made = project_modules.Project.__init__

    def init(self, *arguments, **keywords):
        projects.append(weakref.ref(self))
        made(self, *arguments, **keywords)

    monkeypatch.setattr(project_modules.Project, "__init__", init)
    files = files_of(fixtures_copy)
    check_files(files, ALL, jobs=1)
    assert projects[0]() is None, "the run's objects outlived it"


def test_check_never_imports_libcst(fixtures_copy: Path):
    script = (
        "import sys\n"
        "from mcp_codemod.cli import main\n"
        "for _ in range(2):\n"
        "    try:\n"
        "        main(['check', '.'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert 'libcst' not in sys.modules, 'libcst was imported'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=fixtures_copy, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "MCP001" in result.stdout


def test_the_version_and_the_help_start_without_the_analysis():
    # Each command imports what it runs: start-up alone loads the command line and its option
    # choices (the output formats, the frameworks' names), nothing the commands do.
    added = modules_added_by(
        "from mcp_codemod.cli import main\n"
        "for arguments in (['--version'], ['--help'], ['check', '--help']):\n"
        "    try:\n"
        "        main(arguments)\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    ours = {name for name in added if name.startswith("mcp_codemod.")}
    what_the_commands_do = {
        name
        for name in ours
        if name.split(".")[1] in {"fix", "probe", "report", "rules", "runtime", "api"}
        or (name.startswith("mcp_codemod.engine.") and name != "mcp_codemod.engine.settings")
        or (name.startswith("mcp_codemod.analysis.") and name != "mcp_codemod.analysis.frameworks")
    }
    assert ours and what_the_commands_do == set()
    assert not added & {"tomllib", "tomli", "libcst"}


# ---- command line --------------------------------------------------------------------------


def test_the_cli_caches_beside_the_configuration(fixtures_copy: Path, monkeypatch):
    (fixtures_copy / "pyproject.toml").write_text("[tool.mcp-codemod]\n", encoding="utf-8")
    monkeypatch.chdir(fixtures_copy / "notes_app")
    first = CliRunner().invoke(main, ["check", "."])
    assert (fixtures_copy / ".mcp-codemod-cache" / ".gitignore").is_file()
    assert CliRunner().invoke(main, ["check", "."]).output == first.output


def test_the_cli_without_cache_writes_nothing(fixtures_copy: Path, monkeypatch):
    monkeypatch.chdir(fixtures_copy)
    before = sorted(fixtures_copy.rglob("*"))
    result = CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "2", "."])
    assert result.exit_code == 1
    assert sorted(fixtures_copy.rglob("*")) == before


def test_a_server_class_tool_method_sends_no_search_for_its_decorations(tmp_path: Path, parses):
    # A framework's own source in the tree: `tool()` returns the decorator that registers. Its
    # decorations `@x.tool()` are registrations where they stand; files that merely say `tool`
    # are not parsed to look for more.
    (tmp_path / "framework.py").write_text(
        "from mcp.server.fastmcp import FastMCP\n\n\n"
        "class Server(FastMCP):\n"
        "    def tool(self, name=None):\n"
        "        def decorator(fn):\n"
        "            self.add_tool(fn)\n"
        "            return fn\n\n"
        "        return decorator\n",
        encoding="utf-8",
    )
    (tmp_path / "notes.py").write_text('"""A tool for notes."""\nTOOL = "tool"\n', encoding="utf-8")
    check_files([tmp_path / "framework.py"], ALL, jobs=1)
    assert [Path(p).name for p in parses] == ["framework.py"]
