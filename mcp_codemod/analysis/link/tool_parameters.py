"""A registered tool's parameters as the rules' subjects: what each annotation admits once
aliases, star imports and the classes of the project and its libraries are followed
(`analysis/shapes.py`), or why it cannot be told (an unchecked registration)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mcp_codemod.analysis.facades import Facade
from mcp_codemod.analysis.facts import ExecFile, Function, ModuleFacts, Parameter, Registration
from mcp_codemod.analysis.link.module_source import ModuleSource
from mcp_codemod.analysis.link.names import MAX_HOPS, ProjectNames
from mcp_codemod.analysis.link.reach import Reached
from mcp_codemod.analysis.link.served import SDK_SERVERS
from mcp_codemod.analysis.scan.scope import STAR
from mcp_codemod.analysis.shape_questions import Text, text_treatment, unknown_reason
from mcp_codemod.analysis.shapes import MAX_ALIAS_DEPTH, AliasTooDeep, Kind, Shape, shape_of
from mcp_codemod.analysis.subjects import (
    RegisteredTool,
    ResolvedServer,
    ToolParameter,
    UncheckedRegistration,
)
from mcp_codemod.analysis.type_exprs import TCall, TName, TSubscript, TUnion, TypeExpr
from mcp_codemod.analysis.unchecked import Unchecked


class ToolParameters:
    def __init__(
        self,
        source: ModuleSource,
        names: ProjectNames,
        execs: Callable[[ModuleFacts], tuple[ModuleFacts, ExecFile] | None],
        runtime_copy: str | None,
    ) -> None:
        self.source = source
        self.names = names
        self.execs = execs  # the module that execs a file, and how
        self.runtime_copy = runtime_copy
        # What each annotation admits, per module: the same few (`str | None`) recur in most
        # tools. An answer depends only on the names the module sees, which loading more
        # modules does not change; an annotation too deep to follow is never kept.
        self.shaped: dict[tuple[str, TypeExpr | None], Shape] = {}

    def parameters(
        self,
        owner: ModuleFacts,
        function: Function,
        registration: Registration,
        server: ResolvedServer,
        unchecked: list[UncheckedRegistration],
    ) -> list[ToolParameter]:
        """The tool's parameters; one whose annotation cannot be followed goes to `unchecked`."""
        tool = tool_name(registration, function)
        executed = self.execs(owner)
        executor = executed[0] if executed is not None else None
        result = []
        for parameter in arguments(function, server.facade):
            annotation = parameter.annotation
            if owner.star_imports and annotation is not None:
                annotation = _unstarred_type(
                    annotation, lambda name: self.names.unstarred(name, owner)
                )
            if executor is not None and annotation is not None:
                # `Text` that the exec'd file never binds is the exec'ing module's.
                annotation = _unstarred_type(
                    annotation, lambda name: _bound_in(executor, name), prefix="?"
                )
            key = (owner.path, annotation)
            shape = self.shaped.get(key)
            try:
                if shape is None:
                    shape = self.shaped[key] = shape_of(
                        annotation,
                        lambda name: self.names.alias_value(name, owner),
                        lambda name: self.names.class_fields(name, owner),
                        self.runtime_copy,
                        lambda name: self.class_or_library_alias(name, owner),
                    )
            except AliasTooDeep:
                unchecked.append(
                    UncheckedRegistration(
                        owner.path,
                        parameter.position.line,
                        f"`{parameter.name}`: its annotation nests more than {MAX_ALIAS_DEPTH} "
                        "type aliases; too deep to follow",
                        Unchecked.NOT_FOUND,
                        server,
                    )
                )
                continue
            if server.framework in SDK_SERVERS and text_treatment(shape) is Text.UNKNOWN:
                # What the SDK does with its text is unknown: as unchecked as a tool not found.
                unchecked.append(
                    UncheckedRegistration(
                        owner.path,
                        parameter.position.line,
                        f"tool `{tool}`: `{parameter.name}: {parameter.annotation_text}` names "
                        f"{unknown_reason(shape)}",
                        Unchecked.UNRESOLVED_ANNOTATION,
                        server,
                    )
                )
            result.append(ToolParameter(owner.path, tool, function, parameter, shape, server))
        return result

    def registered(
        self, path: str, function: Function, registration: Registration, server: ResolvedServer
    ) -> RegisteredTool:
        tool = tool_name(registration, function)
        return RegisteredTool(path, tool, function, server, arguments(function, server.facade))

    def class_or_library_alias(
        self, qualified: str, near: ModuleFacts, hops: int = 0
    ) -> Shape | tuple[TypeExpr, bool] | None:
        """What a class admits, of the project (an enum, a model without fields, a plain class)
        or of a library read from `sys.path`; or the value of a library's alias."""
        chain = list(self.names.project_classes(qualified, near))
        if chain:
            bases = [base.qualified for module, name in chain for base in module.classes[name]]
            hooks = any(_has_schema_hook(module, name) for module, name in chain)
            return self.class_admits(qualified, bases, hooks, chain[-1][0], hops)
        found = self.library_definition(qualified, near)
        if found is None:
            return None
        module, name = found
        if name in module.aliases:
            alias = module.aliases[name]
            return alias.value, alias.type_statement
        bases = [base.qualified for base in module.classes[name]]
        return self.class_admits(qualified, bases, _has_schema_hook(module, name), module, hops)

    def class_admits(
        self, qualified: str, bases: list[str], hooks: bool, near: ModuleFacts, hops: int
    ) -> Shape:
        if any(base in _ENUM_BASES for base in bases):
            if "builtins.str" in bases or "enum.StrEnum" in bases:
                # A member's text may be one the pre-parse decodes (`NULL = "null"`): the values
                # are not read.
                return _unknown(qualified, "an enum of texts whose values it does not read")
            return Shape(Kind.OTHER, source=qualified)
        if any(base in _MODEL_BASES for base in bases):
            return Shape(Kind.MODEL, source=qualified)
        if hooks:
            return _unknown(qualified, "a class with its own pydantic schema")
        if "builtins.str" in bases:
            return _unknown(qualified, "a subclass of str")
        for base in bases:
            if base in ("builtins.object", "typing.Generic") or hops >= _MAX_BASES:
                continue
            found = self.class_or_library_alias(base, near, hops + 1)
            if not isinstance(found, Shape) or found.kind is Kind.UNKNOWN:
                return _unknown(qualified, f"a class whose base `{base}` it cannot read")
            return replace(found, source=qualified)
        # A plain class: pydantic checks that the value is an instance, which no text is.
        return Shape(Kind.OTHER, source=qualified)

    def library_definition(
        self, qualified: str, near: ModuleFacts
    ) -> tuple[ModuleFacts, str] | None:
        """The module on `sys.path`, outside the project, that defines a class or an alias,
        following re-exports; its source is read, never imported."""
        if qualified.startswith("?"):
            return None
        qualified = self.names.unstarred(qualified, near) or qualified
        for _ in range(MAX_HOPS):
            module_name, _, name = qualified.rpartition(".")
            if not module_name or self.names.load(module_name, near) is not None:
                return None  # a module of the project: what it defines was asked already
            library = self.source.load_library(module_name)
            if library is None:
                return None
            if name in library.classes or name in library.aliases:
                return library, name
            if name not in library.imports:
                return None
            qualified = library.imports[name]
        return None

    def library_parameters(
        self,
        module: ModuleFacts,
        tool: Reached,
        registration: Registration,
        server: ResolvedServer,
        unchecked: list[UncheckedRegistration],
    ) -> list[ToolParameter]:
        """A library's tool function: reported on the registration, where the project is."""
        at = registration.position
        function = replace(tool.function, position=at)
        # Its unchecked parameters are reported where the project registers it, too.
        unchecked: list[UncheckedRegistration] = []
        found = self.parameters(tool.owner, tool.function, registration, server, unchecked)
        unchecked.extend(replace(u, path=module.path, line=at.line) for u in unchecked)
        return [
            replace(
                found,
                path=module.path,
                function=function,
                parameter=replace(found.parameter, position=at, site=None),
                library=tool.owner.path,
            )
            for found in found
        ]


