"""Specifications of the rules, generated from their own cases."""
