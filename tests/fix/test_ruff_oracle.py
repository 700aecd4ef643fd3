"""Fixed code passes the user's `ruff format --check` and `ruff check` wherever the input did.

ruff itself is the oracle: a tree of inputs (the fixtures, every rule case, the corpus subset)
is checked at several line lengths before and after `fix --write --unsafe-fixes`, and no file
may fail afterwards that passed before. The lint rules are the ones a fix can break: `E501` (a
longer line), `I` (the imports it adds) and `F` (an import it leaves unused, a name it shadows).
The other rule families judge code the fix does not write (naming, complexity, bugbear's
patterns) or are `ruff format`'s business, which is checked whole.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import run_cli

from mcp_codemod.rules import RULES
from mcp_codemod.rules.model import Invalid, Valid

ROOT = Path(__file__).resolve().parents[2]
LINE_LENGTHS = (79, 88, 100, 120)
LINT = "E501,I,F"


def ruff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "--no-cache", "--output-format", "json", "."],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def failing(tree: Path) -> dict[str, Counter[str]]:
    """Each file that `ruff format --check` or `ruff check --select E501,I,F` rejects, with
    how often it gives each code (`unformatted` for the formatter)."""
    found: dict[str, Counter[str]] = {}
    for args in (("format", "--check"), ("check", "--select", LINT, "--exit-zero")):
        result = ruff(*args, cwd=tree)
        assert result.returncode in (0, 1), result.stderr
        for message in json.loads(result.stdout or "[]"):
            name = Path(message["filename"]).relative_to(tree).as_posix()
            found.setdefault(name, Counter())[message["code"]] += 1
    return found


def regressions(tree: Path) -> dict[str, Counter[str]]:
    """What `fix --write --unsafe-fixes` made ruff reject that it accepted before: per file,
    the codes given more often than before (a file already unformatted, or already with long
    lines, must not get more of them)."""
    before = failing(tree)
    run_cli("fix", "--write", "--unsafe-fixes", "--no-cache", ".", cwd=tree)
    after = failing(tree)
    new = {name: codes - before.get(name, Counter()) for name, codes in after.items()}
    return {name: codes for name, codes in new.items() if codes}


def inputs(tree: Path, line_length: int) -> None:
    (tree / "pyproject.toml").write_text(f"[tool.ruff]\nline-length = {line_length}\n")
    shutil.copytree(
        ROOT / "fixtures", tree / "fixtures", ignore=shutil.ignore_patterns("__pycache__")
    )
    cases = tree / "cases"
    cases.mkdir()
    for rule in RULES:
        for index, case in enumerate(rule.cases):
            kind = "invalid" if isinstance(case, Invalid) else "valid"
            assert isinstance(case, Invalid | Valid)
            (cases / f"{rule.code.lower()}_{kind}_{index}.py").write_text(case.source)


@pytest.mark.parametrize("line_length", LINE_LENGTHS)
def test_fixed_fixtures_and_rule_cases_pass_ruff_wherever_the_input_did(tmp_path, line_length):
    inputs(tmp_path, line_length)

    assert regressions(tmp_path) == {}


SERVER = """\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

mcp = FastMCP("demo")


@mcp.tool()
def search(query: str | None = None, page: StrictInt = 1, size: StrictInt = 10) -> str:
    return repr((query, page, size))
"""


def test_a_signature_made_too_long_is_split_as_ruff_format_splits_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 88\n")
    (tmp_path / "server.py").write_text(SERVER)

    run_cli("fix", "--write", "--no-cache", "server.py", cwd=tmp_path)

    assert (tmp_path / "server.py").read_text() == dedent(
        """\
        from typing import Annotated

        from mcp_codemod.runtime import AcceptWholeFloat, GuardedFastMCP, NoPreParse
        from pydantic import StrictInt

        mcp = GuardedFastMCP("demo")


        @mcp.tool()
        def search(
            query: Annotated[str | None, NoPreParse] = None,
            page: Annotated[StrictInt, AcceptWholeFloat] = 1,
            size: Annotated[StrictInt, AcceptWholeFloat] = 10,
        ) -> str:
            return repr((query, page, size))
        """
    )
    assert failing(tmp_path) == {}


# Each tool's `def` fits 88 columns only because ruff counts no pragma comment in a line's width;
# with a marker it would have to be split, and the pragma would leave the code it covers.
PRAGMA_SERVER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool()
def search(query: str | None = None, tags: list = [], limit: int = 10) -> str:  # noqa: B006
    return repr((query, tags, limit))


@mcp.tool()
def lookup(name: str | None = None, extra: dict = {}, limit: int = 10) -> str:  # type: ignore[type-arg]  # noqa: B006
    return repr((name, extra, limit))


@mcp.tool()
def find(query: str | None = None) -> str:  # noqa: B006
    return query or ""
"""


