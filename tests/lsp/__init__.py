"""Specifications of the language server (`mcp-codemod server`), driven by a real LSP client."""
