"""`fix --write` stopped by SIGTERM or SIGHUP leaves no temporary file, as Ctrl-C does."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from demo_servers import EXPOSED as SERVER

# The signal arrives while the fixed text sits in its temporary file, before the rename: the
# write flushes it to disk then (os.fsync), so that is where this run sends it to itself.
INTERRUPTED_FIX = """\
import os, signal, sys
from mcp_codemod.cli import main

# Ctrl-C as in a terminal, whatever this process inherited: a background job starts with SIGINT
# ignored, and then Python installs no handler for it.
signal.signal(signal.SIGINT, signal.default_int_handler)

def fsync(descriptor):
    os.kill(os.getpid(), signal.{name})

os.fsync = fsync
sys.argv = ["mcp-codemod", "fix", "--write", "--no-cache", "."]
main()
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_during_the_write_leaves_the_tree_as_it_was(tmp_path, name):
    (tmp_path / "server.py").write_text(SERVER)
    run = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_FIX.format(name=name)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    if name != "SIGINT":
        assert run.returncode == 128 + getattr(signal, name), run.stderr
    assert "Traceback" not in run.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["server.py"]
    assert (tmp_path / "server.py").read_text() == SERVER
