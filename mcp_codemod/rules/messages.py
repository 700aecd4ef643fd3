"""What rules' messages share: a parameter as `name: annotation`, a sentence's first letter."""

from __future__ import annotations

from mcp_codemod.analysis.subjects import ToolParameter


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def describe(parameter: ToolParameter) -> str:
    """`name: annotation` for messages; a long annotation is cut (the finding keeps it whole)."""
    annotation = parameter.parameter.annotation_text
    name = parameter.parameter.name
    if annotation is None:
        return f"`{name}` (no annotation)"
    if len(annotation) > _LONGEST_ANNOTATION:
        annotation = annotation[: _LONGEST_ANNOTATION - 1].rstrip() + "…"
    return f"`{name}: {annotation}`"


_LONGEST_ANNOTATION = 80
