"""The GitHub Action (action.yml): a composite action that installs mcp-codemod in a virtual
environment of its own (also from an externally managed Python, which refuses `pip install`),
and whose steps, run here by bash as the runner runs them, write SARIF to a file and annotate
the findings, failing the job unless `exit-zero`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml
from demo_servers import EXPOSED

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


INSTALLED = Path(sys.executable).parent / "mcp-codemod"


def run_step(
    step: dict,
    inputs: dict[str, str],
    cwd: Path,
    command: Path = INSTALLED,
    path: str = str(Path(sys.executable).parent),
    runner: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """A `run` step as the runner runs it: `${{ }}` expressions replaced, the step's env set;
    `command`: what the install step made (`steps.install.outputs.command`), `path` first on
    PATH, `runner`: the runner's own variables."""
    context = {
        "github.action_repository": "",
        "github.action_ref": "",
        "github.server_url": "https://github.com",
        "steps.python.outputs.python-path": "",  # inputs.python-version "": no setup-python
        "steps.install.outputs.command": str(command),
        **{f"inputs.{key}": value for key, value in inputs.items()},
    }

    def expand(text: str) -> str:
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], text)

    env = {key: expand(str(value)) for key, value in step.get("env", {}).items()}
    environment = {**os.environ, "PATH": path + os.pathsep + os.environ["PATH"], **(runner or {})}
    environment |= env
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
    setup, install = document["runs"]["steps"][:2]
    # Its own Python, which leaves the job's alone; or the job's `python3`.
    assert setup["uses"].startswith("actions/setup-python@")
    assert setup["with"]["update-environment"] is False
    assert '"$GITHUB_ACTION_PATH"' in install["run"]
    assert set(document["inputs"]) == {
        "paths",
        "args",
        "sarif-file",
        "upload-sarif",
        "exit-zero",
        "python-version",
    }


def externally_managed_python(root: Path) -> Path:
    """A Python as Debian's or a container's: not a virtual environment, and its standard library
    holds the PEP 668 marker, so `pip install` into it is refused. Made of this interpreter's
    base and standard library, linked; skips where that layout cannot be reproduced."""
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    stdlib = Path(sysconfig.get_path("stdlib"))
    library = root / "lib" / stdlib.name
    library.mkdir(parents=True)
    for entry in stdlib.iterdir():
        (library / entry.name).symlink_to(entry)
    (library / "EXTERNALLY-MANAGED").write_text(
        "[externally-managed]\nError=managed by the system\n"
    )
    (root / "bin").mkdir()
    python = root / "bin" / "python3"
    shutil.copy2(base, python)
    probe = subprocess.run(
        [str(python), "-c", "import sys; print(sys.prefix == sys.base_prefix, sys.prefix)"],
        capture_output=True,
        text=True,
    )
    if probe.stdout.split() != ["True", str(root)]:
        pytest.skip(f"cannot reproduce a system Python from {base}: {probe.stdout}{probe.stderr}")
    return python


@pytest.mark.network
def test_the_install_step_works_where_pip_install_into_the_system_python_is_refused(tmp_path):
    python = externally_managed_python(tmp_path / "system")
    refused = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "click"], capture_output=True, text=True
    )
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr
    (tmp_path / "runner").mkdir()
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "server.py").write_text(EXPOSED)
    outputs = tmp_path / "runner" / "outputs"
    runner = {
        "RUNNER_TEMP": str(tmp_path / "runner"),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_OUTPUT": str(outputs),
    }
    steps = {step["name"]: step for step in action()["runs"]["steps"]}
    inputs = {"paths": ".", "args": "--no-cache", "exit-zero": "false", "python-version": ""}

    install = run_step(
        steps["Install mcp-codemod"], inputs, tmp_path, path=str(python.parent), runner=runner
    )

    assert install.returncode == 0, install.stderr
    (command,) = re.findall(r"^command=(.*)$", outputs.read_text(), re.MULTILINE)
    assert Path(command).is_relative_to(tmp_path / "runner")
    check = run_step(
        steps["Check (annotations on the pull request)"],
        inputs,
        tmp_path / "project",
        command=Path(command),
        path=str(python.parent),
    )
    assert check.returncode == 1, check.stderr
    assert check.stdout.startswith("::error file=server.py,line=7,col=12,title=MCP001::")


@pytest.mark.skipif(
    not INSTALLED.exists(),
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
