"""The pre-commit hooks, run by the real pre-commit on a throwaway repository.

`pre-commit try-repo` installs the hooks from this repository's HEAD (plus uncommitted changes to
tracked files, but not untracked files) into a fresh virtualenv on every run, with their
dependencies from the package index: these tests are marked `network`, and CI runs them in its
setup step (`pytest -m network`).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from demo_servers import EXPOSED, tools_module

ROOT = Path(__file__).resolve().parents[2]


pytestmark = [
    # pre-commit installs the hooks' dependencies from the package index.
    pytest.mark.network,
    pytest.mark.skipif(
        importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed"
    ),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(
        not (ROOT / ".git").exists(),
        reason=f"{ROOT} is not a git repository, and pre-commit try-repo installs hooks from one",
    ),
]


def environment(**extra: str) -> dict[str, str]:
    # Without the GIT_* variables a surrounding git hook sets (GIT_INDEX_FILE, GIT_DIR...), which
    # would point these git commands at the repository being committed to.
    kept = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return {**kept, **extra}


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    """Keeps pre-commit's database and log out of the user's cache, once for both hook runs.

    try-repo builds the hooks' environments in a temporary store of its own, not here.
    """
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path) -> Path:
    """A git repository whose one staged file is an mcp 1.x server with a `str | None` tool."""
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "server.py").write_text(EXPOSED, encoding="utf-8")
    for command in (["init", "--quiet"], ["add", "server.py"]):
        subprocess.run(["git", *command], cwd=repo, env=environment(), check=True)
    return repo


def try_repo(project: Path, hook: str, home: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--all-files"],
        cwd=project,
        env=environment(PRE_COMMIT_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    if "An error has occurred" in result.stdout + result.stderr:
        pytest.fail(f"pre-commit could not run {hook}:\n{result.stdout}{result.stderr}")
    return result


def test_check_hook_fails_the_commit_on_findings(project, pre_commit_home):
    result = try_repo(project, "mcp-codemod-check", pre_commit_home)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "mcp-codemod check" in result.stdout
    assert "Failed" in result.stdout
    assert "server.py:7:12: MCP001" in result.stdout
    assert (project / "server.py").read_text(encoding="utf-8") == EXPOSED


def test_fix_hook_rewrites_the_server_and_fails_the_commit(project, pre_commit_home):
    result = try_repo(project, "mcp-codemod-fix", pre_commit_home)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "files were modified by this hook" in result.stdout
    fixed = (project / "server.py").read_text(encoding="utf-8")
    assert "GuardedFastMCP" in fixed
    assert "query: Annotated[str | None, NoPreParse] = None" in fixed


def test_a_file_in_an_excluded_folder_does_not_block_the_commit(tmp_path, pre_commit_home):
    repo = tmp_path / "project"
    (repo / "generated").mkdir(parents=True)
    (repo / "generated" / "server.py").write_text(EXPOSED, encoding="utf-8")
    (repo / "pyproject.toml").write_text(
        '[tool.mcp-codemod]\nextend-exclude = ["generated"]\n', encoding="utf-8"
    )
    for command in (["init", "--quiet"], ["add", "generated/server.py", "pyproject.toml"]):
        subprocess.run(["git", *command], cwd=repo, env=environment(), check=True)

    result = try_repo(repo, "mcp-codemod-check", pre_commit_home)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


# ---- a fix that cannot be made blocks the commit until the code is protected ---------------------

SERVER_WITHOUT_TOOLS = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")
"""

ADMIN_TOOLS = tools_module()


IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.com")


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *IDENTITY, *args],
        cwd=repo,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )


def hook_verdicts(output: str) -> dict[str, str]:
    """pre-commit's `name.....Passed` lines, by hook name."""
    verdicts = {}
    for line in output.splitlines():
        for verdict in ("Passed", "Failed"):
            if line.endswith(verdict) and line.startswith("mcp-codemod"):
                verdicts[line.split(".")[0].strip()] = verdict
    return verdicts


@pytest.fixture
def committing_project(tmp_path, pre_commit_home) -> Path:
    """A git repository with both hooks installed from this repository's last commit (as a user's
    `.pre-commit-config.yaml` names them), and the server committed in server.py."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, env=environment(), capture_output=True, text=True
    ).stdout.strip()
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {head}\n  hooks:\n"
        "  - id: mcp-codemod-fix\n  - id: mcp-codemod-check\n",
        encoding="utf-8",
    )
    (repo / "server.py").write_text(SERVER_WITHOUT_TOOLS, encoding="utf-8")
    git(repo, "init", "--quiet")
    git(repo, "add", ".pre-commit-config.yaml", "server.py")
    assert git(repo, "commit", "--quiet", "-m", "server").returncode == 0
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=repo,
        env=environment(PRE_COMMIT_HOME=str(pre_commit_home)),
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return repo


def commit(repo: Path, home: Path, message: str) -> tuple[int, str]:
    result = subprocess.run(
        ["git", *IDENTITY, "commit", "--quiet", "-m", message],
        cwd=repo,
        env=environment(PRE_COMMIT_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    if "An error has occurred" in result.stdout + result.stderr:
        pytest.fail(f"pre-commit could not run the hooks:\n{result.stdout}{result.stderr}")
    return result.returncode, result.stdout + result.stderr  # git shows the hooks' output on stderr


def test_a_tool_whose_server_is_not_staged_blocks_the_commit_until_the_server_is_guarded(
    committing_project, pre_commit_home
):
    repo = committing_project
    (repo / "admin.py").write_text(ADMIN_TOOLS, encoding="utf-8")
    git(repo, "add", "admin.py")

    first_status, first_output = commit(repo, pre_commit_home, "admin tools")
    assert first_status == 1
    assert hook_verdicts(first_output) == {
        "mcp-codemod fix": "Failed",
        "mcp-codemod check": "Failed",
    }, first_output
    assert "Annotated[str | None, NoPreParse]" in (repo / "admin.py").read_text(encoding="utf-8")

    # The marker alone does not protect the parameter: the hooks keep failing, and `fix` names
    # the command that guards the server in the file that was not staged.
    git(repo, "add", "admin.py")
    second_status, second_output = commit(repo, pre_commit_home, "admin tools")
    assert second_status == 1
    assert hook_verdicts(second_output) == {
        "mcp-codemod fix": "Failed",
        "mcp-codemod check": "Failed",
    }, second_output
    command = "mcp-codemod fix --write admin.py server.py"
    assert (
        f"  help: its fix edits server.py, outside the given paths: `{command}`"
        in second_output.splitlines()
    ), second_output

    guarded = subprocess.run(
        [sys.executable, "-m", "mcp_codemod", *command.split()[1:]],
        cwd=repo,
        env=environment(),
        capture_output=True,
        text=True,
    )
    assert guarded.returncode == 0, guarded.stdout + guarded.stderr
    git(repo, "add", "admin.py", "server.py")
    third_status, third_output = commit(repo, pre_commit_home, "admin tools, guarded server")
    assert third_status == 0, third_output
    assert hook_verdicts(third_output) == {
        "mcp-codemod fix": "Passed",
        "mcp-codemod check": "Passed",
    }, third_output
