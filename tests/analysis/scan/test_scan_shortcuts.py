"""The scanner's shortcuts find what the plain ways find: the lines that name a word, the calls
in a statement, text and positions of ASCII modules, noqa comments, the bodies of compound
statements. (`bench/facts_equivalence.py` compares whole facts with another revision's.)"""

from __future__ import annotations

import ast
import io
import math
import re
import textwrap
import tokenize

import pytest
from conftest import FIXTURES

from mcp_codemod.analysis.scan import positions
from mcp_codemod.analysis.scan.annotations import SharedTypes
from mcp_codemod.analysis.scan.noqa_comments import noqa_lines
from mcp_codemod.analysis.scan.positions import SourceText, split_lines
from mcp_codemod.analysis.scan.scanner import scan_module
from mcp_codemod.analysis.scan.syntax import calls_within, header_expressions, nested_bodies
from mcp_codemod.analysis.type_exprs import TName, TSubscript

WORDS = ("tool", "guard", "install")

TEXTS = [
    "",
    "tool",
    "x = 1\nmcp.tool()\n\ny = guard(mcp)  # install\n",
    "toolguard\ntooltool\n\n\ninstall",  # several words on a line, the text ending in one
    "a\r\nb.tool()\r\nc\rd = guard\r\rinstall\n",  # every kind of line break, mixed
    "é = 'ü'\nmcp.tool()\n# ｔｏｏｌ\nguard",  # not ASCII
    "no word here\nnor here\n",
]


@pytest.mark.parametrize("source", TEXTS)
def test_lines_with_words_are_the_lines_a_search_of_each_finds(source: str):
    expected = [
        number
        for number, line in enumerate(split_lines(source), start=1)
        if any(word in line for word in WORDS)
    ]
    assert SourceText(source).lines_with(WORDS) == expected


NOQA_SOURCES = [
    "x = 1  # noqa\ny = 2  # NOQA: MCP001, mcp002\nz = '#'  # noqa:MCP003\n",
    "a = 1\r\nb = 2  # noqa: MCP001\rc = 3 # NoQa\n",
    "s = '# noqa'\n# no qa\n#noqa\n",
    "x = 1\n",
    # Inside a multi-line string, after one, after a quote on a line a statement continues.
    'x = """\n# noqa\n"""  # noqa: MCP001\n',
    'f(a, """\nb  # noqa""", c); y = 1  # noqa\n',
    'def f(\n    q: str = "#",  # noqa: MCP001\n    r: str = "# noqa",\n):\n    pass\n',
    "class A:\n    def f(self):\n        pass\n\n\n@deco  # noqa: MCP004\ndef g():\n"
    "    '''\n    # noqa\n    '''\n",
]


@pytest.mark.parametrize("source", NOQA_SOURCES)
def test_noqa_comments_are_those_a_search_of_each_comment_token_finds(source: str):
    # ruff reads its directive from comments only: one inside a string suppresses nothing.
    pattern = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.I)
    expected = {}
    lines = split_lines(source)
    for token in tokenize.generate_tokens(io.StringIO("\n".join(lines)).readline):
        match = pattern.search(token.string) if token.type == tokenize.COMMENT else None
        if match:
            codes = match.group("codes")
            expected[token.start[0]] = (
                frozenset(c.strip().upper() for c in codes.split(",")) if codes else None
            )
    assert noqa_lines(SourceText(source), ast.parse(source)) == expected
    if source.startswith("s = '# noqa'"):
        assert 1 not in expected


CALLS = textwrap.dedent(
    """
    mcp.tool(name=f(x))(g(lambda: h(1), [i(j) for j in k(2)], {l(): m() for _ in n()}))
    server.add_tool(a.b(c(d)).e(), *p(q), **r(s), key=t(u) if v(w) else not y(z))
    x = await aa(bb[cc(dd)], ee(ff) + gg(hh), -ii(jj), kk(ll) < mm(nn))
    with oo(pp) as qq, rr(ss): pass
    """
)


def test_calls_within_a_statement_are_those_ast_walk_finds_in_its_order():
    tree = ast.parse(CALLS)
    for statement in tree.body:
        found = calls_within(statement)
        assert found == [node for node in ast.walk(statement) if isinstance(node, ast.Call)]
        assert len(found) > 1


ASCII_MODULE = (
    textwrap.dedent(
        """
    from typing import Annotated
    from pydantic import Field

    @mcp.tool()
    def search(
        query: Annotated[
            str, Field(description="what to look for")
        ],
        limit: int = 10,
    ) -> list[str]:
        return helper(query, limit, {"a": [1, 2]})
    """
    )
    + "x = helper(  \n    1,\n)\n"
)  # a first line ending in blanks, which a label leaves out


def test_ascii_text_and_positions_are_those_of_the_byte_arithmetic():
    fast = SourceText(ASCII_MODULE)
    slow = SourceText(ASCII_MODULE)
    slow.is_ascii = False  # the way of every module that is not ASCII
    assert fast.is_ascii
    nodes = [n for n in ast.walk(ast.parse(ASCII_MODULE)) if hasattr(n, "end_lineno")]
    assert any(node.lineno != node.end_lineno for node in nodes)
    for node in nodes:
        assert fast.segment(node) == slow.segment(node)
        assert fast.label(node) == slow.label(node)
        assert fast.span(node) == slow.span(node)
        assert fast.start(node) == slow.start(node)


