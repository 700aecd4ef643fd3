"""Checking one open document (no pygls needed): what becomes of errors and encodings."""

from __future__ import annotations

from pathlib import Path

from demo_servers import EXPOSED as SERVER

from mcp_codemod import api
from mcp_codemod.lsp.document_check import check_document, source_bytes


def test_an_unreadable_configuration_is_the_documents_error(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-codemod\n", encoding="utf-8")
    check = check_document(tmp_path / "server.py", SERVER, 1, tmp_path)
    assert check.findings == ()
    assert check.error.startswith(f"{tmp_path / 'pyproject.toml'}: cannot read")


def test_a_bug_of_ours_is_the_documents_error_in_one_line(tmp_path: Path, monkeypatch):
    def broken(*_args, **_kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(api, "check_paths", broken)
    check = check_document(tmp_path / "server.py", SERVER, 1, tmp_path)
    assert check.error == "internal error (KeyError: 'boom'); please report it"


def test_the_buffer_is_checked_in_its_declared_encoding(tmp_path: Path):
    text = "# -*- coding: latin-1 -*-\n" + SERVER.replace('"demo"', '"café"')
    assert source_bytes(text) == text.encode("latin-1")
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-codemod]\n", encoding="utf-8")
    check = check_document(tmp_path / "server.py", text, 1, tmp_path)
    assert check.error is None
    assert [f.code for f in check.findings] == ["MCP001"]
