"""Specifications of the fixer: edits, imports, diffs, writes and the guard module."""
