"""The `# noqa: CODE` quick fix's edit (plain text in, offsets out: no pygls needed)."""

from __future__ import annotations

from mcp_codemod.lsp.document_fixes import noqa_edit

SOURCE = 'def search(query: str | None = None) -> str:\n    return query or ""\n'


def edited(text: str, line: int, code: str) -> str | None:
    change = noqa_edit(text, line, code)
    if change is None:
        return None
    start, end, replacement = change
    return text[:start] + replacement + text[end:]


def test_the_comment_goes_at_the_end_of_the_line_after_two_spaces():
    assert edited(SOURCE, 1, "MCP001").splitlines()[0] == (
        "def search(query: str | None = None) -> str:  # noqa: MCP001"
    )


def test_a_line_with_a_noqa_gets_the_code_added_to_it():
    text = SOURCE.replace("-> str:", "-> str:  # noqa: MCP002")
    assert edited(text, 1, "MCP001").splitlines()[0].endswith("# noqa: MCP002, MCP001")


def test_a_line_with_another_comment_gets_the_noqa_first_as_check_add_noqa_puts_it():
    # The comment then starts with a pragma: ruff's formatter does not count it in the width.
    text = SOURCE.replace("-> str:", "-> str:  # the search")
    assert edited(text, 1, "MCP001").splitlines()[0].endswith("# noqa: MCP001  # the search")


def test_a_type_ignore_stays_first_and_a_directive_after_a_comment_gains_the_code():
    ignored = SOURCE.replace("-> str:", "-> str:  # type: ignore[misc]")
    assert (
        edited(ignored, 1, "MCP001")
        .splitlines()[0]
        .endswith("# type: ignore[misc]  # noqa: MCP001")
    )
    later = SOURCE.replace("-> str:", "-> str:  # hello  # noqa: E501")
    assert edited(later, 1, "MCP001").splitlines()[0].endswith("# hello  # noqa: E501, MCP001")


def test_a_noqa_inside_a_string_is_no_directive_to_add_to():
    text = SOURCE.replace("= None)", '= "# noqa: E501")')
    assert edited(text, 1, "MCP001").splitlines()[0] == (
        'def search(query: str | None = "# noqa: E501") -> str:  # noqa: MCP001'
    )


def test_a_file_whose_lines_end_in_cr_only_gets_the_edit_on_its_line():
    text = ("import os\n\n\n" + SOURCE).replace("\n", "\r")
    assert edited(text, 4, "MCP001") == text.replace("-> str:\r", "-> str:  # noqa: MCP001\r")


def test_trailing_spaces_are_replaced_and_the_line_ending_kept():
    text = SOURCE.replace("-> str:\n", "-> str:   \r\n")
    assert edited(text, 1, "MCP001").split("\r\n")[0].endswith("-> str:  # noqa: MCP001")


def test_no_comment_where_the_line_ends_inside_a_string_or_with_a_backslash():
    inside = 'x = """\ndef search(query: str | None = None) -> str:\n"""\n'
    assert noqa_edit(inside, 2, "MCP001") is None
    continued = "def search(query: str | None = None) \\\n        -> str:\n    return ''\n"
    assert noqa_edit(continued, 1, "MCP001") is None


def test_nothing_for_text_that_does_not_parse_or_a_line_past_the_end():
    assert noqa_edit("def search(:\n", 1, "MCP001") is None
    assert noqa_edit(SOURCE, 9, "MCP001") is None
