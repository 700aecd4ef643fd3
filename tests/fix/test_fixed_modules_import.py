"""`fix --write` leaves a program that still runs: every module it touches imports afterwards.

Each case is a module (or a small tree) that once imported before the fix and raised on import
after it: an import placed after the use of its name on a one-line compound statement, an import
reused though it runs after the use or was deleted, a server class import removed though another
module imports it from there. The fixed modules are imported in a fresh interpreter with the
installed SDK, as the user's program would import them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
import sdk
from conftest import run_cli

from mcp_codemod.fix.imports.placement import KEPT_FOR_OTHERS

pytestmark = pytest.mark.sdk

TOOL = """\
@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
"""


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sdk.for_installed_sdk(dedent(text)), encoding="utf-8")


def fix(root: Path, *args: str) -> str:
    result = run_cli("fix", "--write", "--no-cache", *args, cwd=root)
    assert result.exit_code == 0, result.output
    return result.output


IMPORT_EACH = """\
import importlib, json, sys, traceback
errors = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except BaseException:
        errors[name] = traceback.format_exc(limit=-2)
print(json.dumps(errors))
"""


def import_errors(root: Path, modules: list[str]) -> dict[str, str]:
    """Why each of `modules` fails to import in a fresh interpreter (from `root`); the modules
    that import are not in it."""
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH, *modules],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


# ---- every use follows its import -------------------------------------------------------------

PLACED = {
    # A server built on the line of its class's import: the guarded class's import cannot go
    # on the next line.
    "same_line": 'from mcp.server.fastmcp import FastMCP; mcp = FastMCP("t")\n\n\n' + TOOL,
    # ... after the docstring, or after `from __future__`, which must stay first.
    "after_docstring": '"""Doc."""; from mcp.server.fastmcp import FastMCP; mcp = FastMCP("t")'
    + "\n\n\n"
    + TOOL,
    "after_future": "from __future__ import annotations; from mcp.server.fastmcp import FastMCP; "
    'mcp = FastMCP("t")\n\n\n' + TOOL,
    # An import of the runtime below the line that builds the server: not merged into.
    "runtime_import_below": 'from mcp.server.fastmcp import FastMCP; mcp = FastMCP("t")\n'
    "from mcp_codemod.runtime import AcceptWholeFloat\n\n\n" + TOOL,
    # The use in a one-line `if`.
    "one_line_if": 'if True: from mcp.server.fastmcp import FastMCP; mcp = FastMCP("t")\n\n\n'
    + TOOL,
    # `Annotated` imported only after the tool whose marker needs it.
    "imported_late": 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("t")\n\n\n'
    + TOOL
    + "\n\nfrom typing import Annotated\n",
}

# Each unbinds `Annotated` (imported from typing above) before the tool.
UNBINDINGS = {
    "deleted": "del Annotated",
    "except_as": "try:\n    pass\nexcept Exception as Annotated:\n    pass",
    "match_capture": "match 1:\n    case Annotated:\n        pass",
    "walrus": "if (Annotated := None):\n    pass",
    "global": "def forget():\n    global Annotated\n    Annotated = None\n\n\nforget()",
}
UNBOUND = {
    f"unbound_{name}": (
        "from typing import Annotated\n\nfrom mcp.server.fastmcp import FastMCP\n\n"
        f'mcp = FastMCP("t")\nLABEL = Annotated[str, "label"]\n{unbinding}\n\n\n{TOOL}'
    )
    for name, unbinding in UNBINDINGS.items()
}


@pytest.fixture(scope="module")
def fixed_cases(tmp_path_factory) -> tuple[Path, dict[str, str], dict[str, str]]:
    """The cases above as modules of one tree, fixed once: the tree, and each module's import
    errors before and after the fix."""
    root = tmp_path_factory.mktemp("cases")
    cases = {**PLACED, **UNBOUND}
    write_tree(root, {f"{name}.py": text for name, text in cases.items()})
    before = import_errors(root, list(cases))
    fix(root, ".")
    return root, before, import_errors(root, list(cases))


@pytest.mark.parametrize("case", PLACED)
def test_every_name_the_fix_spells_is_imported_before_it_is_used(fixed_cases, case):
    root, before, after = fixed_cases
    assert case not in before
    fixed = (root / f"{case}.py").read_text(encoding="utf-8")
    # A server built in a branch (`one_line_if`) is passed through `guard()` (docs/fix.md).
    assert "NoPreParse]" in fixed and ("= Guarded" in fixed or "= guard(" in fixed)
    assert case not in after, after[case]


# ---- a name deleted or rebound is not reused --------------------------------------------------


@pytest.mark.parametrize("case", UNBOUND)
def test_a_name_deleted_or_rebound_before_the_tool_is_not_reused(fixed_cases, case):
    root, before, after = fixed_cases
    assert case not in before
    fixed = (root / f"{case}.py").read_text(encoding="utf-8")
    assert "_Annotated[str | None, NoPreParse]" in fixed
    assert case not in after, after[case]


# ---- a shared alias keeps its meaning -----------------------------------------------------------


def test_a_shared_alias_keeps_its_meaning_elsewhere_only_the_parameter_is_marked(tmp_path):
    """`Count = StrictInt` also types a model that must go on refusing 5.0; the tool's
    parameter alone accepts it after the fix."""
    write_tree(
        tmp_path,
        {
            "types_.py": """\
                from typing import Optional

                from pydantic import BaseModel, StrictInt

                Count = StrictInt
                Text = Optional[str]


                class Page(BaseModel):
                    size: Count
                    title: Text = None
                """,
            "server.py": """\
                from mcp.server.fastmcp import FastMCP

                from types_ import Count, Text

                mcp = FastMCP("t")


                @mcp.tool()
                def page(size: Count, title: Text = None) -> str:
                    return f"{size} {title}"
                """,
        },
    )
    aliases = (tmp_path / "types_.py").read_text(encoding="utf-8")

    fix(tmp_path, ".")

    assert (tmp_path / "types_.py").read_text(encoding="utf-8") == aliases
    server = (tmp_path / "server.py").read_text(encoding="utf-8")
    assert (
        "def page(\n    size: Annotated[Count, AcceptWholeFloat], title: Annotated[Text, " in server
    )
    check = """\
