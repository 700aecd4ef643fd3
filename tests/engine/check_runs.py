"""What the tests of the run compare: the files of a tree, a package written from its
modules' texts, two results that agree (findings, fixes, errors, what was not checked), the
findings about the pre-parse, and a pickle that runs code when it is read.
"""

from __future__ import annotations

from pathlib import Path

from mcp_codemod.engine import checker
from mcp_codemod.engine.discovery import discover
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


def pre_parsed(result: checker.CheckResult) -> list:
    return [finding for finding in result.findings if finding.code == "MCP001"]


class Exploit:
    """Unpickled, it creates `target`: a cache that ran it ran code."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (Path.touch, (self.target,))


def tools_of(result: checker.CheckResult) -> set[str | None]:
    """The names of the tools the run found parameters of."""
    return {finding.tool for finding in result.findings}