COMPOUND = textwrap.dedent(
    """
    if a:
        b
    elif c:
        d
    else:
        e
    for f in g:
        h
    else:
        i
    while j:
        k
    with l:
        m
    try:
        n
    except O:
        p
    except Q:
        r
    else:
        s
    finally:
        t
    match u:
        case 1:
            v
        case _:
            w
    def x():
        y
    class Z:
        z
    try:
        aa
    finally:
        bb
    """
)


def test_nested_bodies_are_every_body_of_a_compound_statement_in_order():
    bodies = [
        [[ast.unparse(s) for s in body] for body in nested_bodies(statement)]
        for statement in ast.parse(COMPOUND).body
    ]
    assert bodies == [
        [["b"], ["if c:\n    d\nelse:\n    e"]],
        [["h"], ["i"]],
        [["k"]],
        [["m"]],
        [["n"], ["s"], ["t"], ["p"], ["r"]],
        [["v"], ["w"]],
        [["y"]],
        [["z"]],
        [["aa"], ["bb"]],
    ]
    assert nested_bodies(ast.parse("x = 1").body[0]) == []


def test_header_expressions_are_a_compound_statements_test_iter_items_or_subject():
    tree = ast.parse(COMPOUND + "async def f():\n    async with a, b as c:\n        pass\n")
    for statement in ast.walk(tree):
        if isinstance(statement, ast.stmt):
            expected = []
            for name in ("test", "iter", "items", "subject"):
                value = getattr(statement, name, None)
                expected += value if isinstance(value, list) else [value] if value else []
            assert header_expressions(statement) == expected
    headers = [[ast.unparse(e) for e in header_expressions(s)] for s in tree.body]
    assert headers[:6] == [["a"], ["g"], ["j"], ["l"], [], ["u"]]


SHARED_TYPES_MODULE = textwrap.dedent(
    """
    from typing import Literal, Optional
    from pydantic import Field

    def search(
        a: Optional[str], b: Optional[str], c: Literal[1], d: Literal[True], e: Literal[1.0],
        f: Literal[b"1"], g: int | None = Field(strict=True), h: "int | None" = Field(),
        i: int | str = 1, j: str | int = 1,
    ):
        pass
    """
)


def test_a_module_shares_one_object_per_type_expression_and_only_for_the_same_value():
    facts = scan_module(SHARED_TYPES_MODULE, ast.parse(SHARED_TYPES_MODULE), "m", "m.py", False)
    a, b, c, d, e, f, g, h, i, j = (p.annotation for p in facts.functions["search"].parameters)
    assert a is b and a == TSubscript(TName("typing.Optional"), (TName("builtins.str"),))
    texts = [p.annotation_text for p in facts.functions["search"].parameters]
    assert texts[0] == texts[1] == "Optional[str]" and texts[0] is texts[1]
    assert g is h  # the same union, written as code and as a string
    # Equal dataclasses, yet other values: `1 == True == 1.0`, and `b"1"` is no `1`.
    literals = [expr.args[0].value for expr in (c, d, e, f)]
    assert literals == [1, True, 1.0, b"1"]
    assert [type(value) for value in literals] == [int, bool, float, bytes]
    assert c == d == e and c is not d and d is not e and c is not e
    assert i != j and i is not j
    assert i.members[0] is j.members[1] and i.members[1] is j.members[0]


def test_floats_that_are_equal_but_other_values_are_never_shared():
    shared = SharedTypes()
    zero, negative_zero = shared.constant(0.0), shared.constant(-0.0)
    assert zero == negative_zero and zero is not negative_zero
    assert math.copysign(1, negative_zero.value) == -1
    assert shared.constant(None) is shared.constant(None)
    assert shared.constant(1) is not shared.constant(True)


def test_text_in_nfkc_form_says_the_names_python_reads():
    assert SourceText("x = 1\n").names_as_written
    assert SourceText("café = '🙂'\n").names_as_written
    assert not SourceText("mcp.ｔｏｏｌ()\n").names_as_written  # Python reads `mcp.tool()`
    assert not SourceText("x = 'cafe\u0301'\n").names_as_written


def test_a_module_in_nfkc_form_that_is_not_ascii_has_the_facts_of_the_long_way(monkeypatch):
    """Text searches for names (`MCPApp`, `return`, `__signature__`, `_tool_manager`) are
    trusted in such a module as in an ASCII one; the long way assumes nothing of its text."""
    sources = {}
    for path in sorted(FIXTURES.rglob("*.py")):
        source = path.read_text(encoding="utf-8") + "\nnote = '🙂 café'\n"
        try:
            sources[path] = (source, ast.parse(source))
        except SyntaxError:
            continue  # `type X = ...` before Python 3.12
    assert len(sources) > 40
    fast = {path: scan_module(s, tree, "m", "m.py", False) for path, (s, tree) in sources.items()}
    monkeypatch.setattr(positions.unicodedata, "is_normalized", lambda form, text: False)
    for path, (source, tree) in sources.items():
        assert scan_module(source, tree, "m", "m.py", False) == fast[path], path
