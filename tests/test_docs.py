"""The documentation says what the code does: generated pages equal their generator's output, the
snippets name a release that exists by version, and every link leads to a file."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import run_cli
from demo_servers import EXPOSED, UNKNOWN_FRAMEWORK

from mcp_codemod import __version__
from mcp_codemod.analysis.unchecked import Unchecked
from mcp_codemod.report import record_fields
from mcp_codemod.report.rule_pages import generated_pages

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = sorted((ROOT / "docs").rglob("*.md"))


def test_the_rule_pages_are_what_the_rules_generate():
    # Regenerate with `python -m mcp_codemod.report.rule_pages docs/rules`.
    folder = ROOT / "docs" / "rules"
    expected = generated_pages()
    assert sorted(path.name for path in folder.iterdir()) == sorted(expected)
    for name, text in expected.items():
        assert (folder / name).read_text(encoding="utf-8") == text, name


def test_the_record_reference_in_cli_md_is_what_the_code_generates():
    # Regenerate with `python -m mcp_codemod.report.record_fields`, between the markers.
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- record-fields:[^\n]*-->\n(.*?)<!-- /record-fields -->", text, re.S)
    assert block is not None
    assert block[1] == record_fields.reference()
    assert set(record_fields.UNCHECKED_KINDS) == set(Unchecked)


def test_the_records_hold_the_documented_fields(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-codemod]\n")
    (tmp_path / "server.py").write_text(EXPOSED)
    (tmp_path / "company.py").write_text(UNKNOWN_FRAMEWORK)
    (tmp_path / "latin.py").write_bytes(b'from mcp.server.fastmcp import FastMCP\nx = "\xff"\n')
    records = json.loads(
        run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path).stdout
    )
    sarif = json.loads(
        run_cli("check", "--no-cache", "--output-format", "sarif", ".", cwd=tmp_path).stdout
    )

    fields = {record["type"]: set(record) for record in records}
    assert fields == {name: set(doc) for name, doc in record_fields.JSON_RECORDS.items()}
    (invocation,) = sarif["runs"][0]["invocations"]
    unchecked = [n for n in invocation["toolExecutionNotifications"] if "descriptor" in n]
    assert unchecked and all(
        tuple(n["properties"]) == record_fields.SARIF_UNCHECKED_PROPERTIES for n in unchecked
    )


def test_every_rev_and_release_tag_in_the_snippets_is_the_package_version():
    tag = f"v{__version__}"
    for text in (README, (ROOT / "docs" / "pre-commit.md").read_text(encoding="utf-8")):
        revs = re.findall(r"^\s*rev:\s*(\S+)", text, flags=re.MULTILINE)
        assert revs and set(revs) == {tag}
    pinned = re.findall(r"mcp-codemod@(v[\w.]+)", README)
    assert pinned and set(pinned) == {tag}


def test_the_package_version_is_one_version():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^version = "([^"]+)"', pyproject, flags=re.MULTILINE)[1] == __version__


def test_the_readme_starts_with_the_user_and_fits_250_lines():
    lines = README.splitlines()
    assert len(lines) <= 250
    first_screen = "\n".join(lines[:45])
    assert "PyPI belongs to" in first_screen
    assert "## Add it to your project" in first_screen
    assert "## Documentation" in README


def test_the_readmes_setup_commands_are_the_ones_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/pip install -e '.[test,mcp1,lsp]' && .venv/bin/pytest" in README
    assert ".venv/bin/pip install -q -e '.[test,mcp1,lsp]'\n.venv/bin/pytest\n" in ci
    assert ".venv/bin/mcp-codemod check fixtures/ --statistics" in README
    assert ".venv/bin/mcp-codemod check fixtures/ --statistics" in ci


def test_every_relative_link_leads_to_a_file():
    for page in [ROOT / "README.md", *PAGES]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)}: {target}"


def test_no_page_only_points_to_another():
    for page in PAGES:
        prose = [
            line
            for line in page.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith(("#", "<!--"))
        ]
        assert len(prose) > 3, page.relative_to(ROOT)


def test_the_hooks_file_names_the_page_with_the_snippet():
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    [page] = re.findall(r"docs/[\w/-]+\.md", hooks)
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "id: mcp-codemod-check" in text and "id: mcp-codemod-fix" in text
