"""The facts cache (engine/facts_cache.py): a second run parses nothing, a changed file is
parsed again, another version or other analysis code does not trust it, a damaged cache is
ignored and never runs code, and the CLI keeps it beside the configuration.
"""

from __future__ import annotations

import importlib
import pickle
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

import mcp_codemod
from mcp_codemod.cli import main
from mcp_codemod.engine import facts_cache as cache_module
from mcp_codemod.engine import file_facts as module_facts
from mcp_codemod.engine.checker import check_files

from .check_runs import ALL, Exploit, files_of, pre_parsed, same


def test_a_second_run_parses_nothing(fixtures_copy: Path, tmp_path: Path, parses):
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    assert parses
    parses.clear()
    second = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    assert parses == []
    same(first, second)


def test_the_scans_of_an_earlier_check_answer_a_later_one_as_parsing_would(
    fixtures_copy: Path, monkeypatch
):
    """`fix` checks again after its changes (`KnownScans`): a module whose text and name are
    the same is not scanned again, and nothing it finds differs."""
    parses: list[str] = []
    scan = module_facts.scan_tree

    def counting(task, tree):
        parses.append(task.display)
        return scan(task, tree)

    # A spy: what is scanned in this process, with the scans kept or without.
    monkeypatch.setattr(module_facts, "scan_tree", counting)
    files = files_of(fixtures_copy)
    scans = module_facts.KnownScans()
    first = check_files(files, ALL, jobs=1, scans=scans)
    assert parses
    parses.clear()
    server = fixtures_copy / "mcp2_server.py"
    server.write_text(server.read_text() + "\n\nEXTRA = 1\n")
    again = check_files(files, ALL, jobs=1, scans=scans)
    assert len(parses) == 1 and parses[0].endswith("mcp2_server.py")
    same(again, check_files(files, ALL, jobs=1))
    same(first, check_files(files, ALL, jobs=1, scans=module_facts.KnownScans()))


def test_an_unchanged_stamp_is_not_even_read(
    fixtures_copy: Path, tmp_path: Path, monkeypatch, parses
):
    # Files written a moment ago are hashed again until their timestamps are old enough.
    # The files were written a moment ago, and a ctime cannot be set back: the window is shut.
    monkeypatch.setattr(cache_module, "RACY_NS", 0)
    files = files_of(fixtures_copy)
    first = check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache")
    read: list[Path] = []
    read_bytes = Path.read_bytes
    # A spy: no public result says which files a run read.
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self) or read_bytes(self))
    same(first, check_files(files, ALL, jobs=1, cache_dir=tmp_path / "cache"))
    assert [path for path in read if fixtures_copy in path.parents] == []


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
    # Another release, as its cache entries would record it.
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
    # Other analysis code: nothing public makes this code another's.
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
        "code": pickle.dumps((key, Exploit(tmp_path / "exploited"))),
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
