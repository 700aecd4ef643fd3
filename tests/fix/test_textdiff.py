"""The fix's unified diff: the format of `difflib.unified_diff`, and a patch that gives the new
text back, also where lines repeat thousands of times."""

from __future__ import annotations

import difflib
import re

from mcp_codemod.fix.textdiff import unified_diff


def patched(old: str, diff: str) -> str:
    """`old` with the hunks of `diff` applied."""
    lines = old.splitlines(keepends=True)
    result: list[str] = []
    position = 0
    for hunk in re.split(r"^(?=@@ )", diff, flags=re.M)[1:]:
        header, *body = hunk.splitlines(keepends=True)
        first, _, length = header.split()[1][1:].partition(",")
        start = int(first) - (0 if length == "0" else 1)  # an empty range names the line before
        result += lines[position:start]
        position = start
        for line in body:
            if line[0] in " -":
                assert lines[position] == line[1:]
                position += 1
            if line[0] in " +":
                result.append(line[1:])
    return "".join(result + lines[position:])


def test_same_output_as_difflib_on_a_small_change():
    old = "import os\n\nx = 1\ny = 2\nz = 3\n"
    new = "import os\nfrom typing import Annotated\n\nx = 1\ny = 3\nz = 3\n"
    expected = "".join(
        difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), fromfile="a/f.py", tofile="b/f.py"
        )
    )
    assert unified_diff(old, new, "a/f.py", "b/f.py") == expected


def test_no_change_no_diff():
    assert unified_diff("a\nb\n", "a\nb\n", "a/f", "b/f") == ""


def test_repeated_lines_patch_back_exactly():
    body = "".join(
        f"\n\n@tool()\ndef f{i}(q: str | None = None):\n    return q\n" for i in range(3000)
    )
    old = "import os\n\nfrom mcp import FastMCP\n" + body
    new = "import os\nfrom typing import Annotated\n\nfrom x import Y\n" + body.replace(
        "str | None", "Annotated[str | None, Y]"
    ).replace("def f17(", "def g17(")
    diff = unified_diff(old, new, "a/f.py", "b/f.py")
    assert patched(old, diff) == new
