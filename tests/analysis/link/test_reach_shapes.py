"""Shapes that `check` follows exactly, and those it reports unchecked with the kind that says why
(tests/analysis/link/test_reach.py compares the main shapes with the probe on the real SDK)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.engine.checker import check_files
from mcp_codemod.rules import select_rules

SERVER = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n'


def server(body: str) -> str:
    return SERVER + dedent(body)


def check(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(dedent(text))
    return check_files([tmp_path / name for name in files], select_rules(None, []))


def found(result) -> set[tuple[str, str]]:
    return {(f.tool, f.parameter) for f in result.findings if f.code == "MCP001"}


def unchecked(result) -> list[tuple[int, Unchecked]]:
    return sorted((u.line, u.kind) for u in result.unchecked)


def test_a_star_import_brings_in_what_all_exports(tmp_path):
    runtime = SERVER + "Text = str | None\nHidden = str | None\n"
    result = check(
        tmp_path,
        {
            "runtime.py": runtime + '__all__ = ["mcp", "Text"]\n',
            "tools.py": """\
                from runtime import *


                @mcp.tool()
                def shown(q: Text = None) -> str:
                    return ""


                @mcp.tool()
                def hidden(q: Hidden = None) -> str:  # a NameError at import: not exported
                    return ""
                """,
        },
    )
    assert found(result) == {("shown", "q")}


def test_a_server_parameter_annotated_any_is_resolved_through_its_callers(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": server(
                """\
                from typing import Any


                def register(server: Any, other: object) -> None:
                    @server.tool()
                    def find(q: str | None = None) -> str:
                        return ""

                    other.add_tool(find)


                register(mcp, mcp)
                """
            ),
        },
    )
    assert found(result) == {("find", "q")}
    assert result.unchecked == ()
    assert result.findings[0].framework == "mcp1"


HANDLER = """\


class Handler:
    def __init__(self, server) -> None:
        self.server = server

    def prepared(self) -> "Handler":
        return self

    def register(self) -> None:
        @self.server.tool()
        def find(q: str | None = None) -> str:
            return ""