import pydantic
import types_
from mcp_codemod.probe.server_probe import probe_server

from server import mcp

try:
    types_.Page(size=5.0)
except pydantic.ValidationError:
    pass
else:
    raise SystemExit("the model now accepts 5.0")
problems = [(p.tool, p.parameter, p.sent) for p in probe_server(mcp).problems]
if problems:
    raise SystemExit(f"the tool still mangles: {problems}")
"""
    (tmp_path / "verdicts.py").write_text(check, encoding="utf-8")
    assert import_errors(tmp_path, ["verdicts"]) == {}


# ---- an import other modules take from the fixed one is kept ----------------------------------

SERVER_CLASS = "FastMCP" if sdk.MCP_MAJOR < 2 else "MCPServer"
SERVER = f'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("t")\n\n\n{TOOL}'
# Each server module with the modules that take its server class from it (the class spelled
# `Server` here, as the installed SDK names it).
TAKEN = {
    "imported": {"imported_client.py": "from imported import Server\n"},
    "attribute": {"attribute_client.py": "import attribute\n\nKIND = attribute.Server\n"},
    "pkg/relative": {"pkg/relative_client.py": "from .relative import Server\n"},
    "pkg/submodule": {
        "pkg/submodule_client.py": "from pkg import submodule\n\nKIND = submodule.Server\n"
    },
    "starred": {"starred_client.py": "from starred import *\n\nKIND = Server\n"},
    # Handed on: a module star-imports the server's, another imports the class from that one.
    "handed": {
        "handed_hub.py": "from handed import *  # noqa: F403\n",
        "handed_client.py": "from handed_hub import Server\n",
    },
}
# Modules that take nothing of the server class from the server's: its import goes.
NOT_TAKEN = {
    "alone": {},
    "exported": {"exported_client.py": "from exported import *\n\nKIND = 1\n"},
    # `__all__` leaves the class out of what a star import brings.
    "listed": {"listed_client.py": "from listed import *\n\nKIND = mcp\n"},
}


def test_an_import_another_module_takes_from_the_fixed_one_is_kept(tmp_path):
    files = {"pyproject.toml": "", "pkg/__init__.py": ""}
    for server, others in {**TAKEN, **NOT_TAKEN}.items():
        source = SERVER
        if server == "listed":
            source = source.replace('mcp = FastMCP("t")', '__all__ = ["mcp"]\nmcp = FastMCP("t")')
        files[f"{server}.py"] = source
        files.update({name: text.replace("Server", SERVER_CLASS) for name, text in others.items()})
    write_tree(tmp_path, files)
    modules = [name.removesuffix(".py").replace("/", ".") for name in files if name.endswith(".py")]
    modules.remove("pkg.__init__")
    assert import_errors(tmp_path, modules) == {}

    # Only the servers are given, as pre-commit passes the staged files.
    fix(tmp_path, *(f"{server}.py" for server in {**TAKEN, **NOT_TAKEN}))

    assert import_errors(tmp_path, modules) == {}
    for server in TAKEN:
        fixed = (tmp_path / f"{server}.py").read_text(encoding="utf-8")
        assert f"import {SERVER_CLASS}  {KEPT_FOR_OTHERS}" in fixed, server
    for server in NOT_TAKEN:
        fixed = (tmp_path / f"{server}.py").read_text(encoding="utf-8")
        assert f"import {SERVER_CLASS}" not in fixed, server
    # The kept import is unused where it stands: ruff's F401 is told why.
    servers = [f"{server}.py" for server in {**TAKEN, **NOT_TAKEN}]
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F401", *servers],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout
