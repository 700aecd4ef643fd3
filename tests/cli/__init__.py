"""Specifications of the command line, its conventions and the pre-commit hooks."""
