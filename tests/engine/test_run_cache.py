"""The run cache (engine/run_cache.py): a whole run's result, kept with the stamps of every
path it read or asked about, answers the next run only while none of them changed, and what it
answers is what a fresh run finds (fix from it too).
"""

from __future__ import annotations

import contextlib
import pickle
from pathlib import Path

import pytest

from mcp_codemod import api
from mcp_codemod.engine import checker
from mcp_codemod.engine import facts_cache as cache_module
from mcp_codemod.engine import file_facts as module_facts
from mcp_codemod.engine.checker import check_files

from .check_runs import ALL, Exploit, files_of, pre_parsed, same, tools_of


@pytest.fixture
def settled(monkeypatch) -> None:
    """Files written a moment ago are not trusted by their stamps; these tests edit files and
    expect the next run to see it all the same."""
    # The files were written a moment ago, and a ctime cannot be set back: the window is shut.
    monkeypatch.setattr(cache_module, "RACY_NS", 0)


@pytest.fixture
def answered_by_the_run_cache(monkeypatch):
    """Within this block, a run that reads the facts cache (or parses) fails."""

    @contextlib.contextmanager
    def block():
        def refuse(*_args, **_kwargs):
            raise AssertionError("the run was not answered by the run cache")

        with monkeypatch.context() as patch:
            # Tripwires: no public result says a run was answered from the run cache.
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
    assert tools_of(_cached_and_fresh(given, cache)) == {"a"}
    with answered_by_the_run_cache():
        assert tools_of(check_files(given, ALL, cache_dir=cache)) == {"a"}

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
        # A spy: no public result says which files a run read.
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
        b"not a pickle" if damage == "garbage" else pickle.dumps(Exploit(tmp_path / "exploited"))
    )
    same(first, check_files(files, ALL, cache_dir=tmp_path / "cache"))
    assert not (tmp_path / "exploited").exists()
