"""A directory that cannot be listed is reported as a file that cannot be read is: its files
went unchecked, so the run is not clean."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import as_nobody, run_cli
from demo_servers import EXPOSED

CLEAN = EXPOSED.replace("str | None = None", "str")


def _tree(root: Path) -> None:
    (root / "locked").mkdir()
    (root / "locked" / "server.py").write_text(EXPOSED)
    (root / "clean.py").write_text(CLEAN)


def test_an_unlistable_directory_is_an_error_and_not_all_checks_passed(tmp_path, monkeypatch):
    # Root lists any directory, and CI runs as root: the refusal a user gets is injected here.
    _tree(tmp_path)
    scandir = os.scandir

    def refusing(path="."):
        if os.path.basename(os.path.normpath(path)) == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "locked: error: cannot read: Permission denied",
        "No issues found in the files checked.",
        "1 file could not be checked.",
    ]


def test_an_unreadable_directory_seen_by_a_user_who_cannot_list_it():
    nobody = as_nobody()
    if nobody is None:
        pytest.skip("needs root, setpriv and a Python that the user nobody can run")
    python, environment = nobody
    root = Path(tempfile.mkdtemp())
    try:
        root.chmod(0o755)
        _tree(root)
        (root / "clean.py").chmod(0o644)
        (root / "locked").chmod(0o000)
        run = subprocess.run(
            [*python, "-m", "mcp_codemod", "check", "--no-cache", "."],
            cwd=root,
            env=environment,
            capture_output=True,
            text=True,
        )
    finally:
        (root / "locked").chmod(0o755)
        shutil.rmtree(root)
    assert run.returncode == 1, run.stderr
    assert run.stdout.splitlines() == [
        "locked: error: cannot read: Permission denied",
        "No issues found in the files checked.",
        "1 file could not be checked.",
    ]
