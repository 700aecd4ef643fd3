"""Specifications of the link: what the modules of a project give together (servers, tools, reach)."""
