"""The fix workflow (`mcp_codemod.fix_workflow`), driven as the command line and the language
server drive it: the plan from `api.fix_paths`, then the writes, the rounds, the check after the
fixes, the runtime names the fixed code imports, and the counts, all returned as data."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from demo_servers import EXPOSED, server_module, tool

from mcp_codemod import api, fix_workflow

# One safe fix (`query`) and one unsafe (`raw`, unannotated), whose marker makes an untyped
# schema node that a second round fixes.
TWO_ROUNDS = server_module(tool("store", "raw, query", returns="str(raw)"))
OPTIONS = api.Options(cache=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fixed(paths=(".",), *, write: bool, unsafe_fixes: bool = False) -> fix_workflow.FixRun:
    outcome = api.fix_paths(paths, OPTIONS, unsafe_fixes=unsafe_fixes)
    return fix_workflow.apply_fixes(outcome, paths, OPTIONS, write=write, unsafe_fixes=unsafe_fixes)


def test_a_dry_run_writes_nothing_and_checks_the_fixed_text_in_place_of_the_file(project):
    (project / "server.py").write_text(EXPOSED)
    run = fixed(write=False)
    assert (project / "server.py").read_text() == EXPOSED
    assert run.error is None and run.write_failures == ()
    assert run.after is not None and run.after.findings == ()
    assert [change.path for change in run.changed] == ["server.py"]
    assert run.summary == fix_workflow.FixSummary(
        write=False,
        fixed=1,
        partly=0,
        files=1,
        unimportable=False,
        guard_modules=(),
        incomplete=0,
        left=0,
        hidden=0,
    )


def test_what_a_fix_leaves_comes_with_the_step_that_fixes_it(project):
    (project / "server.py").write_text(TWO_ROUNDS)
    run = fixed(write=False)
    [(finding, step)] = run.remaining
    assert (finding.code, finding.parameter) == ("MCP001", "raw")
    assert "--unsafe-fixes" in step
    assert run.summary is not None
    assert (run.summary.fixed, run.summary.left, run.summary.hidden) == (1, 1, 1)


def test_writing_fixes_again_what_the_fixes_made_fixable(project):
    (project / "server.py").write_text(TWO_ROUNDS)
    run = fixed(write=True, unsafe_fixes=True)
    # The first round marks both parameters; the second types the `Any` the first one wrote.
    assert [(change.path, change.fixes) for change in run.changed] == [
        ("server.py", 2),
        ("server.py", 1),
    ]
    text = (project / "server.py").read_text()
    assert "raw: Annotated[Any, NoPreParse, TypedSchema]" in text
    assert run.after is not None and run.after.findings == () and run.remaining == ()
    assert run.summary is not None and (run.summary.fixed, run.summary.files) == (3, 1)


@pytest.fixture
def parses_of(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text `ast.parse` is given in this process that holds a function (a module's, not
    an annotation's)."""
    seen: list[str] = []
    parse = ast.parse

    def counting(source, *args, **kwargs):
        if isinstance(source, str) and "def " in source:
            seen.append(source)
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    return seen


@pytest.mark.parametrize(
    ("text", "unsafe_fixes", "rounds", "parses"),
    [(EXPOSED, False, 1, 2), (TWO_ROUNDS, True, 2, 4)],
)
def test_fix_write_parses_the_users_text_once_and_each_fixed_text_once_a_round(
    project, parses_of, text: str, unsafe_fixes: bool, rounds: int, parses: int
):
    """`fix --write` parses the user's text for the first check, whose tree the fixer takes (the
    imports its edits need), and each fixed text once, to prove that it parses: the next round
    and the check after the fixes take that text's scan, made from the same tree (a later
    round's fixer parses the text it edits: its check parsed nothing), and the confirmation
    that the fixed code imports reads the fixer's trees."""
    (project / "server.py").write_text(text)
    outcome = api.fix_paths(["."], OPTIONS, unsafe_fixes=unsafe_fixes, rechecked=True)
    run = fix_workflow.apply_fixes(outcome, ["."], OPTIONS, write=True, unsafe_fixes=unsafe_fixes)
    assert run.after is not None and run.after.findings == () and run.unimportable == ()
    assert len(run.changed) == rounds
    texts = {text, *(change.fixed for change in run.changed)}
    assert len([source for source in parses_of if source in texts]) == parses
    # Without the scans kept, the same result, from more parses.
    (project / "server.py").write_text(text)
    parses_of.clear()
    alone = fixed(write=True, unsafe_fixes=unsafe_fixes)
    assert alone.after == run.after and alone.changed == run.changed
    assert len([source for source in parses_of if source in texts]) > parses


def test_a_file_changed_since_the_plan_is_a_failure_of_its_own_and_stays_as_edited(project):
    (project / "server.py").write_text(EXPOSED)
    outcome = api.fix_paths(["."], OPTIONS)
    edited = EXPOSED + "\n# edited meanwhile\n"
    (project / "server.py").write_text(edited)
    run = fix_workflow.apply_fixes(outcome, ["."], OPTIONS, write=True)
    [failure] = run.write_failures
    assert failure.path == "server.py"
    assert (project / "server.py").read_text() == edited
    assert run.error is None and run.changed == ()
    assert run.summary is not None and run.summary.files == 0


def test_the_writes_happen_inside_what_the_caller_enters_around_them(project):
    (project / "server.py").write_text(TWO_ROUNDS)
    entered = []

    class Recorder:
        def __enter__(self):
            entered.append((project / "server.py").read_text())

        def __exit__(self, *_exception):
            return False

    outcome = api.fix_paths(["."], OPTIONS, unsafe_fixes=True)
    fix_workflow.apply_fixes(
        outcome, ["."], OPTIONS, write=True, unsafe_fixes=True, while_writing=Recorder
    )
    # Once around the first round's writes, once around the second's, never for the check.
    assert len(entered) == 2
    assert entered[0] == TWO_ROUNDS and entered[1] != TWO_ROUNDS


def test_a_buffer_is_fixed_in_memory_and_what_is_left_is_said(project):
    buffer = (Path("server.py"), TWO_ROUNDS.encode())
    result = fix_workflow.fix_buffer(buffer, OPTIONS)
    assert not (project / "server.py").exists()
    assert result.change is not None and result.fixed == 1
    assert "NoPreParse" in result.change.fixed
    assert [finding.parameter for finding in result.left] == ["raw"]
    assert result.failures == () and result.unimportable == ()


def test_a_runtime_name_that_does_not_exist_is_one_line():
    [line] = fix_workflow.missing_runtime_names(
        [("server.py", "", "from mcp_codemod.runtime import NoSuchMarker\n")],
        {"mcp_codemod.runtime"},
    )
    assert line.startswith("server.py:1:") and "`NoSuchMarker`" in line
