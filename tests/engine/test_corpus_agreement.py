"""corpus/run.py's deep comparison of `check` with the probe: the findings the probe can confirm
are those of the rules whose arguments it sends (JSON text, whole numbers as floats)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load_runner():
    spec = importlib.util.spec_from_file_location("corpus_run", ROOT / "corpus" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = _load_runner()


def _compared(findings: list[dict], mangled: list[dict]):
    result = run.PackageResult(run.Package("server", "1.0"), findings=findings)
    problems = {"before": mangled, "safe": [], "unsafe": []}
    outcomes = {"before": {}, "safe": {}, "unsafe": {}}
    run._compare(result, problems, {"search"}, outcomes)
    return result


def test_a_fastmcp_parameter_that_rejects_json_text_is_reported_by_mcp006():
    rejected = {"tool": "search", "parameter": "tags", "outcome": "rejected"}
    finding = {"code": "MCP006", "tool": "search", "parameter": "tags", "fixable": True}
    result = _compared([finding], [rejected])
    assert result.reported == [("search", "tags")]
    assert not result.probe_only and not result.check_only
    assert run.recall_precision([result]) == ("1/1 (100%)", "1/1 (100%)")


def test_a_finding_the_probe_cannot_confirm_is_not_counted():
    # MCP008 is about digits a client sends as a number, which the probe's battery does not send.
    finding = {"code": "MCP008", "tool": "search", "parameter": "label", "fixable": True}
    result = _compared([finding], [])
    assert result.reported == [] and not result.check_only
