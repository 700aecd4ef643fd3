"""`fix --write` replaces a file as its owner had it, or leaves it alone and says why."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import as_nobody, run_cli
from demo_servers import EXPOSED as SERVER


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="only root can give a file another owner (CI runs as root)",
)
def test_a_fixed_file_keeps_its_owner_group_and_mode_when_root_writes_it(tmp_path):
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    os.chown(path, 4242, 4343)
    path.chmod(0o640)
    result = run_cli("fix", "--write", "--no-cache", "server.py", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "NoPreParse" in path.read_text()
    status = path.stat()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (4242, 4343, 0o640)


def test_a_file_with_several_hard_links_is_left_alone_with_a_message(tmp_path):
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    os.link(path, tmp_path / "copy.txt")
    inode = path.stat().st_ino
    result = run_cli("fix", "--write", "--no-cache", "server.py", cwd=tmp_path)
    assert result.exit_code == 1
    assert "server.py: error: has 2 hard links, which a rewrite would split; left unchanged" in (
        result.output
    )
    assert path.read_text() == SERVER and (tmp_path / "copy.txt").read_text() == SERVER
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.txt", "server.py"]


def test_a_user_who_cannot_keep_the_owner_leaves_the_file_alone():
    """Run as `nobody` on root's world-writable file in a world-writable directory: the rename
    would make the file nobody's, so it is not done."""
    nobody = as_nobody()
    if nobody is None:
        pytest.skip("needs root, setpriv and a Python that the user nobody can run")
    python, environment = nobody
    root = Path(tempfile.mkdtemp())
    try:
        root.chmod(0o777)
        path = root / "server.py"
        path.write_text(SERVER)
        path.chmod(0o666)
        run = subprocess.run(
            [*python, "-m", "mcp_codemod", "fix", "--write", "--no-cache", "server.py"],
            cwd=root,
            env=environment,
            capture_output=True,
            text=True,
        )
        status = path.stat()
        assert run.returncode == 1, run.stderr
        assert run.stderr.splitlines()[0] == (
            "server.py: error: owned by 0:0, which this user cannot give a new file; left unchanged"
        )
        assert path.read_text() == SERVER and (status.st_uid, status.st_gid) == (0, 0)
        assert sorted(p.name for p in root.iterdir()) == ["server.py"]
    finally:
        shutil.rmtree(root)
