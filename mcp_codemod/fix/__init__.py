"""Applying findings' fixes: text edits, the imports they need, the diff, atomic writes, and the
guard module a project keeps (`fix.guard_module`).

May import `analysis`, `rules`, `engine` and `runtime` (the guard module is generated from it);
never `probe`, `report` or the CLI."""
