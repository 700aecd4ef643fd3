"""The imports a fix needs, as text edits: how each name is spelled and where its import goes
(`plan`), what a module binds (`bindings`), whether a replaced import is still used (`usage`),
the import block as isort orders it (`placement`), and the other modules of the project that
take a name from a fixed one (`dependents`)."""
