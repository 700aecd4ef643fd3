from mcp_codemod.cli import run

run()
