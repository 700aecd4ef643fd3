"""Unknown is unchecked, never clean (a property over every fixture and every rule case): each tool
parameter of a pre-parsing server, its annotation replaced in turn by one the analysis cannot
resolve, leaves `check` without "All checks passed!" and with exit code 1.

The spellings of an unresolvable annotation take turns: a name nothing binds, a name a star
import of a module outside the tree may bind, a `TypeVar`, a string that does not parse, a type
made by a call at run time. The parameters are those the analysis links to an mcp 1.x / 2.x server
that is not guarded, on the unchanged source; every one of the rule cases', and of the fixtures a
fixed, evenly spread sample (CI time)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.cli import main
from mcp_codemod.engine import checker
from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.rules import RULES, select_rules

# (annotation, a line appended to the module that makes it unresolvable)
UNRESOLVABLE = (
    ("Unresolvable", ""),
    ("Starred", "from not_installed_anywhere import *"),
    ("T_unresolvable", 'import typing\nT_unresolvable = typing.TypeVar("T_unresolvable")'),
    ('"Unresolvable["', ""),
    ("Made", 'Made = type("Made", (str,), {})'),
)
FIXTURE_SAMPLE = 40  # fixture parameters mutated, spread evenly over all of them


def linked_parameters(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[ToolParameter]:
    """The tool parameters the analysis links on the tree, captured from the checker."""
    captured = []
    judge = checker.judge

    def capture(rules, linked, given, noqa):
        captured.extend(linked.parameters)
        return judge(rules, linked, given, noqa)

    with monkeypatch.context() as patched:
        patched.setattr(checker, "judge", capture)
        files = discover([root], DEFAULT_EXCLUDE, respect_gitignore=True)
        check_files(files, select_rules(None, []), jobs=1)
    return captured


def exposed(parameter: ToolParameter) -> bool:
    framework = parameter.server.framework
    return (
        framework is not None
        and framework.pre_parses_json
        and parameter.parameter.site is not None
        and parameter.library is None
        and parameter.generated_by is None
    )


def mutations(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int, int, int]]:
    """(file, start line, start column, end line, end column) of each exposed annotation."""
    found = set()
    for parameter in linked_parameters(root, monkeypatch):
        if exposed(parameter):
            span = parameter.parameter.site.span
            path = Path(parameter.path)
            path = path if path.is_absolute() else Path.cwd() / path
            relative = path.resolve().relative_to(root.resolve()).as_posix()
            found.add(
                (relative, span.start.line, span.start.column, span.end.line, span.end.column)
            )
    return sorted(found)


def replaced(text: str, site: tuple[str, int, int, int, int], index: int) -> str:
    _, start_line, start_column, end_line, end_column = site
    annotation, appended = UNRESOLVABLE[index % len(UNRESOLVABLE)]
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: start_line - 1]) + start_column
    end = sum(len(line) for line in lines[: end_line - 1]) + end_column
    mutated = text[:start] + annotation + text[end:]
    if appended:
        mutated = mutated.rstrip("\n") + "\n\n" + appended + "\n"
    return mutated


def assert_not_clean(
    given: str, site: tuple[str, int, int, int, int], index: int, cache: Path | None = None
) -> None:
    options = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    result = CliRunner().invoke(main, ["check", *options, "--jobs", "1", given])
    annotation = UNRESOLVABLE[index % len(UNRESOLVABLE)][0]
    label = f"{site} {annotation}\n{result.output}"
    assert "All checks passed!" not in result.output, label
    assert result.exit_code == 1, label
    # Listed as unchecked, with its reason (not merely outvoted by other findings): the
    # parameter, or the whole registration when the change made its server unknown (a star
    # import may rebind the server's name).
    listed = result.output.partition(" not checked (")[2].splitlines()[1:]
    unchecked = [
        line
        for line in listed
        if (
            line.startswith(f"  {site[0]}:{site[1]}: tool ")
            and annotation.strip('"') in line
            and "` names " in line
        )
        or (line.startswith(f"  {site[0]}:") and "framework unknown" in line)
    ]
    assert unchecked, label


def rule_cases() -> list[tuple[str, str]]:
    return [
        (f"{rule.code}-{index}", case.source)
        for rule in RULES
        for index, case in enumerate(rule.cases)
    ]


@pytest.mark.parametrize(("label", "source"), rule_cases(), ids=[c[0] for c in rule_cases()])
def test_an_unresolvable_annotation_in_a_rule_case_is_never_clean(
    tmp_path, monkeypatch, label, source
):  # `label` names the case
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(source, encoding="utf-8")
    sites = mutations(tmp_path, monkeypatch)
    for index, site in enumerate(sites):
        (tmp_path / "server.py").write_text(replaced(source, site, index), encoding="utf-8")
        assert_not_clean("server.py", site, index)


def test_an_unresolvable_annotation_in_a_fixture_is_never_clean(tmp_path, monkeypatch):
    root = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(root)
    sites = mutations(root, monkeypatch)
    assert len(sites) > FIXTURE_SAMPLE  # the sample is a sample
    step = len(sites) / FIXTURE_SAMPLE
    for index in range(FIXTURE_SAMPLE):
        site = sites[int(index * step)]
        path = root / site[0]
        original = path.read_text(encoding="utf-8")
        path.write_text(replaced(original, site, index), encoding="utf-8")
        try:
            # The whole tree: a module of decorations only is not reached from itself. The
            # facts of the files left as they are come from the cache.
            assert_not_clean(".", site, index, tmp_path / "cache")
        finally:
            path.write_text(original, encoding="utf-8")


def test_the_rule_cases_expose_parameters_to_mutate(tmp_path, monkeypatch):
    # The property above must not hold vacuously.
    monkeypatch.chdir(tmp_path)
    total = 0
    for _, source in rule_cases():
        (tmp_path / "server.py").write_text(source, encoding="utf-8")
        total += len(mutations(tmp_path, monkeypatch))
    assert total >= 10
