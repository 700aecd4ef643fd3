"""No false all-clear when a registration is wrapped in a construct that hides it (a property):
every registration form below, on an mcp 1.x server that pre-parses, is reported as written;
wrapped in a decorator expression (PEP 614, each branch), given to `exec` / `eval` as text,
or with the tool's annotations or `__wrapped__` changed after its `def`, it is still reported
(a finding or an unchecked registration, never "All checks passed!"). So is every rule case
that is reported as written, wrapped in a decorator expression or given whole to `exec`.

Each variant of the forms is a module of its own in one tree, checked in one run, and judged by
what the run reports in its own file; each rule case's variant is a tree of its own (a
registration on a server of unknown framework counts against every server of a tree)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_codemod.api import Options, check_paths
from mcp_codemod.cli import main
from mcp_codemod.rules import RULES

HEADER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("t")
FLAG = True


def real(q: str | None = None) -> str:
    return ""


"""

# Every registration form: `{A}` is the tool parameter's annotation, `#AFTER` the place right
# after its `def` (where a later change of its annotations goes), `eval` the statement that
# registers, when it is an expression `eval` can run.
FORMS: dict[str, tuple[str, str | None]] = {
    "decorator": ('@mcp.tool()\ndef f(q: {A} = None) -> str:\n    return ""\n#AFTER\n', None),
    "named decorator": (
        '@mcp.tool(name="g")\ndef f(q: {A} = None) -> str:\n    return ""\n#AFTER\n',
        None,
    ),
    "call": (
        'def f(q: {A} = None) -> str:\n    return ""\n#AFTER\nmcp.tool()(f)\n',
        "mcp.tool()(f)",
    ),
    "add_tool": (
        'def f(q: {A} = None) -> str:\n    return ""\n#AFTER\nmcp.add_tool(f)\n',
        "mcp.add_tool(f)",
    ),
    "helper": (
        "def register(server):\n"
        '    def f(q: {A} = None) -> str:\n        return ""\n'
        "    #AFTER\n"
        "    server.tool()(f)\n\n\n"
        "register(mcp)\n",
        "register(mcp)",
    ),
    "loop": (
        'def f(q: {A} = None) -> str:\n    return ""\n#AFTER\nfor fn in [f]:\n    mcp.tool()(fn)\n',
        None,
    ),
    "method": (
        "class Tools:\n"
        "    def __init__(self, server):\n"
        "        server.tool()(self.f)\n\n"
        '    def f(self, q: {A} = None) -> str:\n        return ""\n\n'
        "    #AFTER\n\n\n"
        "Tools(mcp)\n",
        "Tools(mcp)",
    ),
}


def _branches(text: str) -> str:
    """Each `X.tool()` and `X.add_tool` as a decorator expression with two branches."""
    text = re.sub(
        r"(\w+(?:\.\w+)?)\.tool\(\)", r'(\1.tool() if FLAG else \1.tool(name="ro"))', text
    )
    return re.sub(r"(\w+)\.add_tool\(", r"(\1.add_tool if FLAG else \1.add_tool)(", text)


def _after(text: str, line: str) -> str:
    return re.sub(r"^( *)#AFTER$", lambda m: m.group(1) + line, text, flags=re.M)


def _plain(text: str) -> str:
    return _after(text.replace("{A}", "str | None"), "")


def _later(annotation: str, line: str):
    return lambda text: _after(text.replace("{A}", annotation), line)


# (name, the form's text → the wrapped text); None when the wrapper does not apply to the form.
WRAPPERS = {
    "decorator expression": lambda text, _eval: _branches(_plain(text)),
    "exec of literal text": lambda text, _eval: f"exec({_plain(text)!r})\n",
    "exec of a name": lambda text, _eval: f"CODE = {_plain(text)!r}\nexec(CODE)\n",
    "eval of literal text": lambda text, line: (
        None if line is None else _plain(text).replace(line, f"eval({line!r})")
    ),
    "annotations changed": lambda text, _eval: _later("int", 'f.__annotations__["q"] = str | None')(
        text
    ),
    "annotations updated": lambda text, _eval: _later(
        "int", "f.__annotations__.update(q=str | None)"
    )(text),
    "annotations set": lambda text, _eval: _later(
        "int", 'setattr(f, "__annotations__", {"q": str | None, "return": str})'
    )(text),
    "wrapped set": lambda text, _eval: _later("int", "f.__wrapped__ = real")(text),
}


