"""The scan stage: one module's source → `ModuleFacts` (plain data), with no access to the
project. It imports the shared data of `analysis` and nothing of `analysis.link`."""
