"""Specifications of the scan: what one module's bytes give as facts."""
