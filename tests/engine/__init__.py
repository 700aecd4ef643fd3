"""Specifications of the run: discovery, settings, caches, parallelism, and check on the fixtures."""
