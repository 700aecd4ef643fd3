"""The GitHub Action (action.yml): a composite action whose steps, run here by bash as the runner
runs them (the install step aside: this environment has the package), write SARIF to a file and
annotate the findings, failing the job unless `exit-zero`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from demo_servers import EXPOSED

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def run_step(step: dict, inputs: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A `run` step as the runner runs it: `${{ }}` expressions replaced, the step's env set."""
    context = {
        "github.action_repository": "",
        "github.action_ref": "",
        "github.server_url": "https://github.com",
        **{f"inputs.{key}": value for key, value in inputs.items()},
    }

    def expand(text: str) -> str:
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], text)

    env = {key: expand(str(value)) for key, value in step.get("env", {}).items()}
    binaries = str(Path(sys.executable).parent)
    environment = {**os.environ, "PATH": binaries + os.pathsep + os.environ["PATH"], **env}
    return subprocess.run(
        ["bash", "-e", "-c", expand(step["run"])],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
    )


def test_the_action_is_composite_and_installs_from_its_own_checkout():
    document = action()
    assert document["runs"]["using"] == "composite"
    install = document["runs"]["steps"][0]
    assert '"$GITHUB_ACTION_PATH"' in install["run"]
    assert set(document["inputs"]) == {"paths", "args", "sarif-file", "upload-sarif", "exit-zero"}


@pytest.mark.skipif(
    not (Path(sys.executable).parent / "mcp-codemod").exists(),
    reason="the console script is not installed beside this interpreter",
)
def test_the_steps_write_sarif_and_annotate_and_fail_on_findings(tmp_path):
    (tmp_path / "server.py").write_text(EXPOSED)
    steps = {step["name"]: step for step in action()["runs"]["steps"]}
    inputs = {"paths": ".", "args": "--no-cache", "sarif-file": "mcp.sarif", "exit-zero": "false"}

    sarif = run_step(steps["Write SARIF"], inputs, tmp_path)
    assert sarif.returncode == 0, sarif.stderr
    results = json.loads((tmp_path / "mcp.sarif").read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["MCP001"]

    check = run_step(steps["Check (annotations on the pull request)"], inputs, tmp_path)
    assert check.returncode == 1
    assert check.stdout.startswith("::error file=server.py,line=7,col=12,title=MCP001::")

    report_only = run_step(
        steps["Check (annotations on the pull request)"], {**inputs, "exit-zero": "true"}, tmp_path
    )
    assert report_only.returncode == 0
    assert "::error file=server.py" in report_only.stdout
