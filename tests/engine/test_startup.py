"""What a run imports: check never imports libcst, and `--version` and `--help` start without
the analysis.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import modules_added_by


def test_check_never_imports_libcst(fixtures_copy: Path):
    script = (
        "import sys\n"
        "from mcp_codemod.cli import main\n"
        "for _ in range(2):\n"
        "    try:\n"
        "        main(['check', '.'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert 'libcst' not in sys.modules, 'libcst was imported'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=fixtures_copy, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "MCP001" in result.stdout


def test_the_version_and_the_help_start_without_the_analysis():
    # Each command imports what it runs: start-up alone loads the command line and its option
    # choices (the output formats, the frameworks' names), nothing the commands do.
    added = modules_added_by(
        "from mcp_codemod.cli import main\n"
        "for arguments in (['--version'], ['--help'], ['check', '--help']):\n"
        "    try:\n"
        "        main(arguments)\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    ours = {name for name in added if name.startswith("mcp_codemod.")}
    what_the_commands_do = {
        name
        for name in ours
        if name.split(".")[1] in {"fix", "probe", "report", "rules", "runtime", "api"}
        or (name.startswith("mcp_codemod.engine.") and name != "mcp_codemod.engine.settings")
        or (name.startswith("mcp_codemod.analysis.") and name != "mcp_codemod.analysis.frameworks")
    }
    assert ours and what_the_commands_do == set()
    assert not added & {"tomllib", "tomli", "libcst"}


def test_a_run_the_run_cache_answers_imports_neither_the_analysis_nor_the_rules(tmp_path: Path):
    # A warm `check` of a clean file (the pre-commit hook's) is start-up, discovery and the
    # run cache: the analysis, the rules and the reports of findings are what a run that finds
    # something, or computes its result, loads; their data classes cost more than the rest.
    (tmp_path / "server.py").write_text(
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('clean')\n"
        "@mcp.tool()\n"
        "def search(query: str) -> str: ...\n",
        encoding="utf-8",
    )
    run = (
        "from mcp_codemod.cli import main\n"
        "try:\n"
        f"    main(['check', {str(tmp_path / 'server.py')!r}, '--cache-dir', "
        f"{str(tmp_path / 'cache')!r}])\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
    )
    # The file was written a moment ago: the first run stores its result all the same.
    settled = "from mcp_codemod.engine import facts_cache\nfacts_cache.RACY_NS = 0\n"
    subprocess.run([sys.executable, "-c", settled + run], check=True, capture_output=True)
    added = modules_added_by(run)
    assert "mcp_codemod.engine.checker" in added
    needed = {"mcp_codemod.analysis.frameworks", "mcp_codemod.report.check_output"}
    computing = {
        name
        for name in added - needed
        if name.startswith(("mcp_codemod.analysis.", "mcp_codemod.rules.", "mcp_codemod.report."))
        or name in {"mcp_codemod.engine.file_facts", "mcp_codemod.engine.project"}
    }
    assert computing == set()
