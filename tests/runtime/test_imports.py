import ast
import subprocess
import sys

import pytest

from mcp_codemod.fix.guard_module import RUNTIME_DIRECTORY, guard_module_text

pytestmark = pytest.mark.sdk


def test_runtime_imports_without_libcst_or_click() -> None:
    # Servers import the runtime; they have pydantic and mcp, not the codemod's dependencies.
    code = (
        "import sys; sys.modules['libcst'] = sys.modules['click'] = None; "
        "from mcp_codemod.runtime import AcceptWholeFloat, IntegerCoercingSession, NoPreParse, "
        "coerce_integer_arguments, guard, install, uninstall"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def imported_modules(text: str) -> set[str]:
    """The top-level modules a source imports (relative imports are its own package)."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


ALLOWED = {"pydantic", "pydantic_core", "mcp"}  # what the server already depends on


def test_runtime_and_its_generated_copy_import_only_the_standard_library_pydantic_and_the_sdk():
    sources = [path.read_text(encoding="utf-8") for path in RUNTIME_DIRECTORY.glob("*.py")]
    for text in [*sources, guard_module_text()]:
        outside = imported_modules(text) - set(sys.stdlib_module_names) - ALLOWED
        assert outside == set()
