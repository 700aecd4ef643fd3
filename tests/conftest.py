import ast
import contextlib
import importlib.util
import os
import re
import subprocess
import sys
import unicodedata
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codemod.cli import main
from mcp_codemod.engine import prefilter
from mcp_codemod.engine.file_io import decode

# fastmcp's dependencies (authlib) warn about themselves on import; recording swallows that noise,
# before any test module imports it.
with warnings.catch_warnings(record=True), contextlib.suppress(ModuleNotFoundError):
    import fastmcp  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# `CODE parameter`, or `CODE server` for a finding about a server.
_EXPECT = re.compile(r"expect: ((?:MCP\d{3} \w+(?:, )?)+)")


def expected_findings(directory: Path) -> set[tuple[str, int, str, str]]:
    """The `# expect: CODE parameter` comments of the fixture servers: (file, line, code, name)."""
    expected = set()
    for path in sorted(directory.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = _EXPECT.search(line)
            if match:
                for item in match.group(1).split(", "):
                    code, name = item.split()
                    expected.add((path.relative_to(directory).as_posix(), number, code, name))
    return expected


@pytest.fixture
def fixtures_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture servers."""
    import shutil

    target = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def run_cli(*args: str, cwd: Path):
    """`mcp-codemod ARGS` run in `cwd`, in this process."""
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(previous)


def candidate_by_definition(data: bytes) -> bool:
    """What `prefilter.is_candidate` answers, from the prefilter's words and patterns each searched
    over the whole file: in its bytes, then, when it is not ASCII and not in NFKC form, in its
    normalized text (Python reads identifiers so). Raises SourceError as the prefilter does."""
    patterns = (
        prefilter.TOOL_ATTRIBUTE,
        prefilter.TOOLS_KEYWORD,
        prefilter.EXEC_FILE,
        prefilter.SERVER_MADE,
    )
    if any(word.encode() in data for word in prefilter.CANDIDATE_WORDS) or any(
        re.search(pattern.encode(), data) for pattern in patterns
    ):
        return True
    if data.isascii():
        return False
    text = decode(data).text
    normalized = unicodedata.normalize("NFKC", text)
    return normalized != text and (
        any(word in normalized for word in prefilter.CANDIDATE_WORDS)
        or any(re.search(pattern, normalized) for pattern in patterns)
    )


def modules_added_by(script: str) -> set[str]:
    """The modules that running `script` in a fresh interpreter loads beyond what the same
    interpreter loads by itself (some interpreters import `tempfile` or `re` at start-up)."""
    report = "\nimport sys\nprint(*sorted(sys.modules))\n"

    def loaded(code: str) -> set[str]:
        result = subprocess.run(
            [sys.executable, "-c", code + report], capture_output=True, text=True, check=True
        )
        return set(result.stdout.splitlines()[-1].split())

    return loaded(script) - loaded("")


_MISSING_SDK = [
    name for name in ("mcp", "fastmcp", "pydantic") if importlib.util.find_spec(name) is None
]
_SKIP_REASON = (
    f"needs {', '.join(_MISSING_SDK)}: install an SDK environment "
    "(pip install -e '.[test,mcp1]' or '.[test,mcp2]')"
)


def _declares_sdk(module_path: Path) -> bool:
    """Whether a test module's `pytestmark` holds `pytest.mark.sdk`, read from its text: such a
    module may import an SDK at its top, so it cannot be imported to ask."""
    tree = ast.parse(module_path.read_bytes())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            return any(ast.unparse(mark) == "pytest.mark.sdk" for mark in ast.walk(node.value))
    return False


class _SkippedModule(pytest.Module):
    def collect(self):
        pytest.skip(_SKIP_REASON)


# Tests that run a real server are marked `sdk`: without an SDK they are skipped, with the reason
# (a module so marked is not even imported).
@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent):
    if _MISSING_SDK and module_path.name.startswith("test_") and _declares_sdk(module_path):
        return _SkippedModule.from_parent(parent, path=module_path)
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if _MISSING_SDK:
        for item in items:
            if item.get_closest_marker("sdk"):
                item.add_marker(pytest.mark.skip(reason=_SKIP_REASON))


def as_nobody() -> tuple[list[str], dict[str, str]] | None:
    """A command prefix that runs this package's Python as the user `nobody`, and its
    environment; None where the machine does not allow it (not root, no setpriv, no Python that
    user can run). For the behaviour a non-root user gets: CI runs the tests as root."""
    import shutil
    import subprocess
    import sys

    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    import mcp_codemod

    site = [path for path in sys.path if path.endswith("site-packages")]
    package = str(Path(mcp_codemod.__file__).parent.parent)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([package, *site])}
    command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    for python in (sys.executable, shutil.which("python3")):
        if python is None:
            continue
        probe = subprocess.run(
            [*command, python, "-c", "import click, mcp_codemod"],
            env=environment,
            capture_output=True,
            cwd="/",
        )
        if probe.returncode == 0:
            return [*command, python], environment
    return None
