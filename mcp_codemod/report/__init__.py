"""Output: findings, rule documentation and probe reports in, text out. Nothing here decides what
is reported. May import the layers below it (analysis, rules, engine, probe results), never the
fixer or the CLI."""

from __future__ import annotations


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else words or word + 's'}"
