import subprocess
import sys


def test_runtime_imports_without_libcst_or_click() -> None:
    # Servers import the runtime; they have pydantic and mcp, not the codemod's dependencies.
    code = (
        "import sys; sys.modules['libcst'] = sys.modules['click'] = None; "
        "from mcp_codemod.runtime import AcceptWholeFloat, IntegerCoercingSession, NoPreParse, "
        "coerce_integer_arguments, guard, install, uninstall"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