def reported_files(root: Path) -> set[str]:
    """The files of the tree in which the run reports something: a finding or a registration
    it could not check."""
    _settings, result = check_paths([root], Options(cache=False))
    assert not result.errors, result.errors
    found = {Path(f.path).resolve().name for f in result.findings}
    found |= {Path(u.path).resolve().name for u in result.unprotected}
    return found


def _file_name(*parts: str) -> str:
    return "_".join(re.sub(r"\W+", "_", part) for part in parts) + ".py"


def test_every_form_as_written_is_reported(tmp_path: Path) -> None:
    for form, (text, _line) in FORMS.items():
        (tmp_path / _file_name(form)).write_text(HEADER + _plain(text))
    assert reported_files(tmp_path) == {_file_name(form) for form in FORMS}


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_no_wrapper_turns_a_form_into_an_all_clear(tmp_path: Path, wrapper: str) -> None:
    written = set()
    for form, (text, line) in FORMS.items():
        wrapped = WRAPPERS[wrapper](text, line)
        if wrapped is None:
            continue
        name = _file_name(form, wrapper)
        (tmp_path / name).write_text(HEADER + wrapped)
        written.add(name)
    assert written
    assert written - reported_files(tmp_path) == set()


@pytest.mark.parametrize(
    "source",
    [
        # Each of the hostile cases as the issue found it (`check` said "All checks passed!").
        '@(mcp.tool() if __debug__ else mcp.tool(name="f_ro"))\n'
        'def f(q: str | None = None) -> str:\n    return ""\n',
        'exec("""\n@mcp.tool()\ndef f(q: str | None = None) -> str:\n    return ""\n""")\n',
        'eval("mcp.tool()(real)")\n',
        'def f(q: int = 0) -> str:\n    return ""\n\n\n'
        'f.__annotations__["q"] = str | None\nmcp.tool()(f)\n',
        'def f(q: int = 0) -> str:\n    return ""\n\n\nf.__wrapped__ = real\nmcp.tool()(f)\n',
    ],
    ids=["decorator expression", "exec", "eval", "annotations", "wrapped"],
)
def test_a_hidden_registration_is_no_all_clear(tmp_path: Path, monkeypatch, source: str) -> None:
    (tmp_path / "server.py").write_text(
        HEADER.replace(" = None) -> str:", " = 0) -> str:") + source
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "server.py"])
    assert result.exit_code == 1, result.output
    assert "All checks passed!" not in result.output
    assert "server.py:" in result.output


# The wrappers that apply to a whole module.
WHOLE_MODULE = {
    "decorator expression": _branches,
    "exec of literal text": lambda text: f"exec({text!r})\n",
    "exec of a name": lambda text: f"CODE = {text!r}\nexec(CODE)\n",
}
CASES = {
    f"{rule.code}-{index}": case.source
    for rule in RULES
    for index, case in enumerate(rule.cases)
    if ".tool" in case.source or "add_tool" in case.source
}


@pytest.mark.parametrize("wrapper", WHOLE_MODULE)
def test_no_wrapper_turns_a_reported_rule_case_into_an_all_clear(tmp_path: Path, wrapper) -> None:
    silenced = []
    for label, source in CASES.items():
        plain = tmp_path / label / "plain"
        plain.mkdir(parents=True)
        (plain / "server.py").write_text(source)
        if not reported_files(plain):
            continue  # a valid case: nothing to lose
        wrapped = tmp_path / label / "wrapped"
        wrapped.mkdir()
        (wrapped / "server.py").write_text(WHOLE_MODULE[wrapper](source))
        if not reported_files(wrapped):
            silenced.append(label)
    assert silenced == []


def test_text_that_cannot_register_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "server.py").write_text(
        HEADER.replace("str | None = None", "int = 0")
        + 'exec("print(1)")\nTOTAL = eval("1 + 2")\nexec(compile("x = 1", "<text>", "exec"), {})\n'
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "server.py"])
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.output
