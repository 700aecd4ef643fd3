"""What one module says about servers, tools and types: plain, picklable data.

A module's facts depend on its own text only, so they can be computed in parallel and cached by
content hash; references to other modules stay symbolic (qualified names) until `linker` joins them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.type_exprs import TypeExpr


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 0-based, in characters


@dataclass(frozen=True)
class Span:
    start: Position
    end: Position


class ServerKind(Enum):
    """Where the object a server reference names comes from."""

    CONSTRUCT = "construct"  # `X(...)`: a server if X is a server class, else a factory's result
    IMPORT = "import"  # a name bound in another module
    ANNOTATED = "annotated"  # a parameter or attribute annotated with a class
    PARAMETER = "parameter"  # an unannotated parameter: whatever its callers pass
    # A name no statement of the module binds, and no star import may bind; the module that
    # execs this file binds it (`analysis/scan/exec_files.py`), if any does.
    FREE = "free"
    UNKNOWN = "unknown"


class FunctionKind(Enum):
    """How a function reference reaches the function."""

    LOCAL = "local"  # a function defined in the same module
    IMPORT = "import"  # by qualified name: a name of another module, or a class called
    METHOD = "method"  # `instance.method`, the instance made by calling a class, or annotated
    PARAMETER = "parameter"  # a helper's parameter: whatever its callers pass
    # `wrap(name, fn)`: the tool is whichever of `candidates` is a function (the SDKs read the
    # signature through `functools.wraps`' `__wrapped__`)
    WRAPPED = "wrapped"
    LOOP = "loop"  # a loop variable over a collection that is not a literal in sight
    UNKNOWN = "unknown"  # what is referred to is not a plain name


@dataclass(frozen=True)
class ServerRef:
    """Where the object whose `.tool` is called comes from."""

    kind: ServerKind
    # The qualified name of what the server comes from: CONSTRUCT, what is called (a server
    # class, a factory, an application class); IMPORT, the object imported; ANNOTATED, the
    # annotation's class. "" for the other kinds.
    qualified: str = ""
    free_name: str = ""  # FREE: the name, which the module that execs this file may bind
    strict_input_validation: bool = False
    # `guard(FastMCP(...))`: the qualified name of the `guard` called (the runtime's, or its
    # project copy's: the linker knows the `runtime-module` setting), else ""
    guarded_by: str = ""
    class_span: Span | None = None  # CONSTRUCT: the class expression the fix renames
    line: int = 0  # CONSTRUCT: with the module, identifies one server object
    # A parameter (PARAMETER, or ANNOTATED with a server class): the function it belongs to, and
    # its position (counting `self`) and name, so that callers can tell which server it is.
    function: str = ""
    argument: tuple[int, str] | None = None
    # The application object (qualified class, analysis/facades.py) through which tools are
    # registered on this server: `MCPApp(...)`, or the server given to `MCPApp(mcp=...)`.
    facade: str = ""
    # CONSTRUCT: the constructions the same name was bound to before, in other branches
    # (`if ...: mcp = FastMCP("a") else: mcp = FastMCP("b")`): each may be the server.
    alternatives: tuple[ServerRef, ...] = ()
    # CONSTRUCT and ANNOTATED: the other classes `qualified`'s name may be bound to at run
    # time, qualified (`try: from mcp.server.mcpserver import MCPServer` / `except ImportError:
    # from mcp.server.fastmcp import FastMCP as MCPServer`), `?` for a binding that is no
    # import; the server may be an instance of any of them.
    class_choices: tuple[str, ...] = ()
    call_span: Span | None = None  # CONSTRUCT: the whole call, which a fix may wrap in `guard()`


@dataclass(frozen=True)
class FunctionRef:
    """A function as an expression refers to it. Each kind fills its own fields, the others
    keep their defaults."""

    kind: FunctionKind
    qualname: str = ""  # LOCAL: the function's qualname in this module
    # IMPORT: the qualified name of a function, of a class called (through its `__init__`), or
    # of a method of an instance another module makes (`pkg.server.tools.reader`)
    qualified: str = ""
    # METHOD: the instance's class, qualified (what the instance was made by calling, or the
    # class it is annotated with)
    instance_class: str = ""
    method: str = ""  # METHOD: the method's name
    helper: str = ""  # PARAMETER: the qualname in this module of the function it belongs to
    argument: tuple[int, str] | None = None  # PARAMETER: position (counting `self`) and name
    candidates: tuple[FunctionRef, ...] = ()  # WRAPPED: the wrapper's arguments
    collection: str = ""  # LOOP: the qualified name of the collection, when it is a name
    # UNKNOWN, WRAPPED, and LOOP over what is no name: the source text, for messages only
    text: str = ""
    # The function called to make the tool (`factory(...)`, or a name bound to that call): the
    # tool's signature is generated when that function returns only functions whose
    # `__signature__` it assigns.
    factory: FunctionRef | None = None


UNPACKED = "**"  # the keyword of a call's `**mapping` argument (`CallSite.function_keywords`)


@dataclass(frozen=True)
class CallSite:
    """A call that passes a possible server or function to a function: `register_tools(mcp)`,
    `register_tool("search", search)`; or a decorator, which passes the decorated function."""

    function: FunctionRef
    bound: bool  # called on an instance: the function's first parameter is not in `arguments`
    arguments: tuple[ServerRef | None, ...]
    keywords: tuple[tuple[str, ServerRef], ...]
    functions: tuple[FunctionRef | None, ...] = ()  # the positional arguments that may be functions
    function_keywords: tuple[tuple[str, FunctionRef], ...] = ()
    # `@helper(...)` on a function: the call's result is called with it (a decorator factory)
    decorates: FunctionRef | None = None
    line: int = 0
    # The positional and keyword arguments that are string literals: a helper's tool name.
    strings: tuple[str | None, ...] = ()
    string_keywords: tuple[tuple[str, str], ...] = ()
    # The function (qualname) whose `return` statement this call is: `def reader(self, title):
    # return self._register(title)` returns what `_register` returns, a decorator perhaps.
    returned_by: str = ""


@dataclass(frozen=True)
class Registration:
    server: ServerRef
    server_text: str  # the server expression as written (`mcp`, `self.mcp`)
    function: FunctionRef
    tool_name: str | None
    position: Position
    # The tool's name is this parameter (position counting `self`, name) of the enclosing helper:
    # `def _register(name, fn): mcp.tool(name=name)(fn)` takes it from each call.
    tool_name_argument: tuple[int, str] | None = None
    # Given to the constructor of a class that is no framework's (`Notes("t", tools=[...])`):
    # a registration only where the linker finds that class to be a server class (a project
    # subclass); most classes taking `tools=` are no server (an agent library's).
    if_server_class: bool = False


@dataclass(frozen=True)
class AnnotationSite:
    """Where a fix puts a marker: around `span`, or appended to an existing `Annotated[...]`."""

    span: Span
    append_at: Position | None  # set when the annotation already is `Annotated[...]`
    # `Annotated[T, "text"]`: the string, its one metadata, which standalone fastmcp reads as
    # the parameter's description only while it stands alone (a marker beside it drops it).
    sole_description: Span | None = None


@dataclass(frozen=True)
class Parameter:
    name: str
    position: Position
    annotation: TypeExpr | None
    annotation_text: str | None
    site: AnnotationSite | None
    default_is_strict: bool  # `x: int = Field(strict=True)`
    alias: str | None  # the annotation is exactly this module-level alias (qualified)
    # The value a missing argument takes, as written: `5`, `None`, the `5` of `Field(5)` or
    # `Field(default=5)`, `list()` for `Field(default_factory=list)`; None when it is required
    # (no default, or a `Field` without one).
    default: str | None = None
    # The keywords given to a pydantic `Field(...)` that is the default (`description`,
    # `title`): pydantic writes some of them beside the value's schema.
    field_keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Function:
    qualname: str
    position: Position  # of the `def` keyword's line
    parameters: tuple[Parameter, ...]
    returns: tuple[ServerRef, ...]  # what it may return that may be a server (a factory)
    returns_functions: tuple[str, ...] = ()  # nested functions it returns (a decorator factory)
    # It returns only (None or) nested functions whose `__signature__` it assigns first: what it
    # makes is a tool with a generated signature (`analysis/scan/signed_returns.py`).
    returns_signed_functions: bool = False
    # `@functools.wraps(fn)`: the SDKs read the signature of `fn` (through `__wrapped__`), not
    # the wrapper's `*args, **kwargs`.
    wraps: FunctionRef | None = None


@dataclass(frozen=True)
class Alias:
    value: TypeExpr
    type_statement: bool


@dataclass(frozen=True)
class ClassBase:
    qualified: str
    span: Span
    # What else the base's name may be bound to at run time (`Symbol.alternatives`).
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerSwap:
    """Where a fix makes a server guarded: rename the server class at `span` in `path` to the
    guarded class of `framework` (a construction, or the base of a project subclass); or, with
    `wrap`, pass the construction at `span` through `guard(...)`, which guards it whichever
    framework the class chosen at run time is (docs/fix.md)."""

    path: str
    span: Span
    framework: Framework
    wrap: bool = False


class ExecText(str, Enum):
    """What text an `exec` of a file beside the module runs."""

    FILE = "file"  # read from the file: `exec(open(path).read())`
    # The text the module writes to the file before it runs it (the file is generated at each
    # start): the file as found is the text of the last start.
    GENERATED = "generated"
    OTHER = "other"  # `compile(text, path, "exec")` of a text not provably the file's


@dataclass(frozen=True)
class ExecFile:
    """A module-level `exec` of a file beside the module, in the module's own namespace."""

    name: str  # the file's path relative to the module's folder
    text: ExecText
    line: int


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
    # `guard(server)` and `install()`: each with the qualified name of the function called,
    # whatever its module (a project copy of the runtime counts: the linker decides)
    guard_calls: tuple[tuple[str, ServerRef], ...]
    install_calls: tuple[str, ...]
    star_imports: tuple[str, ...]  # modules imported with `from module import *`
    exports: tuple[str, ...] | None  # a literal `__all__`
    # Functions whose `__signature__` is assigned: the SDK reads that, not the `def`
    generated_signatures: tuple[FunctionRef, ...]
    # Module-level names bound to a literal list, tuple or set (or a dict's `.values()`): each
    # element's function, when it is one (a loop over the collection registers them)
    collections: dict[str, tuple[FunctionRef | None, ...]]
    noqa: dict[
        int, frozenset[str] | None
    ]  # line → suppressed codes; None when the comment names no code
    class_fields: dict[str, tuple[TypeExpr, ...]] = field(default_factory=dict)
    """The annotations of each class's own fields (`corner: tuple[int, int]` in its body): what a
    model, dataclass or TypedDict used as a parameter holds."""
    exec_files: tuple[ExecFile, ...] = ()
    # Each application object constructed here (analysis/facades.py): the line of its
    # construction, and the server its framework registers its own tools on.
    facade_servers: tuple[tuple[int, ServerRef], ...] = ()
    # Each server class constructed here (by its name, `FastMCP(...)`, or a class of this
    # module), bound to a name or returned: the servers the module makes, guarded or not.
    constructions: tuple[ServerRef, ...] = ()
    # Uses of a possible server that hand its registration on to code not followed: (line, the
    # server, what the use is). `tool = mcp.tool`, `getattr(mcp, "tool")`, `return mcp.tool()`.
    escapes: tuple[tuple[int, ServerRef, str], ...] = ()
    # The server object itself stored where the analysis does not follow it: (line, the
    # server, where it goes). `registry.append(mcp)`, `servers = {"a": mcp}`,
    # `self.servers[name] = mcp`, `state.server = mcp`: code that reads it back may register
    # tools on it.
    stores: tuple[tuple[int, ServerRef, str], ...] = ()
    # Module-level imported names that other branches bind to something else too: the other
    # qualified names (`?` for a binding that is no import), as `Symbol.alternatives`.
    import_alternatives: dict[str, tuple[str, ...]] = field(default_factory=dict)
