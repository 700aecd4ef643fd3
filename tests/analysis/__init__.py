"""Specifications of the analysis: what the scanner and the linker find in a project."""
