"""The server as a run takes it: of the stated framework when its own is unknown, guarded where
a `guard()` or `install()` covers it; and which servers are the mcp SDK's."""

from __future__ import annotations

from mcp_codemod.analysis.frameworks import Framework
from mcp_codemod.analysis.subjects import ResolvedServer

# The servers of the mcp SDK, guarded or not: what they receive unchecked is counted on both, so the
# count does not change when the fix guards them.
SDK_SERVERS = frozenset(
    (Framework.MCP1, Framework.MCP2, Framework.GUARDED_MCP1, Framework.GUARDED_MCP2)
)


def as_run(
    server: ResolvedServer, default: Framework | None, guarded: set[tuple[str, int]] | bool
) -> ResolvedServer:
    """The server as the run takes it: of the stated framework (`--framework`) when its own is
    unknown, and guarded when a `guard()` or `install()` covers it."""
    if server.framework is None and default is not None:
        server = ResolvedServer(default, server.description)
    if server.framework is not None and (guarded is True or server.origin in guarded):
        server = ResolvedServer(
            server.framework.guarded,
            server.description,
            server.strict_input_validation,
            facade=server.facade,
            frameworks=tuple(dict.fromkeys(f.guarded for f in server.frameworks)),
        )
    return server