"""


CHAIN = "Handler(mcp).register()\n"


@pytest.mark.parametrize(
    "use",
    [
        CHAIN,
        "registered = Handler(mcp).register()",
        "Handler(server=mcp).prepared().register()",
        "async def main():\n    await Handler(mcp).register()",
        "def main():\n    return Handler(mcp).register()",
    ],
)
def test_a_server_passed_to_a_constructor_inside_a_chain_reaches_the_class(tmp_path, use):
    result = check(tmp_path, {"server.py": SERVER + HANDLER + use + "\n"})
    assert found(result) == {("find", "q")}
    assert result.unchecked == ()


def test_the_chain_that_passes_the_server_is_found_from_the_class_module(tmp_path):
    # Only the class's module is given: its callers are looked for in the project on disk.
    (tmp_path / "handlers.py").write_text(dedent(HANDLER))
    (tmp_path / "server.py").write_text(SERVER + "from handlers import Handler\n\n" + CHAIN)
    result = check_files([tmp_path / "handlers.py"], select_rules(None, []))
    assert found(result) == {("find", "q")}
    assert result.unchecked == ()


def test_a_helper_no_call_fills_is_unchecked(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": server(
                """\


                def register_tool(fn):
                    mcp.add_tool(fn)
                """
            ),
        },
    )
    assert unchecked(result) == [(7, Unchecked.HELPER_PARAMETER)]


def test_a_function_chosen_by_a_condition_is_unchecked_where_it_is_passed(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": server(
                """\
                import os


                def register_tool(fn):
                    mcp.add_tool(fn)


                def fast(q: str | None = None) -> str:
                    return ""


                def slow(q: str | None = None) -> str:
                    return ""


                register_tool(fast if os.environ.get("FAST") else slow)
                register_tool(slow)
                """
            ),
        },
    )
    assert found(result) == {("slow", "q")}
    assert unchecked(result) == [(19, Unchecked.HELPER_PARAMETER)]
    assert result.tools == 2


def test_a_collection_changed_in_place_is_built_at_run_time(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": server(
                """\


                def a(q: str | None = None) -> str:
                    return ""


                def b(q: str | None = None) -> str:
                    return ""


                tools = [a]
                tools.append(b)
                for tool in tools:
                    mcp.add_tool(tool)

                by_name = {"a": a, "b": b}
                for tool in by_name.values():
                    mcp.tool()(tool)
                """
            ),
        },
    )
    assert unchecked(result) == [(17, Unchecked.LOOP_VARIABLE)]
    assert found(result) == {("a", "q"), ("b", "q")}
    assert result.tools == 3


def test_a_generated_signature_in_another_module_is_unchecked(tmp_path):
    result = check(
        tmp_path,
        {
            "tools.py": """\
                def dynamic(**kwargs) -> str:
                    return ""
                """,
            "server.py": server(
                """\
                import inspect

                from tools import dynamic

                dynamic.__signature__ = inspect.Signature()
                mcp.add_tool(dynamic)
                """
            ),
        },
    )
    assert found(result) == set()
    assert unchecked(result) == [(9, Unchecked.GENERATED_SIGNATURE)]


def test_a_library_without_source_is_third_party(tmp_path):
    result = check(
        tmp_path,
        {"server.py": SERVER + "from no_such_library.tools import search\nmcp.add_tool(search)\n"},
    )
    assert unchecked(result) == [(5, Unchecked.THIRD_PARTY)]


def test_a_helper_names_each_tool_as_its_caller_says(tmp_path):
    # The probe (and every client) sees the name the helper registers, not the function's.
    result = check(
        tmp_path,
        {
            "server.py": server(
                """\
                import functools


                def _paginating(name, fn):
                    @functools.wraps(fn)
                    def wrapper(*args, **kwargs):
                        return fn(*args, **kwargs)

                    return wrapper


                def _register_tool(fn, name: str = ""):
                    mcp.tool(name=name)(_paginating(name, fn))


                def list_workflows(token: str | None = None) -> str:
                    return token or ""


                def get_run(run_id: str | None = None) -> str:
                    return run_id or ""


                _register_tool(list_workflows, "ListWorkflows")
                _register_tool(get_run, name="GetRun")
                """
            )
        },
    )
    assert found(result) == {("ListWorkflows", "token"), ("GetRun", "run_id")}


def test_a_helper_given_a_mapping_to_unpack_is_unchecked_there(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": server(
                """\


                def register_tool(fn):
                    mcp.add_tool(fn)


                def shown(q: str | None = None) -> str:
                    return ""


                register_tool(fn=shown)
                register_tool(**{"fn": shown})
                """
            ),
        },
    )
    assert found(result) == {("shown", "q")}
    assert unchecked(result) == [(15, Unchecked.HELPER_PARAMETER)]
    assert result.tools == 2


REGISTRY = """\
class Registry:
    def __init__(self, server):
        self.server = server

    def reader(self, title):
        return self._register(title)

    def _register(self, title):
        def decorate(function):
            self.server.tool(title=title)(function)
            return function

        return decorate
"""


def test_a_registry_decorator_not_applied_with_at_is_unchecked(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": SERVER
            + REGISTRY
            + dedent(
                """\


                tools = Registry(mcp)
                read = tools.reader("Read")


                def shown(q: str | None = None) -> str:
                    return ""


                read(shown)
                """
            ),
        },
    )
    assert found(result) == set()
    assert unchecked(result) == [(13, Unchecked.HELPER_PARAMETER)]


def test_a_registry_made_on_a_server_of_unknown_class_stays_unchecked(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": dedent(
                """\
                from company import make_server

                """
            )
            + REGISTRY
            + dedent(
                """\


                tools = Registry(make_server())


                @tools.reader("Read")
                def shown(q: str | None = None) -> str:
                    return ""
                """
            ),
        },
    )
    assert found(result) == set()
    assert unchecked(result) == [(12, Unchecked.UNKNOWN_FRAMEWORK)]


def test_a_registry_method_used_bare_is_followed_into_files_without_a_registration_word(tmp_path):
    result = check(
        tmp_path,
        {
            "server.py": server(
                """\


                class Registry:
                    def __init__(self, server):
                        self.server = server

                    def register(self, function):
                        self.server.tool()(function)
                        return function


                tools = Registry(mcp)


                @tools.register
                def here(q: str | None = None) -> str:
                    return ""
                """
            ),
            "other.py": """\
                from server import tools


                @tools.register
                def there(q: str | None = None) -> str:
                    return ""
                """,
        },
    )
    assert found(result) == {("here", "q"), ("there", "q")}
    assert result.unchecked == () and result.tools == 2
