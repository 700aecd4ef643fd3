"""A cache is trusted only by the code that wrote it: the facts cache by the code of the scan
stage (and the data it fills), the run cache by the code of every stage of the analysis."""

from __future__ import annotations

import importlib
from pathlib import Path

from mcp_codemod.engine import facts_cache, run_cache


def package_files(package: str) -> set[Path]:
    directory = Path(importlib.import_module(package).__file__).parent
    return {path.resolve() for path in directory.glob("*.py")}


def test_the_facts_cache_key_hashes_every_module_of_the_scan_stage_and_its_data():
    hashed = {source.resolve() for source in facts_cache.analysis_sources()}
    assert package_files("mcp_codemod.analysis.scan") <= hashed
    assert package_files("mcp_codemod.analysis") <= hashed


def test_a_run_is_reused_only_by_the_code_of_every_analysis_stage():
    stamped = {name for name, _ in run_cache._code_stamps()}
    # Names found only in the link stage: its code decides a run's result too.
    assert {"server_resolution.py", "module_source.py", "linker.py"} <= stamped