_ENUM_BASES = frozenset(
    f"enum.{name}" for name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag")
)
_MODEL_BASES = frozenset(
    (
        "pydantic.BaseModel",
        "pydantic.main.BaseModel",
        "typing.TypedDict",
        "typing_extensions.TypedDict",
        "typing.NamedTuple",
    )
)
_SCHEMA_HOOKS = ("__get_pydantic_core_schema__", "__get_validators__")
_MAX_BASES = 8  # classes up a chain of library bases that are read


def tool_name(registration: Registration, function: Function) -> str:
    return registration.tool_name or function.qualname.rsplit(".", 1)[-1]


def arguments(function: Function, facade: Facade | None) -> tuple[Parameter, ...]:
    """The parameters the SDK lists as the tool's arguments: a facade's framework fills some."""
    if facade is None:
        return function.parameters
    return tuple(p for p in function.parameters if facade.tool_parameter(p))


def _unknown(qualified: str, why: str) -> Shape:
    return Shape(Kind.UNKNOWN, source=qualified, opaque=f"`{qualified}`, {why}")


def _has_schema_hook(module: ModuleFacts, name: str) -> bool:
    return any(f"{name}.{hook}" in module.functions for hook in _SCHEMA_HOOKS)


def _bound_in(module: ModuleFacts, unbound: str) -> str | None:
    """The qualified name of `?name` in the module whose namespace binds it."""
    name = unbound[1:]
    if name in module.imports:
        return module.imports[name]
    if name in module.aliases or name in module.classes:
        return f"{module.module}.{name}"
    return None


def _unstarred_type(
    expr: TypeExpr, unstarred: Callable[[str], str | None], prefix: str = STAR
) -> TypeExpr:
    """The annotation with the names that star imports bring in (or another namespace binds:
    `prefix`) qualified."""
    if isinstance(expr, TName) and expr.qualified.startswith(prefix):
        return TName(unstarred(expr.qualified) or expr.qualified)
    if isinstance(expr, TSubscript):
        return TSubscript(
            _unstarred_type(expr.base, unstarred, prefix),
            tuple(_unstarred_type(arg, unstarred, prefix) for arg in expr.args),
        )
    if isinstance(expr, TUnion):
        return TUnion(tuple(_unstarred_type(member, unstarred, prefix) for member in expr.members))
    if isinstance(expr, TCall) and expr.function.startswith(prefix):
        return replace(expr, function=unstarred(expr.function) or expr.function)
    return expr
