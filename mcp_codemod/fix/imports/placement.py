"""Import statements placed as isort and ruff's `I` rules (default settings) place them: the
module's leading import block, merged into a `from` import of the same module, a new statement
in sorted position in its section, a new section; and removed when a swap left them unused."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from mcp_codemod.analysis.scan.positions import split_lines
from mcp_codemod.fix.imports.bindings import bound_by, char_offset, import_statements
from mcp_codemod.fix.imports.order import (
    FIRST_PARTY,
    FUTURE,
    LOCAL,
    STDLIB,
    THIRD_PARTY,
    from_import,
    member_key,
    new_statement_key,
    sections_apart,
    statement_key,
)
from mcp_codemod.fix.line_wrap import LineStyle

# What a kept import that nothing in its own module uses says: to ruff (F401, which finds its
# `noqa` anywhere in the comment) and to pyright strict (reportUnusedImport, which reads only a
# comment that starts with its own directive).
KEPT_FOR_OTHERS = (
    "# pyright: ignore[reportUnusedImport]  # noqa: F401 -- other modules import it from here"
)

Edit = tuple[int, int, str]  # (start, end, replacement) in characters


class _NewImport(NamedTuple):
    """New import statements, and where they go."""

    section: int
    at: int  # -1: a new block (`_new_block`)
    text: str  # the statements as laid out there (blank lines around a new section)
    grouped: bool  # laid out with the other new statements at the same place
    statements: str  # the statements alone
    used_at: int  # the first use of a name they import: they must run before it


@dataclass
class _Item:
    """An import statement of the leading import block."""

    node: ast.Import | ast.ImportFrom
    section: int
    key: tuple
    start: int  # offset of the comment lines right above it, or of its first line
    line_start: int  # offset of its first line
    end: int  # offset of the line after it
    removed: bool = False


def line_ending(text: str) -> str:
    match = re.search(r"\r\n|\r|\n", text)
    return match.group() if match else "\n"


class LeadingBlock:
    """The module's leading imports (after the docstring), and the edits made to them."""

    def __init__(
        self,
        text: str,
        tree: ast.Module,
        offsets: list[int],
        first_party: Callable[[str], bool],
        first_use: dict[str, int],
        style: LineStyle,
    ) -> None:
        """`style`: the project's line length and indentation; a longer import is wrapped, one
        name a line, as ruff's isort and formatter do."""
        self.text = text
        self.style = style
        self.tree = tree
        self.offsets = offsets
        self.first_party = first_party
        # Where each name to import is first used: its import must run before that offset.
        self.first_use = first_use
        self.items: list[_Item] = []
        self._edits: list[Edit] = []
        self._new: list[_NewImport] = []
        body = tree.body
        index = 0
        if body and _is_docstring(body[0]):
            index = 1
        for statement in body[index:]:
            if not isinstance(statement, ast.Import | ast.ImportFrom):
                break
            line_start = self.offsets[statement.lineno - 1]
            # Comments above the first import are the file's header: nothing goes above them.
            floor = self.items[-1].end if self.items else line_start
            self.items.append(
                _Item(
                    statement,
                    self._section_of(statement),
                    statement_key(statement),
                    self._start_with_comments(statement.lineno, floor),
                    self.offsets[statement.lineno - 1],
                    self._line_after(statement.end_lineno),
                )
            )
        self.next_statement = (
            body[index + len(self.items)] if len(body) > index + len(self.items) else None
        )
        self.docstring = body[0] if index else None

    # -- positions

    def _line_after(self, line: int) -> int:
        return self.offsets[line] if line < len(self.offsets) else len(self.text)

    def _start_with_comments(self, line: int, floor: int) -> int:
        """The start of `line`, or of the comment lines right above it (they belong to it), not
        before `floor`."""
        start = self.offsets[line - 1]
        while line > 1:
            above = self.offsets[line - 2]
            if above < floor:
                break
            if not self.text[above:start].lstrip().startswith("#"):
                break
            start, line = above, line - 1
        return start

    # -- sections

    def section(self, module: str) -> int:
        if module == "__future__":
            return FUTURE
        top = module.split(".")[0]
        if top in sys.stdlib_module_names:
            return STDLIB
        return FIRST_PARTY if self.first_party(top) else THIRD_PARTY

    def _section_of(self, node: ast.Import | ast.ImportFrom) -> int:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                return LOCAL
            return self.section(node.module or "")
        return self.section(node.names[0].name)

    # -- edits

    def keep_binding(self, name: str) -> None:
        """Keep the module-level imports that bind `name` (a server class nothing here uses any
        more, which other modules import from here), and say so to ruff's F401, which would
        have the user remove them: the input passed it, the fixed file must too."""
        for statement, _ in import_statements(self.tree, everywhere=False):
            for alias in statement.names:
                if bound_by(alias, statement) != name:
                    continue
                line_end = self._line_after(alias.end_lineno)
                line = self.text[self.offsets[alias.end_lineno - 1] : line_end]
                content = line.rstrip("\r\n")
                # The author's own directive stands; after a `\` no comment can follow.
                if "noqa" in line or content.endswith("\\"):
                    continue
                at = self.offsets[alias.end_lineno - 1] + len(content)
                self._edits.append((at, at, f"  {KEPT_FOR_OTHERS}"))

    def remove_binding(self, name: str, everywhere: bool) -> None:
        """Remove the imports that bind `name` (a server class nothing uses): at module level,
        and `everywhere` also in functions."""
        for statement, siblings in import_statements(self.tree, everywhere):
            gone = [a for a in statement.names if bound_by(a, statement) == name]
            if not gone:
                continue
            item = next((i for i in self.items if i.node is statement), None)
            if len(gone) == len(statement.names):
                if not self._alone_on_its_lines(statement):
                    continue  # `import os; from m import FastMCP`: left as it is, never broken
                if item is not None:
                    item.removed = True
                    continue
                start = self.offsets[statement.lineno - 1]
                end = self._line_after(statement.end_lineno)
                indent = self._indent(statement.lineno)
                # The only statement of a body leaves `pass` behind, so the body stays a body.
                keep = f"{indent}pass{line_ending(self.text)}" if len(siblings) == 1 else ""
                self._edits.append((start, end, keep))
            else:
                for alias in gone:
                    self._edits.append(self._remove_alias(statement, alias))

    def _alone_on_its_lines(self, statement: ast.stmt) -> bool:
        before = self.text[
            self.offsets[statement.lineno - 1] : self._position(
                statement.lineno, statement.col_offset
            )
        ]
        end = self._position(statement.end_lineno, statement.end_col_offset)
        after = self.text[end : self._line_after(statement.end_lineno)]
        return not before.strip() and re.fullmatch(r"[ \t]*(#[^\r\n]*)?\s*", after) is not None

    def _remove_alias(self, statement: ast.Import | ast.ImportFrom, alias: ast.alias) -> Edit:
        names = statement.names
        index = names.index(alias)
        start = self._position(alias.lineno, alias.col_offset)
        end = self._position(alias.end_lineno, alias.end_col_offset)
        if index + 1 < len(names):
            following = names[index + 1]
            if following.lineno > alias.lineno:  # one name a line: drop the whole line
                line_start = self.offsets[alias.lineno - 1]
                return line_start, self.offsets[following.lineno - 1], ""
            return start, self._position(following.lineno, following.col_offset), ""
        previous = names[index - 1]
        if alias.lineno > previous.end_lineno:
            return self.offsets[alias.lineno - 1], self._line_after(alias.end_lineno), ""
        return self._position(previous.end_lineno, previous.end_col_offset), end, ""

    def _position(self, line: int, byte_column: int) -> int:
        return char_offset(self.text, self.offsets, line, byte_column)

    def merge(self, module: str, names: list[str], eol: str) -> bool:
        """Add `names` to a `from module import ...` of the block; False when there is none."""
        for item in self.items:
            node = item.node
            if (
                item.removed
                or not isinstance(node, ast.ImportFrom)
                or node.level
                or node.module != module
                or any(a.asname or a.name == "*" for a in node.names)
                or self._position(node.end_lineno, node.end_col_offset)
                > min(self.first_use[name] for name in names)
            ):
                continue
            self._merge_into(node, names, eol)
            return True
        return False

    def _merge_into(self, node: ast.ImportFrom, names: list[str], eol: str) -> None:
        existing = node.names
        gaps: dict[int, list[str]] = {}
        for name in names:
            index = next(
                (i for i, a in enumerate(existing) if member_key(a.name) > member_key(name)),
                len(existing),
            )
            gaps.setdefault(index, []).append(name)
        if node.end_lineno == node.lineno:
            line_start = self.offsets[node.lineno - 1]
            line_end = self._line_after(node.lineno)
            line = self.text[line_start:line_end].rstrip("\r\n")
            added = sum(len(n) + 2 for n in names)
            too_long = self.style.width(line) + added > self.style.line_length
            if too_long and "#" not in line and ";" not in line:
                merged: list[tuple[str, str | None]] = []
                for index, alias in enumerate(existing):
                    merged += [(n, None) for n in gaps.get(index, [])]
                    merged.append((alias.name, alias.asname))
                merged += [(n, None) for n in gaps.get(len(existing), [])]
                start = self.offsets[node.lineno - 1]
                end = self._position(node.end_lineno, node.end_col_offset)
                self._edits.append(
                    (start, end, from_import(_module_of(node), merged, eol, self.style))
                )
                return
        one_per_line = node.end_lineno > node.lineno and len({a.lineno for a in existing}) == len(
            existing
        )
        for index, group in gaps.items():
            if one_per_line:
                anchor = existing[min(index, len(existing) - 1)]
                indent = self._indent(anchor.lineno)
                lines = "".join(f"{indent}{n},{eol}" for n in group)
                if index < len(existing):
                    self._edits.append((self.offsets[anchor.lineno - 1],) * 2 + (lines,))
                    continue
                after = self._position(anchor.end_lineno, anchor.end_col_offset)
                if self.text.startswith(",", after):
                    at = self._line_after(anchor.end_lineno)
                    self._edits.append((at, at, lines))
                else:
                    joined = f",{eol}".join(f"{indent}{n}" for n in group)
                    self._edits.append((after, after, f",{eol}{joined}"))
            elif index < len(existing):
                at = self._position(existing[index].lineno, existing[index].col_offset)
                self._edits.append((at, at, "".join(f"{n}, " for n in group)))
            else:
                last = existing[-1]
                at = self._position(last.end_lineno, last.end_col_offset)
                self._edits.append((at, at, "".join(f", {n}" for n in group)))

    def _indent(self, line: int) -> str:
        start = self.offsets[line - 1]
        return re.match(r"[ \t]*", self.text[start:]).group()

    def add(self, module: str, statements: list[list[tuple[str, str | None]]], eol: str) -> None:
        """New `from module import names` statements, in order, where isort puts them."""
        section = self.section(module)
        key = new_statement_key(module, *statements[0][0])
        statement = "".join(
            from_import(module, names, eol, self.style) + eol for names in statements
        )
        used_at = min(self.first_use[name] for names in statements for name, _ in names)

        def new(at: int, text: str, grouped: bool) -> None:
            self._new.append(_NewImport(section, at, text, grouped, statement, used_at))

        kept = [i for i in self.items if not i.removed]
        same = [i for i in kept if i.section == section]
        if same:
            later = next((i for i in same if i.key > key), None)
            if later is not None:
                new(later.start, statement, False)
            else:
                new(*self._append_after(same[-1], statement), False)
            return
        replaced = next((i for i in self.items if i.removed and i.section == section), None)
        if replaced is not None:
            new(replaced.line_start, statement, True)
            return
        lower = [i for i in kept if i.section < section]
        higher = [i for i in kept if i.section > section]
        if lower:
            at, prefix = self._append_after(lower[-1], "")
            new(at, prefix + eol + statement, False)
        elif higher:
            new(higher[0].start, statement + eol, False)
        elif self.items:  # every import of the block was removed: take the first one's place
            new(self.items[0].line_start, statement, True)
        else:
            new(-1, statement, True)  # a new block: see _new_block

    def _append_after(self, item: _Item, statement: str) -> tuple[int, str]:
        at = item.end
        if at == len(self.text) and not self.text.endswith(("\n", "\r")):
            return at, line_ending(self.text) + statement
        return at, statement

    def edits(self, eol: str) -> list[Edit]:
        edits = list(self._edits)
        for item in self.items:
            if item.removed:
                edits.append(self._removal(item))
        # Statements that take a place of their own (a removed import's, or a new block's) are
        # laid out together: a blank line between sections, as isort separates them.
        grouped: dict[int, list[_NewImport]] = {}
        late: list[_NewImport] = []  # placed where they would run after a use
        for new in self._new:
            if new.at > new.used_at:
                late.append(new)
            elif new.grouped:
                grouped.setdefault(new.at, []).append(new)
            else:
                edits.append((new.at, new.at, new.text))
        for at, news in grouped.items():
            block = sections_apart(sorted((n.section, n.text) for n in news), eol)
            edit = self._new_block(block, eol) if at == -1 else (at, at, block)
            if edit[0] > min(n.used_at for n in news):
                late += sorted(news, key=lambda n: n.section)
            else:
                edits.append(edit)
        by_holder: dict[ast.stmt, list[str]] = {}
        for new in late:
            by_holder.setdefault(self._holder(new.used_at), []).append(new.statements)
        edits += [self._before(holder, statements, eol) for holder, statements in by_holder.items()]
        return edits

    def _start_of(self, statement: ast.stmt) -> int:
        if _first_line(statement) < statement.lineno:  # decorated: it starts its line
            return self.offsets[_first_line(statement) - 1]
        return self._position(statement.lineno, statement.col_offset)

    def _holder(self, offset: int) -> ast.stmt:
        """The module-level statement that holds `offset`."""
        holder = self.tree.body[0]
        for statement in self.tree.body:
            if self._start_of(statement) > offset:
                break
            holder = statement
        return holder

    def _before(self, holder: ast.stmt, statements: list[str], eol: str) -> Edit:
        """Imports whose place in the block comes after a use of what they import: only when
        that use shares a line with an import or the docstring, after a `;` (as in
        `from mcp.server.fastmcp import FastMCP; mcp = FastMCP("t")`). They go right before the
        module-level statement that holds the use: on lines of their own when it starts its
        line, else on its line, each followed by `; `. Such a line is not as isort lays it out
        (ruff's I001 and its formatter reject the input already), but every name is bound
        before its use."""
        line_start = self.offsets[_first_line(holder) - 1]
        start = self._start_of(holder)
        if not self.text[line_start:start].strip():
            return line_start, line_start, "".join(statements)
        return start, start, "".join(f"{statement.removesuffix(eol)}; " for statement in statements)

    def _removal(self, item: _Item) -> Edit:
        """Remove a statement (not the comments above it); a section it leaves empty loses its
        blank separator line too."""
        start, end = item.line_start, item.end
        emptied = not any(i.section == item.section and not i.removed for i in self.items)
        if emptied and not any(new.section == item.section for new in self._new):
            index = self.items.index(item)
            blank = re.compile(r"[ \t]*(\r\n|\r|\n)")
            before = self.items[index - 1].end if index else None
            if before is not None and before < start and blank.fullmatch(self.text, before, start):
                start = before
            elif index + 1 < len(self.items) and (match := blank.match(self.text, end)):
                end = match.end()
        return start, end, ""

    def _new_block(self, block: str, eol: str) -> Edit:
        """Imports for a module that had none: after the docstring, then the blank lines ruff
        wants before the code, in place of those there were."""
        following = self.next_statement
        if self.docstring is not None:
            at = self._line_after(self.docstring.end_lineno)
            prefix = eol if at < len(self.text) else eol + eol
            code = _BLANK_LINES.match(self.text, at).end()
            return at, code, prefix + block + eol * self._blank_lines_before(code)
        if following is None:
            return len(self.text), len(self.text), block
        at = self.offsets[_first_line(following) - 1]
        return at, at, block + eol * self._blank_lines_before(at)

    def _blank_lines_before(self, at: int) -> int:
        """The blank lines ruff's isort wants between the imports and the text at `at`: two
        before a function or class, also when only the comment lines right above it (no blank
        line between) come first; one before anything else, such as a comment that a blank line
        parts from the code below it."""
        following = self.next_statement
        if not isinstance(following, _DEFINITIONS):
            return 1
        # The text up to the start of the definition's line: every line ends, so the last of
        # the split is empty.
        between = split_lines(self.text[at : self.offsets[_first_line(following) - 1]])[:-1]
        return 2 if all(line.lstrip().startswith("#") for line in between) else 1


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLANK_LINES = re.compile(r"(?:[ \t]*(?:\r\n|\r|\n))*")


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _module_of(node: ast.ImportFrom) -> str:
    return "." * node.level + (node.module or "")
