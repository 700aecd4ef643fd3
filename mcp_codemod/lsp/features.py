"""What the server answers, as LSP data: the diagnostics of a checked document, its code actions
(a quick fix per finding, fix-all, `# noqa`) and hovers on findings."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from mcp_codemod.analysis.scan.positions import line_offsets
from mcp_codemod.lsp.document_check import DocumentCheck
from mcp_codemod.lsp.document_fixes import (
    FileEdits,
    FixUnavailable,
    OpenText,
    fix_edits,
    noqa_edit,
)
from mcp_codemod.report import unchecked
from mcp_codemod.rules import RULES_BY_CODE
from mcp_codemod.rules.findings import Finding, Safety

SOURCE = "mcp-codemod"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"
# The rules' pages, in the repository beside the package (a checkout, or an editable install).
RULE_PAGES = Path(__file__).resolve().parents[2] / "docs" / "rules"
_IDENTIFIER = re.compile(r"\*{0,2}\w+")


class Positions:
    """Character offsets in a text as the client counts positions: lines as Python ends them
    (\\r\\n, \\r, \\n, as LSP does), columns in the negotiated unit (UTF-16 by default)."""

    def __init__(self, text: str, units: Callable[[str], int]) -> None:
        self.text = text
        self.starts = line_offsets(text)
        self.units = units

    def position(self, offset: int) -> types.Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        before = self.text[self.starts[line] : offset]
        # An ASCII character is one unit in every encoding a client negotiates: the count of
        # each character's units is asked only of the rest (twice a finding, every answer).
        return types.Position(line, len(before) if before.isascii() else self.units(before))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(self.position(start), self.position(end))

    def line_end(self, line: int) -> int:
        """The offset where line `line` (0-based) ends, before its line break."""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        while end > self.starts[line] and self.text[end - 1] in "\r\n":
            end -= 1
        return end

    def finding_span(self, line: int, column: int) -> tuple[int, int]:
        """The span a finding at a 1-based line and column covers: the parameter's name there,
        or the line's text from the column (a server's finding is at column 1)."""
        if line > len(self.starts):
            return len(self.text), len(self.text)
        start = min(self.starts[line - 1] + column - 1, self.line_end(line - 1))
        word = _IDENTIFIER.match(self.text, start, self.line_end(line - 1))
        if column > 1 and word:
            return start, word.end()
        content = self.text[start : self.line_end(line - 1)]
        begin = start + len(content) - len(content.lstrip())
        return begin, start + len(content.rstrip())


def rule_page(code: str) -> str | None:
    page = RULE_PAGES / f"{code}.md"
    return page.as_uri() if page.is_file() else None


def _descriptions(findings: tuple[Finding, ...]) -> dict[str, types.CodeDescription | None]:
    """Each code's link, looked up once per answer, not per finding."""
    pages = {code: rule_page(code) for code in {finding.code for finding in findings}}
    return {
        code: types.CodeDescription(href=page) if page else None for code, page in pages.items()
    }


def diagnostics(check: DocumentCheck, positions: Positions) -> list[types.Diagnostic]:
    found = []
    if check.error is not None:
        line, column = check.error_position
        start = positions.finding_span(line, column)[0] if line <= len(positions.starts) else 0
        found.append(
            types.Diagnostic(
                range=positions.range(start, start),
                message=check.error,
                severity=types.DiagnosticSeverity.Error,
                source=SOURCE,
            )
        )
    descriptions = _descriptions(check.findings)
    found.extend(_diagnostic_of(finding, positions, descriptions) for finding in check.findings)
    for tool in check.unchecked:
        found.append(
            types.Diagnostic(
                range=positions.range(*positions.finding_span(tool.line, 1)),
                message=f"Tool not checked: {tool.reason}; {unchecked.remedy(tool)}",
                severity=types.DiagnosticSeverity.Warning,
                source=SOURCE,
            )
        )
    return found


@dataclass(frozen=True)
class EditTarget:
    """What the client takes in a WorkspaceEdit, and how it counts positions."""

    document_changes: bool  # `documentChanges` (versioned, file creation), else `changes`
    units: Callable[[str], int]
    # Whether it shows an action that cannot apply, with the reason; if not, it gets none.
    disabled_support: bool = False


