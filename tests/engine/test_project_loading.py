"""The project's modules loaded on demand (engine/project.py): the callers of every registrar
from one walk of the project, a walked tree not walked again, modules loaded in batches and
parsed ahead where they would be loaded without it, and no caller search for a server class's
own decorations. Each finds what the plain way finds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codemod import api
from mcp_codemod.engine import project as project_modules
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover

from .check_runs import ALL, files_of, package_of, same, tools_of


@pytest.fixture
def walks(monkeypatch) -> list[list[Path]]:
    """The paths each discovery of the run walked."""
    seen: list[list[Path]] = []

    def counting(paths, *args, **kwargs):
        seen.append(list(paths))
        return discover(paths, *args, **kwargs)

    # A spy: no public result says which trees a run walked.
    monkeypatch.setattr(api, "discover", counting)
    monkeypatch.setattr(project_modules, "discover", counting)
    return seen


def test_callers_of_every_registrar_come_from_one_walk(registrars: Path, walks):
    given = [registrars / "tools_a.py", registrars / "tools_b.py"]
    result = check_files(given, ALL)
    assert tools_of(result) == {"a", "b"}
    assert walks == [[registrars.resolve()]]


def test_a_walked_tree_is_not_walked_again(registrars: Path, walks, monkeypatch):
    monkeypatch.chdir(registrars)
    _settings, result = api.check_paths(["."], api.Options(cache=False, select=["ALL"]))
    assert tools_of(result) == {"a", "b"}
    assert walks == [[Path(".")]]
    same(result, check_files(files_of(registrars), ALL))


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

    # Loading in batches is the project's own step, with no switch: counted, then turned off.
    monkeypatch.setattr(project_modules.Project, "preload", counted)
    batched = check_files(given, ALL, jobs=1)
    assert batches == [2, 2]  # the tools' modules, then their types' modules
    assert {f.code for f in batched.findings} == {"MCP001", "MCP002"}
    monkeypatch.setattr(project_modules.Project, "preload", lambda self, modules: None)
    same(batched, check_files(given, ALL, jobs=1))


def spied_on(monkeypatch) -> tuple[list[list[str]], list[project_modules.Project]]:
    """The batches parsed ahead (their files' names) and the projects made, as a run goes. Parsing
    ahead is the project's own step, with no switch: recorded, then turned off by the test."""
    parsed_ahead: list[list[str]] = []
    projects: list[project_modules.Project] = []
    parse_ahead = project_modules.Project.parse_ahead
    made = project_modules.Project.__init__

    def recorded(self, modules):
        before = set(self.parsing_ahead) | set(self.parsed_ahead)
        parse_ahead(self, modules)
        added = set(self.parsing_ahead) | set(self.parsed_ahead)
        parsed_ahead.append(sorted(Path(path).name for path in added - before))

    def init(self, *arguments, **keywords):
        projects.append(self)
        made(self, *arguments, **keywords)

    monkeypatch.setattr(project_modules.Project, "__init__", init)
    monkeypatch.setattr(project_modules.Project, "parse_ahead", recorded)
    return parsed_ahead, projects


def same_without_parsing_ahead(monkeypatch, given, ahead, projects) -> None:
    """The run again with parsing ahead turned off finds the same, and loads the same modules in
    the same order."""
    monkeypatch.setattr(project_modules.Project, "parse_ahead", lambda self, modules: None)
    one_by_one = check_files(given, ALL, jobs=1)
    same(ahead, one_by_one)
    assert list(projects[0].by_path) == list(projects[1].by_path)


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
    parsed_ahead, projects = spied_on(monkeypatch)
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
    same_without_parsing_ahead(monkeypatch, given, ahead, projects)


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
    parsed_ahead, projects = spied_on(monkeypatch)
    ahead = check_files(given, ALL, jobs=1)
    assert parsed_ahead[-1] == ["base.py", "filters.py", "names.py"]
    loaded = {Path(path).name for path in projects[0].by_path}
    assert {"criteria.py", "base.py"} <= loaded and "unused.py" not in loaded
    assert not projects[0].parsed_ahead and not projects[0].parsing_ahead, "never loaded"
    assert ahead.findings
    same_without_parsing_ahead(monkeypatch, given, ahead, projects)


HANDED_ON_PROJECT = {
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n"
        "from plugins import install\n"
        "from .settings import Settings\n"
        "from .store import cache\n"
        "mcp = FastMCP('handed')\n"
        "install(Settings(), cache, mcp)\n\n"
        "@mcp.tool()\n"
        "def echo(text: str | None) -> str:\n"
        "    return text or ''\n"
    ),
    # What the server hands to a function outside the project besides the server: the search
    # for escaping servers asks what each is, so their modules are parsed ahead.
    "settings.py": "class Settings:\n    level: int = 0\n",
    "store.py": "cache = {}\n",
    # Handed to nothing: never parsed.
    "unused.py": "class Unused:\n    x: int\n",
}


def test_what_is_handed_on_is_parsed_ahead_and_loaded_where_it_would_be_without_it(
    tmp_path: Path, monkeypatch
):
    package = package_of(tmp_path / "handed", HANDED_ON_PROJECT)
    given = [package / "server.py"]
    parsed_ahead, projects = spied_on(monkeypatch)
    ahead = check_files(given, ALL, jobs=1)
    assert ["settings.py", "store.py"] in parsed_ahead
    loaded = {Path(path).name for path in projects[0].by_path}
    assert {"settings.py", "store.py"} <= loaded and "unused.py" not in loaded
    assert not projects[0].parsed_ahead and not projects[0].parsing_ahead, "never loaded"
    # The server is handed to `plugins.install`: what it registers cannot be seen.
    assert [Path(tool.path).name for tool in ahead.unchecked] == ["server.py"]
    same_without_parsing_ahead(monkeypatch, given, ahead, projects)


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
