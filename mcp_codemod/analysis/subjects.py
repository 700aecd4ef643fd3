"""The subjects of the rules, as the linker produces them: each tool parameter with what its
annotation admits, each registered tool as a whole, the registrations whose tools cannot be
seen, and the servers they land on."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mcp_codemod.analysis.facades import Facade
from mcp_codemod.analysis.facts import AnnotationSite, Function, Parameter, ServerSwap
from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.shapes import Shape
from mcp_codemod.analysis.unchecked import Unchecked


@dataclass(frozen=True)
class ResolvedServer:
    framework: Framework | None  # None: not resolvable; the tool is counted, not guessed at
    description: str  # how the server was made, for messages
    strict_input_validation: bool = False
    origin: tuple[str, int] | None = None  # (module, line) of its construction
    swap: ServerSwap | None = None  # where the fix can make it a guarded server
    facade: Facade | None = None  # the tools are declared on this framework's application object
    # Other constructions this server may be (another branch's, or, for a server whose own
    # construction is out of sight, each pre-parsing server its project builds): the fix
    # guards them all.
    also_swaps: tuple[ServerSwap, ...] = ()
    # Out of sight, in a project that builds more pre-parsing servers than one fix may guard:
    # the fix guards none of them for it, so a marker on its parameters protects nothing until
    # the servers are guarded by hand.
    guard_by_hand: bool = False
    # Every framework the server can be at run time, when its class is chosen between branches
    # (`try`/`except ImportError`, `if sys.version_info ...`), in source order; `framework` is
    # the first that pre-parses, the one the rules judge by. Empty: `framework` alone.
    frameworks: tuple[Framework, ...] = ()

    def runs_on(self, framework: Framework) -> bool:
        """Whether the server can be of `framework` in some environment its source supports."""
        return framework in self.frameworks or self.framework is framework

    @property
    def title(self) -> str:
        """The frameworks it can run on, for messages: "mcp 2.x MCPServer or mcp 1.x FastMCP"."""
        if not self.frameworks or self.framework is None:
            return self.framework.title if self.framework is not None else "unknown framework"
        judged = self.framework.pre_parses_json
        alike = [f.title for f in self.frameworks if f.pre_parses_json is judged]
        if len(alike) == len(self.frameworks):
            return " or ".join(alike)
        every = " or ".join(framework.title for framework in self.frameworks)
        return f"{' or '.join(alike)} (the server runs on {every})"


@dataclass(frozen=True)
class ToolParameter:
    """One argument of one registered tool, with everything the rules and the fixer need."""

    path: str
    tool: str
    function: Function
    parameter: Parameter
    # What its annotation admits, as a structured type (`analysis/shapes.py`): what rules ask.
    shape: Shape
    server: ResolvedServer
    # Third-party: the file outside the project (found on `sys.path`) that defines the tool
    # function. `path`, the function's and the parameter's positions are then the
    # registration's, and no marker can be added: `fix_site` has no site; only the server can
    # be fixed.
    library: str | None = None
    # The module that rewrites the tool's file before it execs it, at each start: a marker
    # there would not last, so only the server can be fixed (`analysis/scan/exec_files.py`).
    generated_by: str | None = None
    # The project's mcp requirement when every release it allows is older than 1.12, whose
    # pre-parse decodes exact `str` too (`engine/declared_sdk.py`).
    old_sdk: str | None = None

    @property
    def fix_site(self) -> tuple[str, AnnotationSite | None]:
        """Where a marker goes: on the parameter's own annotation, also when that is a type alias
        (marking the alias's definition would change every other use of it too); nowhere for a
        library's function or in a file generated at each start.

        Standalone fastmcp reads the string of `Annotated[T, "text"]` as the parameter's
        description, as it reads `Field(description="text")`, but only while the string stands
        alone: on a fastmcp server the site keeps its `sole_description`, which the fix spells
        as that `Field` beside the marker; elsewhere the string describes nothing and the marker
        goes beside it. A server that can be either gets no marker there: the `Field` would be
        a new description under the mcp SDK, the lone string a lost one under fastmcp."""
        if self.library is not None or self.generated_by is not None:
            return self.path, None
        site = self.parameter.site
        if site is None or site.sole_description is None:
            return self.path, site
        frameworks = set(self.server.frameworks) | {self.server.framework}
        if frameworks == {Framework.FASTMCP}:
            return self.path, site
        if Framework.FASTMCP in frameworks:
            return self.path, None
        return self.path, replace(site, sole_description=None)


@dataclass(frozen=True)
class RegisteredTool:
    """One registered tool as a whole: its function, its server and its arguments, for the rules
    about a tool rather than one of its parameters (a tool that takes no arguments)."""

    path: str
    tool: str
    function: Function  # a library's function carries the registration's position
    server: ResolvedServer
    # The arguments the SDK lists for it: the function's parameters less those a facade fills
    # (checked as `ToolParameter`s, or unchecked when an annotation cannot be followed).
    parameters: tuple[Parameter, ...]


@dataclass(frozen=True)
class UncheckedRegistration:
    path: str
    line: int
    reason: str
    kind: Unchecked
    server: ResolvedServer  # the server it lands on, as far as it is known
    # UNTIED: the other servers it may land on, each of which it counts against.
    also_on: tuple[ResolvedServer, ...] = ()


@dataclass(frozen=True)
class ServerTools:
    """A server of known framework and the registrations on it whose tools the analysis cannot
    see: the subject of the server-level rules."""

    server: ResolvedServer
    unchecked: tuple[UncheckedRegistration, ...]  # sorted by path and line


@dataclass(frozen=True)
class LinkResult:
    parameters: tuple[ToolParameter, ...]
    unchecked: tuple[UncheckedRegistration, ...]
    tools: int
    registered: tuple[RegisteredTool, ...] = ()  # each tool whose function was seen
    work: int = 0  # the steps the linking took (analysis/link/work.py)

    @property
    def servers(self) -> tuple[ServerTools, ...]:
        """Each server of known framework with unchecked registrations, once: by its construction
        where it is known, else by how it was reached."""
        grouped: dict[object, list[UncheckedRegistration]] = {}
        servers: dict[object, ResolvedServer] = {}
        for tool in self.unchecked:
            for server in (tool.server, *tool.also_on):
                if server.framework is None:
                    continue
                key = server.origin or (server.description, server.swap)
                grouped.setdefault(key, []).append(tool)
                servers.setdefault(key, server)
        return tuple(
            ServerTools(servers[key], tuple(sorted(tools, key=lambda t: (t.path, t.line))))
            for key, tools in grouped.items()
        )
