"""Find, fix and guard MCP tool parameters that the server framework or the client mangles."""

__version__ = "0.3.0"
