"""The link stage: the facts of the project's modules, asked of a `ModuleSource`, → the rules'
subjects. It imports the shared data of `analysis` and `analysis.scan`'s name helpers."""
