"""What one module says about servers, tools and types: plain, picklable data.

A module's facts depend on its own text only, so they can be computed in parallel and cached by
content hash; references to other modules stay symbolic (qualified names) until `linker` joins them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.types import TypeExpr


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 0-based, in characters


@dataclass(frozen=True)
class Span:
    start: Position
    end: Position


class RefKind(str, Enum):
    CONSTRUCT = "construct"  # `X(...)`: a server if X is a server class, else a factory's result
    LOCAL = "local"  # a function defined in the same module
    ANNOTATED = "annotated"  # a parameter or attribute annotated with a class
    IMPORT = "import"  # a name bound in another module
    PARAMETER = "parameter"  # an unannotated parameter: whatever its callers pass
    METHOD = "method"  # `instance.method`: `target` is the instance's class, qualified
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ServerRef:
    """Where the object whose `.tool` is called comes from."""

    kind: RefKind
    target: str  # qualified class, factory or object name; source text when unknown
    strict_input_validation: bool = False
    guarded_by_call: bool = False  # `guard(FastMCP(...))`
    class_span: Span | None = None  # CONSTRUCT: the class expression the fix renames
    line: int = 0  # CONSTRUCT: with the module, identifies one server object
    # A parameter (PARAMETER, or ANNOTATED with a server class): the function it belongs to, and
    # its position (counting `self`) and name, so that callers can tell which server it is.
    function: str = ""
    argument: tuple[int, str] | None = None


@dataclass(frozen=True)
class FunctionRef:
    kind: RefKind  # LOCAL, IMPORT, METHOD, or UNKNOWN when the target is not a plain name
    target: str  # qualname here, qualified name elsewhere, a METHOD's class, or source text
    method: str = ""  # METHOD: the method's name


@dataclass(frozen=True)
class CallSite:
    """A call that passes a possible server to a function: `register_tools(mcp)`."""

    function: FunctionRef
    bound: bool  # called on an instance: the function's first parameter is not in `arguments`
    arguments: tuple[ServerRef | None, ...]
    keywords: tuple[tuple[str, ServerRef], ...]


@dataclass(frozen=True)
class Registration:
    server: ServerRef
    server_text: str  # the server expression as written (`mcp`, `self.mcp`)
    function: FunctionRef
    tool_name: str | None
    position: Position


@dataclass(frozen=True)
class AnnotationSite:
    """Where a fix puts a marker: around `span`, or appended to an existing `Annotated[...]`."""

    span: Span
    append_at: Position | None  # set when the annotation already is `Annotated[...]`


@dataclass(frozen=True)
class Parameter:
    name: str
    position: Position
    annotation: TypeExpr | None
    annotation_text: str | None
    site: AnnotationSite | None
    default_is_strict: bool  # `x: int = Field(strict=True)`
    alias: str | None  # the annotation is exactly this module-level alias (qualified)


@dataclass(frozen=True)
class Function:
    qualname: str
    position: Position  # of the `def` keyword's line
    parameters: tuple[Parameter, ...]
    returns: tuple[ServerRef, ...]  # what it may return that may be a server (a factory)


@dataclass(frozen=True)
class Alias:
    value: TypeExpr
    type_statement: bool
    site: AnnotationSite


@dataclass(frozen=True)
class ClassBase:
    qualified: str
    span: Span


@dataclass(frozen=True)
class ServerSwap:
    """Where a fix makes a server guarded: rename the server class at `span` in `path` to the
    guarded class of `framework` (a construction, or the base of a project subclass)."""

    path: str
    span: Span
    framework: Framework


@dataclass(frozen=True)
class ModuleFacts:
    module: str
    path: str
    imports: dict[str, str]  # module-level names bound by import → qualified name
    servers: dict[str, ServerRef]  # module-level names that may hold a server
    functions: dict[str, Function]
    classes: dict[str, tuple[ClassBase, ...]]
    aliases: dict[str, Alias]
    registrations: tuple[Registration, ...]
    calls: tuple[CallSite, ...]
    guard_calls: tuple[ServerRef, ...]  # `guard(server)`
    installs_guard: bool  # `mcp_codemod.runtime.install()` is called
    noqa: dict[
        int, frozenset[str] | None
    ]  # line → suppressed codes; None when the comment names no code
