"""Where the mcp SDK describes a model by a `$ref` to its definition, and what pydantic writes
beside that `$ref`: what the rules `openai_strict_schema` and `legacy_gemini_ref` ask of a model
parameter. (fastmcp inlines models.)"""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shapes import Kind
from mcp_codemod.analysis.subjects import ToolParameter
from mcp_codemod.analysis.type_exprs import ANNOTATED, TCall, TName, TSubscript

# What pydantic writes beside a field's `$ref` when the field's `Field` declares it.
_BESIDE_REF = frozenset(("description", "title", "examples", "deprecated"))
_FIELDS = frozenset(("pydantic.Field", "pydantic.fields.Field"))


def models_are_refs(parameter: ToolParameter) -> bool:
    return parameter.server.framework is not Framework.FASTMCP


def keywords_beside_ref(parameter: ToolParameter) -> bool:
    """Whether the parameter is a model whose own `$ref` pydantic writes with keywords beside
    it (a description, a title, a default other than None); a model inside a union or a list
    is a `$ref` alone."""
    if parameter.shape.kind is not Kind.MODEL:
        return False
    keywords = set(parameter.parameter.field_keywords)
    annotation = parameter.parameter.annotation
    if (
        isinstance(annotation, TSubscript)
        and isinstance(annotation.base, TName)
        and annotation.base.qualified in ANNOTATED
    ):
        for meta in annotation.args[1:]:
            if isinstance(meta, TCall) and meta.function in _FIELDS:
                keywords.update(meta.keywords)
    default = parameter.parameter.default
    written = default not in (None, "None") and "default_factory" not in keywords
    return written or bool(keywords & _BESIDE_REF)
