from mcp_codemod.cli import main

main()
