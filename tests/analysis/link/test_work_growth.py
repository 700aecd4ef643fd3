"""The analysis costs what the tree costs: on generated trees that grow linearly in N, for each
kind of resolution, the work at 8N is at most 8 times the work at N (plus a constant). Work is
counted, never timed: the linker's steps (`analysis/link/work.py`) and the Python calls of the whole
check, the same on every machine."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from mcp_codemod import api, fix_workflow
from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.engine.checker import CheckResult, check_files
from mcp_codemod.fix.apply import fix_findings
from mcp_codemod.rules import select_rules

from .generated_trees import (
    SERVER,
    TOOL,
    TREES,
    Tree,
    retrying_clients,
    retrying_registrars,
    servers_out_of_sight,
)

T = TypeVar("T")


def counted(run: Callable[[], T]) -> tuple[T, int]:
    """What a function returns, and the Python calls it made."""
    calls = 0

    def count(frame: object, event: str, argument: object) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        return run(), calls
    finally:
        sys.setprofile(None)


def written(root: Path, tree: Tree) -> list[Path]:
    for name, text in tree.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(root.rglob("*.py"))


def checked(root: Path, tree: Tree) -> tuple[CheckResult, int]:
    """The check of a tree (one process, no cache), and the Python calls it made."""
    files = written(root, tree)
    return counted(lambda: check_files(files, select_rules(None, []), jobs=1))


def fix_calls(root: Path, tree: Tree) -> int:
    """The Python calls of planning the fix of every finding in the tree."""
    result, _ = checked(root, tree)
    writable = {path.resolve() for path in root.rglob("*.py")}
    outcome, calls = counted(lambda: fix_findings(result.findings, result.digests, writable))
    assert outcome.failures == ()
    return calls


@pytest.mark.parametrize("make", TREES.values(), ids=TREES.keys())
def test_work_at_eight_times_the_tree_is_at_most_eight_times(tmp_path: Path, make) -> None:
    small, small_calls = checked(tmp_path / "small", make(10))
    large, large_calls = checked(tmp_path / "large", make(80))
    assert large.work <= 8 * small.work + 500, (small.work, large.work)
    assert large_calls <= 8 * small_calls + 50_000, (small_calls, large_calls)


@pytest.mark.parametrize("make", TREES.values(), ids=TREES.keys())
def test_fixing_at_eight_times_the_tree_is_at_most_eight_times_the_work(
    tmp_path: Path, make
) -> None:
    small = fix_calls(tmp_path / "small", make(10))
    large = fix_calls(tmp_path / "large", make(80))
    assert large <= 8 * small + 50_000, (small, large)


def test_the_fix_of_servers_built_out_of_sight_grows_with_the_tree(tmp_path: Path) -> None:
    """Each server built out of sight is guarded through every server its package builds: one
    fix naming them all for each of its parameters would grow with the square of the tree."""

    def swaps(root: Path, tree: Tree) -> int:
        result, _ = checked(root, tree)
        return sum(len(finding.fix.swaps) for finding in result.findings if finding.fix)

    small = swaps(tmp_path / "small", servers_out_of_sight(10))
    large = swaps(tmp_path / "large", servers_out_of_sight(80))
    assert small > 10 * 1, "each server out of sight is guarded through the others"
    assert large <= 8 * small, (small, large)


def fix_write_calls(root: Path, tree: Tree, monkeypatch: pytest.MonkeyPatch) -> int:
    """The Python calls of `fix --write` on the tree (one process, no cache): the check, the
    fixes, the rounds after them, the check after the fixes and the confirmation that the
    fixed code imports."""
    written(root, tree)
    monkeypatch.chdir(root)
    options = api.Options(cache=False, jobs=1)

    def fix_write() -> fix_workflow.FixRun:
        outcome = api.fix_paths(["."], options, unsafe_fixes=True, rechecked=True)
        return fix_workflow.apply_fixes(outcome, ["."], options, write=True, unsafe_fixes=True)

    run, calls = counted(fix_write)
    assert run.error is None and run.write_failures == ()
    return calls


@pytest.mark.parametrize("make", TREES.values(), ids=TREES.keys())
def test_fix_write_at_eight_times_the_tree_is_at_most_eight_times_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make
) -> None:
    small = fix_write_calls(tmp_path / "small", make(10), monkeypatch)
    large = fix_write_calls(tmp_path / "large", make(80), monkeypatch)
    assert large <= 8 * small + 50_000, (small, large)


def test_a_method_retrying_eight_ways_is_followed_once(tmp_path: Path) -> None:
    """The reduced published case: a client method that stores its parameter and calls itself
    with it in eight branches; it is given no server, so every way is searched."""
    retries = "".join(
        f"        if attempt == {k}:\n            return self.call(server, attempt + 1)\n"
        for k in range(8)
    )
    tree = {
        "server.py": SERVER
        + "@mcp.tool()"
        + TOOL.format(name="f")
        + "\n\nclass Client:\n    def __init__(self):\n        self.store = {}\n\n"
        "    def call(self, server, attempt=0):\n        self.store['s'] = server\n"
        f"{retries}        return None\n\n\nClient().call('payload')\n",
    }
    result, _ = checked(tmp_path, tree)
    assert result.work < 1_000
    assert [f.code for f in result.findings] == ["MCP001"]


@pytest.mark.parametrize(
    ("tree", "kind"),
    [
        # The stored value may be any server: it counts against the one the package builds.
        (retrying_clients(1), Unchecked.UNTIED),
        # The registrar's tools: unchecked on its server.
        (retrying_registrars(1), Unchecked.OVER_BUDGET),
    ],
    ids=["a stored value", "a registrar's tools"],
)
def test_a_question_over_its_budget_is_an_unchecked_registration(
    tmp_path: Path, monkeypatch, tree: Tree, kind: Unchecked
) -> None:
    """What a budget cannot resolve counts as unchecked (MCP004 guards the server), with a reason
    that names the budget; never a wait, never a pass."""
    monkeypatch.setattr("mcp_codemod.analysis.link.work.QUESTION_BUDGET", 2)
    result, _ = checked(tmp_path, tree)
    over = [u for u in result.unchecked if "budget of 2 steps" in u.reason]
    assert {u.kind for u in over} == {kind}
    assert "MCP004" in {f.code for f in result.findings}


def handing_on(helper_functions: int) -> Tree:
    """A tool that gives its request context and its text to a helper module of the project,
    which neither the checked files nor any server reach, of `helper_functions` functions."""
    helpers = "".join(
        f"\n\ndef helper_{index}(ctx, text):\n    return ctx, text\n"
        for index in range(helper_functions)
    )
    return {
        "pyproject.toml": "[project]\nname = 'app'\n",
        "server.py": SERVER
        + "from mcp.server.fastmcp import Context\n"
        + "from logs import helper_0\n\n\n"
        + "@mcp.tool()\n"
        + "def search(ctx: Context, query: str) -> str:\n"
        + "    helper_0(ctx, query)\n"
        + "    return query\n",
        # The word `search` in a module no one imports: where its callers would be looked for.
        "logs.py": "# search\n" + helpers,
    }


def test_what_a_tool_gives_a_helper_costs_nothing_unless_it_is_a_server(tmp_path: Path):
    """A request's context and a text handed to a helper are no server: neither the helper's
    module nor the tool's possible callers are read to find out."""

    def check_server(root: Path, tree: Tree) -> int:
        written(root, tree)
        files = [root / "server.py"]
        result, calls = counted(lambda: check_files(files, select_rules(None, []), jobs=1))
        assert result.findings == () and result.unchecked == ()
        return calls

    small = check_server(tmp_path / "small", handing_on(1))
    large = check_server(tmp_path / "large", handing_on(2_000))
    assert large - small < 1_000, (small, large)
