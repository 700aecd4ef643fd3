"""Facts about modules and across them: one module's syntax tree → `ModuleFacts` (`scanner`), and
the project's modules joined into the rules' subjects (`linker`).

Imports nothing of this package outside `analysis`: it knows no engine, rule, fixer or output."""
