"""The language server (`mcp-codemod server`): diagnostics, quick fixes and hovers in an editor,
from the buffer the editor holds.

A consumer of the library, as the command line is: it may import `mcp_codemod.api` and every
layer; no layer imports it. pygls (the `lsp` extra) is imported by `server` only.
"""
