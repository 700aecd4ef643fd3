"""Generated code: files exec'd into a server module, and tools whose signature a factory
generates. What `check` follows exactly, and what stays unchecked with the kind that says why
(tests/analysis/scan/test_exec_files.py and tests/analysis/link/test_unchecked_tools.py compare the
fixtures with the probe)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.engine.checker import check_files
from mcp_codemod.rules import select_rules

SERVER = 'import os\n\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'
TOOLS = """\
@mcp.tool()
def search(query: str | None = None) -> str:
    return query or ""
"""
# A factory that returns a function whose signature it assigns.
FACTORY = """\
import inspect


def make(name: str):
    def tool(**arguments) -> str:
        return repr(arguments)

    tool.__signature__ = inspect.Signature()
    return tool
"""


def check(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(dedent(text))
    return check_files([tmp_path / name for name in files], select_rules(None, []))


def found(result) -> set[tuple[str, str]]:
    return {(Path(f.path).name, f.tool, f.parameter) for f in result.findings if f.code == "MCP001"}


def unchecked(result) -> list[tuple[str, int, Unchecked]]:
    return sorted((Path(u.path).name, u.line, u.kind) for u in result.unchecked)


# ---- files exec'd into the module ---------------------------------------------------------------


@pytest.mark.parametrize(
    "statements",
    [
        'exec(open(os.path.join(os.path.dirname(__file__), "tools.py")).read())',
        'HERE = os.path.dirname(os.path.abspath(__file__))\nTOOLS_PY = os.path.join(HERE, "tools.py")\n'
        'exec(compile(open(TOOLS_PY, encoding="utf-8").read(), TOOLS_PY, "exec"))',
        'from pathlib import Path\nexec((Path(__file__).resolve().parent / "tools.py").read_text())',
    ],
)
def test_a_file_read_and_execd_is_checked_on_the_modules_server(tmp_path, statements):
    result = check(tmp_path, {"server.py": SERVER + statements + "\n", "tools.py": TOOLS})
    assert found(result) == {("tools.py", "search", "query")}
    assert unchecked(result) == []
    [finding] = result.findings
    assert finding.fix is not None and finding.fix.markers  # the file is the source: marked


def test_a_file_the_module_writes_before_it_execs_it_is_checked_and_left_unmarked(tmp_path):
    generator = """\
        GENERATED_PY = os.path.join(os.path.dirname(os.path.realpath(__file__)), "tools.py")
        code = "@mcp.tool()\\ndef search(query: str | None = None) -> str:\\n    return ''\\n"
        with open(GENERATED_PY, "wb") as f:
            f.write(code.encode("utf-8"))
        exec(compile(code, GENERATED_PY, "exec"))
        """
    result = check(tmp_path, {"server.py": SERVER + dedent(generator), "tools.py": TOOLS})
    assert found(result) == {("tools.py", "search", "query")}
    [finding] = result.findings
    # Regenerated at each start: only the server swap, in the module.
    assert finding.fix is not None and not finding.fix.markers
    assert [Path(swap.path).name for swap in finding.fix.swaps] == ["server.py"]


@pytest.mark.parametrize(
    "generator",
    [
        # the text is rebound after it was written
        'P = os.path.join(os.path.dirname(__file__), "tools.py")\ncode = "x = 1"\n'
        'with open(P, "w") as f:\n    f.write(code)\ncode = code + "\\n"\nexec(compile(code, P, "exec"))',
        # a text the module never writes to the file
        'P = os.path.join(os.path.dirname(__file__), "tools.py")\n'
        'exec(compile("x = 1", P, "exec"))',
    ],
)
def test_another_text_compiled_under_the_files_name_leaves_its_tools_unchecked(tmp_path, generator):
    result = check(tmp_path, {"server.py": SERVER + generator + "\n", "tools.py": TOOLS})
    assert found(result) == set()
    assert unchecked(result) == [("tools.py", 1, Unchecked.EXEC_TEXT)]
    assert [f.code for f in result.findings] == ["MCP004"]  # the server is still known


@pytest.mark.parametrize(
    ("statement", "also_unchecked"),
    [
        ('exec(open("tools.py").read())', []),  # relative to the working directory
        # The namespace given to `exec` holds the server: a store the analysis does not follow.
        (
            'exec(open(os.path.join(os.path.dirname(__file__), "tools.py")).read(), {"mcp": mcp})',
            [("server.py", 6, Unchecked.UNKNOWN_USE)],
        ),
        (
            'P = os.path.join(os.path.dirname(__file__), "tools.py")\nP = "other.py"\n'
            "exec(open(P).read())",  # bound twice
            [],
        ),
        (
            'def load():\n    exec(open(os.path.join(os.path.dirname(__file__), "tools.py")).read())',
            [],
        ),
    ],
)
def test_an_exec_the_analysis_cannot_place_leaves_the_file_alone(
    tmp_path, statement, also_unchecked
):
    result = check(tmp_path, {"server.py": SERVER + statement + "\n", "tools.py": TOOLS})
    assert found(result) == set()
    # The text it runs, not known to be the file's, is an unchecked use of the server its
    # namespace holds; and the file's registration's server is unknown, but the tree builds one
    # pre-parsing server: it counts against it.
    exec_line = SERVER.count("\n") + statement.count("\n") + 1
    exec_text = ("server.py", exec_line, Unchecked.UNKNOWN_USE)
    assert unchecked(result) == [*also_unchecked, exec_text, ("tools.py", 1, Unchecked.UNTIED)]
    assert [f.code for f in result.findings] == ["MCP004"]


# ---- factories that generate the signature ------------------------------------------------------


@pytest.mark.parametrize(
    "registration",
    [
        'mcp.add_tool(make("a"))',
        'tool = make("a")\nmcp.add_tool(tool)',
        'for tool in [make("a"), make("b")]:\n    mcp.add_tool(tool)',
    ],
)
def test_a_tool_made_by_a_factory_that_sets_its_signature_is_generated(tmp_path, registration):
    result = check(tmp_path, {"server.py": SERVER + FACTORY + registration + "\n"})
    kinds = {kind for _, _, kind in unchecked(result)}
    assert kinds == {Unchecked.GENERATED_SIGNATURE}


def test_a_method_factory_registered_in_a_loop_is_generated(tmp_path):
    generator = """\
        import inspect


        class Generator:
            def __init__(self, mcp) -> None:
                self.mcp = mcp

            def register(self, operations) -> None:
                for operation in operations:
                    func = self.__create(operation)
                    if func is not None:
                        self.mcp.tool(description=func.__doc__)(func)

            def __create(self, operation):
                if not operation:
                    return None

                def function(**kwargs):
                    return kwargs

                function.__signature__ = inspect.Signature()
                return function


        generator = Generator(mcp)
        generator.register(load_operations())
        """
    result = check(tmp_path, {"server.py": SERVER + dedent(generator)})
    assert unchecked(result) == [("server.py", 17, Unchecked.GENERATED_SIGNATURE)]


def test_a_collection_of_factory_calls_in_another_module_is_generated(tmp_path):
    result = check(
        tmp_path,
        {
            "tools.py": FACTORY + 'TOOLS = [make("a"), make("b")]\n',
            "server.py": SERVER
            + "from tools import TOOLS\nfor tool in TOOLS:\n    mcp.add_tool(tool)\n",
        },
    )
    assert unchecked(result) == [("server.py", 8, Unchecked.GENERATED_SIGNATURE)] * 2


@pytest.mark.parametrize(
    "factory",
    [
        # it may return a function whose signature is the `def`'s
        FACTORY.replace("    return tool", "    return tool if name else len"),
        FACTORY.replace("    tool.__signature__ = inspect.Signature()\n", ""),
        # it may not give it one
        FACTORY.replace("    tool.__signature__", "    if name:\n        tool.__signature__"),
    ],
)
def test_a_factory_that_may_return_a_plain_function_is_not_a_generated_signature(tmp_path, factory):
    result = check(tmp_path, {"server.py": SERVER + factory + 'mcp.add_tool(make("a"))\n'})
    assert [kind for _, _, kind in unchecked(result)] == [Unchecked.NOT_FOUND]


def test_a_name_bound_to_calls_of_two_functions_is_not_followed(tmp_path):
    registration = 'tool = other("b")\ntool = make("a")\nmcp.add_tool(tool)\n'
    other = "def other(name: str):\n    def plain(x: str | None = None) -> str:\n        return ''\n\n    return plain\n"
    result = check(tmp_path, {"server.py": SERVER + FACTORY + other + registration})
    assert [kind for _, _, kind in unchecked(result)] == [Unchecked.NOT_FOUND]


def test_a_module_that_execs_a_file_with_an_imported_server_is_read(tmp_path):
    result = check(
        tmp_path,
        {
            "app.py": SERVER,
            "server.py": "import os\n\nfrom app import mcp\n\n"
            'exec(open(os.path.join(os.path.dirname(__file__), "tools.py")).read())\n',
            "tools.py": TOOLS,
        },
    )
    assert found(result) == {("tools.py", "search", "query")}


def test_the_execd_files_annotations_may_use_the_modules_names(tmp_path):
    tools = (
        "@mcp.tool()\ndef search(query: Query = None, limit: Limit = 1) -> str:\n    return ''\n"
    )
    statement = 'exec(open(os.path.join(os.path.dirname(__file__), "tools.py")).read())\n'
    module = SERVER + "from typing import Optional\nQuery = Optional[str]\nLimit = int\n"
    result = check(tmp_path, {"server.py": module + statement, "tools.py": tools})
    assert found(result) == {("tools.py", "search", "query")}


def test_a_file_that_two_modules_exec_is_not_followed(tmp_path):
    statement = 'exec(open(os.path.join(os.path.dirname(__file__), "tools.py")).read())\n'
    result = check(
        tmp_path,
        {"a.py": SERVER + statement, "b.py": SERVER + statement, "tools.py": TOOLS},
    )
    # Its server is unknown: it counts against each of the two the tree builds.
    assert unchecked(result) == [("tools.py", 1, Unchecked.UNTIED)]
    assert [f.code for f in result.findings] == ["MCP004", "MCP004"]


def test_a_factory_call_passed_to_a_registration_helper_is_generated(tmp_path):
    helper = "def register(name, fn):\n    mcp.tool(name=name)(fn)\n\n\n"
    calls = 'register("a", make("a"))\nregister("b", load("b"))\n'
    result = check(tmp_path, {"server.py": SERVER + FACTORY + helper + calls})
    assert [kind for _, _, kind in unchecked(result)] == [
        Unchecked.GENERATED_SIGNATURE,
        Unchecked.HELPER_PARAMETER,
    ]


@pytest.mark.parametrize(
    "shape",
    ["generated_signature", "generated_factory_method", "generated_adapter", "chained_generator"],
)
def test_the_generated_signature_fixtures_are_classified_so(shape):
    # tests/analysis/link/test_unchecked_tools.py runs the same servers against the probe.
    path = Path(__file__).resolve().parents[3] / "fixtures" / "unseen" / f"{shape}.py"
    result = check_files([path], select_rules(None, []))
    assert [kind for _, _, kind in unchecked(result)] == [Unchecked.GENERATED_SIGNATURE]


def test_a_file_in_the_modules_parent_folder_is_followed(tmp_path):
    statement = (
        "HERE = os.path.dirname(os.path.abspath(__file__))\n"
        'exec(open(os.path.join(os.path.dirname(HERE), "tools.py")).read())\n'
    )
    result = check(tmp_path, {"app/server.py": SERVER + statement, "tools.py": TOOLS})
    assert found(result) == {("tools.py", "search", "query")}
