"""The linker's memos and shortcuts answer what the plain computation answers, also when what
they depend on changed between two questions."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.analysis.link import tool_parameters
from mcp_codemod.analysis.link.names import ProjectNames
from mcp_codemod.analysis.shapes import KNOWN_NAMES, shape_of
from mcp_codemod.analysis.type_exprs import TConst, TName, TSubscript, TUnion, type_names
from mcp_codemod.engine import caller_texts
from mcp_codemod.engine import file_facts as module_facts
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import DiscoveryScope, discover
from mcp_codemod.engine.file_facts import FileFacts
from mcp_codemod.engine.file_io import SourceError, decode
from mcp_codemod.engine.module_paths import find_module, project_root
from mcp_codemod.engine.project import Project
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.rules import select_rules


@pytest.fixture
def linked_tree(tmp_path: Path) -> Path:
    """Files and directories, some of them symbolic links, some links to links."""
    real = tmp_path / "real"
    (real / "pkg").mkdir(parents=True)
    (real / "pkg" / "mod.py").write_text("")
    (real / "other.py").write_text("")
    (tmp_path / "linked_dir").symlink_to(real)
    (real / "pkg" / "alias.py").symlink_to(real / "other.py")
    (real / "pkg" / "alias_of_alias.py").symlink_to(real / "pkg" / "alias.py")
    return tmp_path


LINKED_PATHS = [
    "real/pkg/mod.py",
    "real/pkg/alias.py",
    "real/pkg/alias_of_alias.py",
    "linked_dir/pkg/mod.py",
    "linked_dir/pkg/alias.py",
    "linked_dir/pkg/missing.py",
    "linked_dir/pkg",
    "linked_dir/pkg/..",
    ".",
    "..",
    "real",
    "nowhere/pkg/mod.py",
]


@pytest.mark.parametrize("relative", LINKED_PATHS)
def test_a_real_path_is_the_systems(linked_tree: Path, relative: str, monkeypatch):
    monkeypatch.chdir(linked_tree)
    sources = FileFacts(None)
    for path in (Path(relative), linked_tree / relative):
        # Twice: the second answer comes from the memo of its directory.
        for _ in range(2):
            assert sources.real_path(str(path)) == os.path.realpath(path)
            assert sources.resolve(path) == path.resolve()


def test_the_real_paths_of_many_files_are_the_systems(linked_tree: Path, monkeypatch):
    # Which files are links comes from one listing per directory here.
    monkeypatch.chdir(linked_tree)
    paths = [*LINKED_PATHS, *(str(linked_tree / relative) for relative in LINKED_PATHS)]
    assert FileFacts(None).real_paths(paths) == [os.path.realpath(path) for path in paths]


@pytest.mark.parametrize("given", [".", "linked_dir", "real", "{root}", "{root}/linked_dir"])
def test_the_real_paths_discovery_finds_are_the_systems(linked_tree: Path, given: str, monkeypatch):
    # The walk knows each directory's real path and which entries are links.
    monkeypatch.chdir(linked_tree)
    (linked_tree / "real" / "pkg" / "dangling.py").symlink_to(linked_tree / "nowhere.py")
    real_paths: dict[str, str] = {}
    files = discover([Path(given.format(root=linked_tree))], (), False, real_paths=real_paths)
    found = {str(path) for path in files}
    assert files and set(real_paths) <= found | set(map(os.path.realpath, found))
    assert all(not os.path.islink(path) for path in real_paths)
    paths = [*found, *real_paths, *LINKED_PATHS]
    known = FileFacts(None, real_paths=real_paths)
    assert known.real_paths(paths) == [os.path.realpath(path) for path in paths]
    for path in map(Path, paths):
        assert known.resolve(path) == path.resolve()


def test_the_files_of_a_project_walked_for_its_callers_are_their_real_paths(linked_tree: Path):
    # The walk of a project the run did not walk tells which files are links: the others are
    # their own real paths, without a question to the system each.
    (linked_tree / "real" / "pkg" / "dangling.py").symlink_to(linked_tree / "nowhere.py")
    root = (linked_tree / "real").resolve()
    sources = FileFacts(None)
    asked: list[str] = []
    real_path = sources.real_path

    def counted(path: str) -> str:
        asked.append(path)
        return real_path(path)

    sources.real_path = counted  # type: ignore[method-assign]
    project = Project(sources, [], DiscoveryScope())
    found = discover([root], DEFAULT_EXCLUDE, True)
    assert project.files_of(root) == [os.path.realpath(path) for path in found]
    assert len(found) == 4  # the dangling link is no file
    # Only the links are resolved one by one.
    assert sorted(map(os.path.basename, asked)) == sorted(
        path.name for path in found if path.is_symlink()
    )


def _project(files: list[Path], walked: Path) -> Project:
    project = Project(FileFacts(None), files, DiscoveryScope((walked.resolve(),)))
    project.add_roots(files)
    return project


def test_a_projects_root_is_the_closest_marked_directory(tmp_path: Path):
    deep = tmp_path / "app" / "src" / "pkg" / "sub"
    deep.mkdir(parents=True)
    (tmp_path / "app" / "pyproject.toml").write_text("")
    (tmp_path / "app" / "src" / "pkg" / "__init__.py").write_text("")
    unmarked = tmp_path / "loose" / "pkg"
    unmarked.mkdir(parents=True)
    (unmarked / "__init__.py").write_text("")
    files = [deep / "a.py", tmp_path / "app" / "b.py", unmarked / "c.py", tmp_path / "d.py"]
    for file in files:
        file.write_text("")
    project = _project(files, tmp_path)
    # Asked deepest first, so that the later answers come from the memo of the directories
    # above; and once more, each from its own directory's memo.
    for _ in range(2):
        for file in files:
            resolved = file.resolve()
            assert project.project_roots.of(resolved) == project_root(resolved)


def _find_module_by_paths(name: str, roots: list[Path]) -> Path | None:
    """`find_module` as pathlib spells it: the reference for the one joined as text."""
    relative = Path(*name.split("."))
    for root in roots:
        for candidate in (root / relative.with_suffix(".py"), root / relative / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def test_a_module_is_found_where_pathlib_finds_it(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for relative in ("one/a/b.py", "one/a/__init__.py", "two/a/b/__init__.py", "two/c.py"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("")
    (tmp_path / "two" / "d.py").mkdir()  # a directory with a module's name is no module
    for roots in ([Path("one"), Path("two")], [tmp_path / "two", tmp_path / "one"], [Path(".")]):
        for name in ("a", "a.b", "c", "d", "missing", "a.missing", "two.c"):
            assert find_module(name, roots) == _find_module_by_paths(name, roots)


def test_an_annotations_names_come_in_the_order_they_are_written():
    # `dict[str, Optional[pkg.A | pkg.B]] | pkg.C`: the batch of modules to parse follows it.
    expr = TUnion(
        (
            TSubscript(
                TName("builtins.dict"),
                (
                    TName("builtins.str"),
                    TSubscript(
                        TName("typing.Optional"),
                        (TUnion((TName("pkg.a.A"), TName("pkg.b.B"))),),
                    ),
                ),
            ),
            TConst(None),
            TName("pkg.c.C"),
        )
    )
    assert type_names(expr) == [
        "builtins.dict",
        "builtins.str",
        "typing.Optional",
        "pkg.a.A",
        "pkg.b.B",
        "pkg.c.C",
    ]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


_SERVER = (
    "from mcp.server.fastmcp import FastMCP\n"
    "from pkg.types import Text\n"
    "mcp = FastMCP('s')\n\n"
    "@mcp.tool()\n"
    "def first(query: Text) -> str: ...\n\n"
    "@mcp.tool()\n"
    "def second(query: Text) -> str: ...\n"
)


class _Forgetful(dict):
    """A memo that keeps nothing: every question is answered afresh."""

    def __setitem__(self, key, value) -> None:
        pass


def test_an_annotation_is_shaped_once_per_module_and_as_its_module_sees_it(
    tmp_path: Path, monkeypatch
):
    # The same annotation, `pkg.types.Text`, names a different alias in each project.
    _write(tmp_path / "loose", {"server.py": _SERVER, "pkg/types.py": "Text = str | None\n"})
    _write(tmp_path / "exact", {"server.py": _SERVER, "pkg/types.py": "Text = str\n"})
    for project in ("loose", "exact"):
        (tmp_path / project / "pkg" / "__init__.py").write_text("")
    files = discover([tmp_path], DEFAULT_EXCLUDE, respect_gitignore=True)
    rules = select_rules(["ALL"], [])
    shaped: list[object] = []
    counted = tool_parameters.shape_of

    def counting(annotation, *args):
        shaped.append(annotation)
        return counted(annotation, *args)

    # A spy: no public result says how often a shape was computed.
    monkeypatch.setattr(tool_parameters, "shape_of", counting)
    memoized = check_files(files, rules, jobs=1)
    assert len(shaped) == 2  # once per module, not once per tool
    flagged = {(Path(f.path).parent.name, f.tool) for f in memoized.findings}
    assert flagged == {("loose", "first"), ("loose", "second")}

    original_init = tool_parameters.ToolParameters.__init__

    def forgetful_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.shaped = _Forgetful()

    # The memo, made to forget: the plain computation to compare with has no switch.
    monkeypatch.setattr(tool_parameters.ToolParameters, "__init__", forgetful_init)
    fresh = check_files(files, rules, jobs=1)
    assert len(shaped) == 2 + 4
    assert fresh.findings == memoized.findings
    assert fresh.unchecked == memoized.unchecked


def test_the_names_the_type_model_knows_are_never_asked_about():
    # `parse_types_ahead` skips them: `shape_of` answers for each by itself, as a name or as
    # the base of a subscript.
    def asked(name: str) -> None:
        raise AssertionError(name)

    for name in sorted(KNOWN_NAMES):
        answered = 0
        for annotation in (TName(name), TSubscript(TName(name), (TName("builtins.int"),))):
            try:
                shape_of(annotation, asked, asked, None, asked)
                answered += 1
            except AssertionError:
                pass
        assert answered, name


def test_a_word_is_found_where_the_pattern_finds_it():
    # Words and texts of letters (ASCII and not), digits, `_` and other characters, overlapping
    # occurrences and words that are not identifiers included.
    rng = random.Random(16)
    alphabet = "ab_é1.-\n ٣"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        word = "".join(rng.choice(alphabet) for _ in range(rng.randrange(4)))
        expected = re.search(rf"\b{re.escape(word)}\b", text) is not None
        assert caller_texts._has_word(text, word) is expected, (text, word)


def test_the_loaded_modules_and_their_calls_follow_every_module_loaded(tmp_path: Path):
    _write(
        tmp_path,
        {
            "server.py": "from helpers import register\nmcp = object()\nregister(mcp)\n",
            "helpers.py": "from tools import add\ndef register(server):\n    add(server)\n",
            "tools.py": "def add(server): ...\n",
        },
    )
    files = [tmp_path / "server.py"]
    project = _project(files, tmp_path)
    sources = project.sources
    server = sources.facts(files[0])
    assert server is not None
    project.add(files[0], server)
    names = ProjectNames(project)

    def fresh() -> tuple[ModuleFacts, ...]:
        return tuple(facts for facts in project.by_path.values() if facts is not None)

    def called(name: str) -> set[str]:
        return {caller.module for caller, _ in names.calls_by_name.get(name, ())}

    first = project.loaded()
    assert first == fresh() and project.loaded() is first
    names.index_calls(first)
    names.index_calls(project.loaded())  # the same tuple: nothing to index
    assert called("register") == {"server"} and called("add") == set()
    helpers = project.load("helpers", server)  # loaded since: a new tuple holds it
    assert helpers is not None and project.loaded() == fresh() == (server, helpers)
    names.index_calls(project.loaded())
    assert called("add") == {"helpers"}
    project.parse_together([(tmp_path / "tools.py").resolve()])
    assert project.loaded() == fresh() and len(fresh()) == 3


def test_a_module_parsed_ahead_is_loaded_when_asked_for_and_parsed_once(
    tmp_path: Path, monkeypatch
):
    _write(
        tmp_path,
        {
            "server.py": "from tools import add\nfrom notes import note\nfrom more import shout\n",
            "tools.py": "def add(server): ...\n",
            "notes.py": "def note(text): ...\n",
            "more.py": "from tools import add\n\ndef shout(words): ...\nadd(1)\n",
        },
    )
    files = [tmp_path / name for name in ("server.py", "tools.py", "notes.py", "more.py")]
    project = _project(files, tmp_path)
    server = project.sources.facts(files[0])
    assert server is not None
    project.add(files[0], server)
    parsed: list[str] = []
    scan = module_facts.scan_source

    def counted(task):
        parsed.append(Path(task.display).name)
        return scan(task)

    # A spy: no public result says which modules a run parsed.
    monkeypatch.setattr(module_facts, "scan_source", counted)
    # Without workers the batch is parsed here, when the first of its modules is asked for.
    project.parse_ahead(
        [("tools", server), ("notes", server), ("more", server), ("absent", server)]
    )
    assert project.loaded() == (server,) and not parsed, "loaded before it was asked for"
    tools = project.load("tools", server)
    assert tools is not None and project.loaded() == (server, tools)
    assert sorted(parsed) == ["more.py", "notes.py", "tools.py"]
    project.parse_ahead([("tools", server), ("notes", server)])  # nothing new to parse
    # A caller search loads what was parsed ahead as it loads what it parses.
    assert [facts.module for facts in project.load_callers("add", tools)] == ["more"]
    assert project.load("notes", server) is not None
    assert [facts.module for facts in project.loaded()] == ["server", "tools", "more", "notes"]
    assert sorted(parsed) == ["more.py", "notes.py", "tools.py"] and not project.parsed_ahead


def test_the_files_that_mention_a_name_are_those_whose_text_has_the_word(tmp_path: Path):
    texts = {
        "caller.py": "from tools import register\nregister(mcp)\n",
        "longer.py": "register_all(mcp)\n",
        "comment.py": "# register\n",
        "latin.py": "# -*- coding: latin-1 -*-\nregistré = 1\n".encode("latin-1"),
        "undecodable.py": b"register = '\xff'\n",
        "empty.py": "",
    }
    for name, text in texts.items():
        data = text if isinstance(text, bytes) else text.encode()
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / name) for name in texts] + [str(tmp_path / "missing.py")]

    def reference(name: str) -> list[str]:
        found = []
        for path in paths:
            try:
                text = decode(Path(path).read_bytes()).text
            except (OSError, SourceError):
                continue
            if re.search(rf"\b{re.escape(name)}\b", text):
                found.append(path)
        return found

    sources = FileFacts(None)
    # Each name in turn: what earlier names read, decoded or found unreadable is kept.
    for name in ("register_all", "register", "registré", "mcp", "register", "absent"):
        assert sources.callers.mentioning(paths, name) == reference(name), name
