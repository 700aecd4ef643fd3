"""The run: discover files, read and prefilter them, parse and scan them (cached, in parallel),
link the project's modules, and judge every subject with the rules (`engine.checker`).

May import `analysis` and `rules`; never `fix`, `probe`, `report` or the CLI."""
