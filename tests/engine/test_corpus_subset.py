"""The ecosystem corpus in the test suite: a fast subset of corpus/run.py (real MCP servers from
the registry, checked and fixed on a copy, with the run's invariants and the findings pinned per
package), the prefilter against a full parse of every pinned distribution, and which findings the
deep run's comparison with the probe counts.

The tests that read the distributions take them from the corpus cache and never download: they
carry the `corpus` marker, which the default `pytest` run deselects. `.ci/run` downloads the corpus first
(`python corpus/run.py --download-only`, its only network step) and then runs `pytest -m corpus`.

A change in the pinned counts is either a regression or an improvement of the analysis: look at
the package's sources (corpus/RESULTS.md lists what each finding is) and update the pin on purpose.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import candidate_by_definition

from mcp_codemod.engine.checker import check_files
from mcp_codemod.engine.discovery import discover
from mcp_codemod.engine.file_io import SourceError
from mcp_codemod.engine.prefilter import is_candidate
from mcp_codemod.engine.settings import DEFAULT_EXCLUDE
from mcp_codemod.rules import select_rules

ROOT = Path(__file__).resolve().parents[2]


def _load_runner():
    spec = importlib.util.spec_from_file_location("corpus_run", ROOT / "corpus" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = _load_runner()

# name: (tools found, unchecked, {code: count}, files the fix rewrites)
EXPECTED = {
    # mcp 1.x FastMCP, module level: `new_name: str | None`.
    # And eight open dictionaries that keep tools out of OpenAI strict mode (MCP101, report only),
    # and five defaults strict mode never gives (`limit: int = 5`, `include: List[str] = [...]`:
    # MCP103, report only).
    "chroma-mcp": (13, 0, {"MCP001": 1, "MCP101": 8, "MCP103": 5}, 1),
    # mcp 2.x MCPServer built inside serve(): Optional[str] in Annotated[..., Field()], str | None;
    # four defaults strict mode never gives (MCP103).
    "mcp-server-git": (12, 0, {"MCP001": 5, "MCP103": 4}, 1),
    # mcp 2.x: Annotated[int, Field(strict=True, ...)] twice. `url: AnyUrl`'s `format: uri`, which
    # the OpenAI API refuses in strict mode (MCP104, posit-dev/chatlas#255 reports this very
    # server), and three defaults strict mode never gives (MCP103).
    "mcp-server-fetch": (1, 0, {"MCP002": 2, "MCP103": 3, "MCP104": 1}, 1),
    # standalone fastmcp: no pre-parse, no strict validation; four `str | None` parameters that
    # reject digits a client sends as a number (MCP008); one default strict mode never gives
    # (MCP103).
    "mcp-server-motherduck": (5, 0, {"MCP008": 4, "MCP103": 1}, 1),
}


def _pristine(package) -> Path:
    """The unpacked distribution, as `corpus/run.py --download-only` leaves it."""
    folder = run.DEFAULT_CACHE / "src" / package.key
    assert folder.is_dir(), (
        f"{package.requirement} is not downloaded: python corpus/run.py --download-only"
    )
    return folder


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    packages = {p.name: p for p in run.load_packages()}
    for name in EXPECTED:
        _pristine(packages[name])
    scratch = tmp_path_factory.mktemp("corpus")
    return {name: run.run_package(packages[name], scratch=scratch) for name in EXPECTED}


def test_subset_is_pinned_in_packages_txt():
    names = {p.name for p in run.load_packages()}
    assert set(EXPECTED) <= names


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_and_fix_hold_the_invariants(results, name):
    result = results[name]
    assert result.failures == [], "\n".join(result.failures)
    assert result.fix == "ok"


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_findings_per_package(results, name):
    tools, unchecked, codes, changed = EXPECTED[name]
    result = results[name]
    assert dict(result.counts()) == codes, run.details([result])
    assert result.tools == tools
    assert len(result.unchecked) == unchecked, result.unchecked
    assert len(result.changed) == changed, result.changed
    # Every finding of this subset is fixable but the strict-mode reports without a fix.
    unfixable = ("MCP101", "MCP103")
    assert result.fixable == sum(count for code, count in codes.items() if code not in unfixable)


@pytest.mark.corpus
def test_prefilter_loses_nothing_on_the_ecosystem_corpus(request):
    # Parsing every file of the corpus takes a while: pytest's cache keeps the facts between
    # sessions (tests/engine/test_facts_cache.py shows that cached facts are the facts).
    cache_dir = request.config.cache.mkdir("mcp-codemod-facts")
    folders = [_pristine(package) for package in run.load_packages()]
    files = discover(folders, DEFAULT_EXCLUDE, respect_gitignore=True)
    rules = select_rules(["ALL"], [])
    filtered = check_files(files, rules, cache_dir=cache_dir)
    parsed = check_files(files, rules, prefilter=False, cache_dir=cache_dir)
    assert filtered.findings == parsed.findings
    # A file the prefilter rules out is not parsed, so a syntax this Python cannot read in it
    # (mcp-client-console's 3.12 f-strings, before 3.12) is no error of the check.
    assert set(filtered.errors) <= set(parsed.errors)
    assert not any(
        is_candidate(Path(error.path).read_bytes())
        for error in set(parsed.errors) - set(filtered.errors)
    )
    assert (filtered.tools, filtered.unchecked) == (parsed.tools, parsed.unchecked)
    assert [f.fix for f in filtered.findings] == [f.fix for f in parsed.findings]
    # What `fix` may write was read the same way: a file the prefilter rules out has no digest.
    assert filtered.digests.items() <= parsed.digests.items()
    assert filtered.tools > 0  # the corpus holds servers: an empty file list proves nothing


def _verdict(data: bytes, prefilter) -> bool | str:
    try:
        return prefilter(data)
    except SourceError as error:
        return str(error)


@pytest.mark.corpus
def test_the_prefilter_answers_what_its_patterns_define_on_every_file_at_hand():
    # The shortcuts of `is_candidate` against its definition, on every file of the corpus, of
    # the benchmark's trees when bench/run.py has unpacked them, and of this environment's
    # libraries.
    bench = Path(
        os.environ.get("MCP_CODEMOD_BENCH_CACHE", Path.home() / ".cache" / "mcp-codemod-bench")
    )
    roots = [run.DEFAULT_CACHE / "src", bench, Path(sysconfig.get_paths()["purelib"])]
    assert roots[0].is_dir(), "the corpus is not downloaded: python corpus/run.py --download-only"
    compared = dict.fromkeys(roots, 0)
    for root in roots:
        for path in root.rglob("*.py"):
            if path.is_file():
                data = path.read_bytes()
                assert _verdict(data, is_candidate) == _verdict(data, candidate_by_definition), path
                compared[root] += 1
    # The pinned corpus alone is the same on every machine: its 1,600-odd files were all read.
    assert compared[roots[0]] > 1_500


# ---- the runner's own rules (no corpus needed) ------------------------------------------------


def test_deep_targets_split_at_commas_outside_brackets():
    deep = "pkg.server:mcp,pkg.other:(register(mcp,True))or(mcp),pkg.third:make([1,2])"
    assert run.deep_targets(deep) == [
        "pkg.server:mcp",
        "pkg.other:(register(mcp,True))or(mcp)",
        "pkg.third:make([1,2])",
    ]


def test_every_deep_target_names_a_module_and_an_expression():
    for package in run.load_packages():
        for target in run.deep_targets(package.deep or "m:x"):
            module, sep, expression = target.partition(":")
            assert sep and module and expression, (package.requirement, target)


def test_generated_signatures_are_not_missed():
    package = run.Package("p", "1")
    result = run.PackageResult(package, tools=50)
    result.unchecked = [
        ["a.py", 1, "tool function `f` not found", "not-found"],
        ["b.py", 2, "signature made at run time", run.GENERATED_SIGNATURE],
    ]
    assert result.missed == [result.unchecked[0]]
    assert run.missed_share([result]) == (1, 50)
    assert "1 of 50 (2.0%; target < 2%): FAILED" in run.share_line([result])


@pytest.mark.corpus
def test_a_published_server_check_once_did_not_finish_on_costs_what_its_size_does():
    """notebooklm-mcp-cli 0.15.8: a client method that stores its parameter and retries by
    calling itself with it. `check` ran for minutes; it now takes a few steps a file, and what
    it cannot see is listed (a loop over a registry built at run time, on standalone fastmcp)."""
    package = {p.name: p for p in run.load_packages()}["notebooklm-mcp-cli"]
    files = discover([_pristine(package)], DEFAULT_EXCLUDE, respect_gitignore=True)
    result = check_files(files, select_rules(None, []), jobs=1)
    assert result.work < 20 * len(files), (result.work, len(files))
    assert [tool.kind.value for tool in result.unchecked] == ["loop-variable"]


# ---- the deep run's comparison of `check` with the probe (no distribution read) ----------


def _compared(findings: list[dict], mangled: list[dict]):
    result = run.PackageResult(run.Package("server", "1.0"), findings=findings)
    problems = {"before": mangled, "safe": [], "unsafe": []}
    outcomes = {"before": {}, "safe": {}, "unsafe": {}}
    run._compare(result, problems, {"search"}, outcomes)
    return result


def test_a_fastmcp_parameter_that_rejects_json_text_is_reported_by_mcp006():
    rejected = {"tool": "search", "parameter": "tags", "outcome": "rejected"}
    message = "Tool `search`: `tags: list[str]` rejects its value sent as JSON text ('[1, 2]', ...)"
    finding = {"code": "MCP006", "tool": "search", "parameter": "tags", "message": message}
    result = _compared([finding], [rejected])
    assert result.reported == [("search", "tags")]
    assert not result.probe_only and not result.check_only
    assert run.recall_precision([result]) == ("1/1 (100%)", "1/1 (100%)")


def test_a_finding_the_probe_cannot_confirm_is_not_counted():
    # Null sent as the text "null" (MCP006 on a nullable number) and digits sent as a number
    # (MCP008): client forms the probe's battery does not send.
    null = "Tool `search`: `limit: int | None` rejects its value sent as JSON text ('null'), ..."
    findings = [
        {"code": "MCP006", "tool": "search", "parameter": "limit", "message": null},
        {"code": "MCP008", "tool": "search", "parameter": "label", "message": "..."},
    ]
    result = _compared(findings, [])
    assert result.reported == [] and not result.check_only
