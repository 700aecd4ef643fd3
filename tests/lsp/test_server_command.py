"""`mcp-codemod server` where pygls is not installed: one line and exit 2 (this test needs no
pygls, so it runs in every environment)."""

from __future__ import annotations

import subprocess
import sys

# The console script's entry point, with pygls made unimportable as if it were not installed.
WITHOUT_PYGLS = (
    "import sys; sys.modules['pygls'] = None; sys.argv = ['mcp-codemod', 'server']; "
    "from mcp_codemod.cli import run; run()"
)


def test_without_pygls_the_server_says_how_to_install_it_in_one_line():
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_PYGLS], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "mcp-codemod: error: the language server needs pygls: install mcp-codemod with its "
        "`lsp` extra\n"
    )
