"""A fast subset of the ecosystem check (corpus/run.py): real MCP servers from the registry,
checked and fixed on a copy, with the run's invariants and the findings pinned per package.

A change in these counts is either a regression or an improvement of the analysis: look at the
package's sources (corpus/RESULTS.md lists what each finding is) and update the pin on purpose.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_runner():
    spec = importlib.util.spec_from_file_location("corpus_run", ROOT / "corpus" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = _load_runner()

# name: (tools found, unresolved, {code: count}, files the fix rewrites)
EXPECTED = {
    # mcp 1.x FastMCP, module level: `new_name: str | None`.
    "chroma-mcp": (13, 0, {"MCP001": 1}, 1),
    # mcp 2.x MCPServer built inside serve(): Optional[str] in Annotated[..., Field()], str | None.
    "mcp-server-git": (12, 0, {"MCP001": 5}, 1),
    # mcp 2.x: Annotated[int, Field(strict=True, ...)] twice.
    "mcp-server-fetch": (1, 0, {"MCP002": 2}, 1),
    # standalone fastmcp: no pre-parse, no strict validation, so nothing to report.
    "mcp-server-motherduck": (5, 0, {}, 0),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    packages = {p.name: p for p in run.load_packages()}
    scratch = tmp_path_factory.mktemp("corpus")
    return {name: run.run_package(packages[name], scratch=scratch) for name in EXPECTED}


def test_subset_is_pinned_in_packages_txt():
    names = {p.name for p in run.load_packages()}
    assert set(EXPECTED) <= names


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_and_fix_hold_the_invariants(results, name):
    result = results[name]
    assert result.failures == [], "\n".join(result.failures)
    assert result.fix == "ok"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_findings_per_package(results, name):
    tools, unresolved, codes, changed = EXPECTED[name]
    result = results[name]
    assert dict(result.counts()) == codes, run.details([result])
    assert result.tools == tools
    assert len(result.unresolved) == unresolved, result.unresolved
    assert len(result.changed) == changed, result.changed
    assert result.fixable == sum(codes.values())  # every finding of this subset is fixable