def code_actions(
    check: DocumentCheck,
    lines: tuple[int, int],
    only: list[str] | None,
    open_text: OpenText,
    editable: Callable[[Path], bool],
    target: EditTarget,
) -> list[types.CodeAction]:
    """The actions for the findings on `lines` (0-based, inclusive), of the kinds `only` asks."""
    positions = Positions(check.text, target.units)
    descriptions = _descriptions(check.findings)
    actions: list[types.CodeAction] = []
    wanted = _kinds(only)
    if types.CodeActionKind.QuickFix in wanted:
        for finding in check.findings:
            if not lines[0] <= finding.line - 1 <= lines[1]:
                continue
            diagnostic = _diagnostic_of(finding, positions, descriptions)
            if finding.fix is not None:
                actions.append(_fix_action(check, finding, diagnostic, open_text, editable, target))
            noqa = noqa_edit(check.text, finding.line, finding.code)
            if noqa is not None:
                edits = FileEdits(check.path, check.text, (noqa,), check.version)
                actions.append(
                    types.CodeAction(
                        title=f"Add # noqa: {finding.code}",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        edit=workspace_edit([edits], target),
                    )
                )
    if FIX_ALL in wanted:
        safe = tuple(f for f in check.findings if f.applies(unsafe_fixes=False))
        if safe:
            action = types.CodeAction(title="Fix all safe mcp-codemod findings", kind=FIX_ALL)
            _set_edit(action, lambda: fix_edits(check, safe, open_text, editable), target)
            actions.append(action)
    return [action for action in actions if action.disabled is None or target.disabled_support]


def _kinds(only: list[str] | None) -> set[str]:
    """Our kinds that `only` asks for: a kind asks for itself and the kinds under it."""
    ours = {types.CodeActionKind.QuickFix.value, FIX_ALL}
    if not only:
        return ours
    return {
        kind for kind in ours for asked in only if kind == asked or kind.startswith(f"{asked}.")
    }


def _fix_action(
    check: DocumentCheck,
    finding: Finding,
    diagnostic: types.Diagnostic,
    open_text: OpenText,
    editable: Callable[[Path], bool],
    target: EditTarget,
) -> types.CodeAction:
    assert finding.fix is not None
    unsafe = finding.fix.safety is Safety.UNSAFE
    title = f"Fix {finding.code}: {finding.fix.title}" + (" (unsafe)" if unsafe else "")
    action = types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=not unsafe,
    )
    changes = _set_edit(action, lambda: fix_edits(check, (finding,), open_text, editable), target)
    others = sorted({change.path.name for change in changes if change.path != check.path})
    if others:
        action.title += f" (edits {', '.join(others)})"
    return action


def _set_edit(
    action: types.CodeAction,
    changes: Callable[[], tuple[FileEdits, ...]],
    target: EditTarget,
) -> tuple[FileEdits, ...]:
    """The action's edit, or the reason it is disabled (it says where to fix by hand)."""
    try:
        made = changes()
        action.edit = workspace_edit(made, target)
    except FixUnavailable as reason:
        action.disabled = types.CodeActionDisabled(reason=str(reason))
        return ()
    return made


def _diagnostic_of(
    finding: Finding,
    positions: Positions,
    descriptions: dict[str, types.CodeDescription | None],
) -> types.Diagnostic:
    return types.Diagnostic(
        range=positions.range(*positions.finding_span(finding.line, finding.column)),
        message=finding.message,
        severity=types.DiagnosticSeverity.Warning,
        code=finding.code,
        code_description=descriptions[finding.code],
        source=SOURCE,
    )


def workspace_edit(
    changes: tuple[FileEdits, ...] | list[FileEdits], target: EditTarget
) -> types.WorkspaceEdit:
    """The edits as the client takes them; raises FixUnavailable for a file to create when it
    cannot create files."""

    def text_edits(change: FileEdits) -> list[types.TextEdit]:
        positions = Positions(change.text, target.units)
        return [
            types.TextEdit(range=positions.range(start, end), new_text=replacement)
            for start, end, replacement in change.edits
        ]

    if not target.document_changes:
        if any(change.create for change in changes):
            raise FixUnavailable("the client cannot create files (documentChanges)")
        return types.WorkspaceEdit(
            changes={change.path.as_uri(): text_edits(change) for change in changes}
        )
    document_changes: list = []
    for change in changes:
        uri = change.path.as_uri()
        if change.create:
            document_changes.append(types.CreateFile(uri=uri))
        document_changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=change.version
                ),
                edits=text_edits(change),
            )
        )
    return types.WorkspaceEdit(document_changes=document_changes)


def hover(
    check: DocumentCheck, position: types.Position, units: Callable[[str], int]
) -> types.Hover | None:
    """The rule's why and fix, from its own metadata, for the findings under `position`."""
    positions = Positions(check.text, units)
    parts = []
    for finding in check.findings:
        span = positions.range(*positions.finding_span(finding.line, finding.column))
        if not _contains(span, position):
            continue
        rule = RULES_BY_CODE[finding.code]
        text = (
            f"**{rule.code}** ({rule.name}): {rule.summary}\n\n"
            f"**Why is this bad?** {rule.why}\n\n**Fix:** {rule.fix_title}\n\n"
            f"**Fix safety:** {rule.fix_safety}"
        )
        if finding.fix is not None and finding.fix.advice:
            text += f"\n\n**Out of the fix's reach:** {finding.fix.advice}"
        parts.append(text)
    if not parts:
        return None
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)
        )
    )


def _contains(span: types.Range, position: types.Position) -> bool:
    start, end = span.start, span.end
    return (
        (start.line, start.character)
        <= (position.line, position.character)
        <= (
            end.line,
            end.character,
        )
    )