def test_a_pragma_stays_on_the_code_it_covers(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff]\nline-length = 88\n[tool.ruff.lint]\nselect = ["B006", "E501", "I", "F"]\n'
    )
    (tmp_path / "server.py").write_text(PRAGMA_SERVER)
    for args in (("check",), ("format", "--check")):
        assert ruff(*args, cwd=tmp_path).returncode == 0, args

    result = run_cli("fix", "--write", "--no-cache", "server.py", cwd=tmp_path)

    fixed = (tmp_path / "server.py").read_text()
    # A line that still fits takes its marker; the ones that would be split are left as they
    # were, reported with what to do.
    assert "def find(query: Annotated[str | None, NoPreParse] = None) -> str:  # noqa: B006" in (
        fixed
    )
    for line in PRAGMA_SERVER.splitlines():
        if line.startswith(("def search", "def lookup")):
            assert line in fixed.splitlines()
    assert "whose pragma comment covers that line's code" in result.output
    # Counted as fixed: what was changed (the three text parameters, on the guarded server); not
    # the `TypedSchema` marker of `search`'s `tags`, held back and left.
    left = run_cli("check", "--no-cache", "--output-format", "json", "server.py", cwd=tmp_path)
    assert [finding["tool"] for finding in json.loads(left.stdout)] == ["search"]
    assert result.output.splitlines()[-1].startswith("Fixed 3 issues in 1 file.")
    for args in (("check",), ("format", "--check")):
        assert ruff(*args, cwd=tmp_path).returncode == 0, (args, fixed)


@pytest.mark.corpus
@pytest.mark.parametrize("line_length", LINE_LENGTHS)
def test_fixed_corpus_subset_passes_ruff_wherever_the_input_did(tmp_path, line_length):
    # The packages tests/engine/test_corpus_subset.py fixes, from the corpus cache (never downloaded
    # here). A package's own ruff settings, where it has them, apply to its files, for ruff and
    # for the fix alike.
    from engine.test_corpus_subset import EXPECTED, _pristine, run

    (tmp_path / "pyproject.toml").write_text(f"[tool.ruff]\nline-length = {line_length}\n")
    packages = {package.name: package for package in run.load_packages()}
    for name in EXPECTED:
        shutil.copytree(_pristine(packages[name]), tmp_path / name)

    assert regressions(tmp_path) == {}


GROWING_IMPORTS = """\
from mcp.server.fastmcp import FastMCP
from pydantic import StrictInt

mcp = FastMCP("demo")


class Tools:
\tdef register(self) -> None:
\t\t@mcp.tool()
\t\tdef move(q: str | None, p: StrictInt, loc: tuple[int, int]) -> str:
\t\t\treturn repr((q, p, loc))

\t\tdel move
"""


def test_an_import_made_too_long_is_parenthesised_and_tabs_stay_tabs(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff]\nline-length = 79\n[tool.ruff.format]\nindent-style = "tab"\n'
    )
    (tmp_path / "server.py").write_text(GROWING_IMPORTS)
    assert failing(tmp_path) == {}

    run_cli("fix", "--write", "--no-cache", "server.py", cwd=tmp_path)

    fixed = (tmp_path / "server.py").read_text()
    assert "from mcp_codemod.runtime import (\n\tAcceptWholeFloat,\n" in fixed
    assert "\t\tdef move(\n\t\t\tq: Annotated[str | None, NoPreParse],\n" in fixed
    assert failing(tmp_path) == {}
