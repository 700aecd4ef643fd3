"""Specifications of the output: the formats CI and editors read."""
