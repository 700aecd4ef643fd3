"""Which files to look at: walk the given paths, skip excluded names and what .gitignore ignores.

A path given explicitly is always looked at, as ruff does; exclusions apply to what is found
beneath a given directory.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path


class PathError(Exception):
    """A path on the command line that does not exist."""


@dataclass(frozen=True)
class _IgnoreRule:
    base: Path  # the directory of the .gitignore that holds the rule
    pattern: re.Pattern[str]
    negate: bool
    directory_only: bool


def _compile(line: str, base: Path) -> _IgnoreRule | None:
    line = line.rstrip("\n").rstrip()
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    if line.startswith("\\"):
        line = line[1:]
    directory_only = line.endswith("/")
    line = line.rstrip("/")
    anchored = "/" in line
    line = line.lstrip("/")
    regex = ""
    index = 0
    while index < len(line):
        if line.startswith("**/", index):
            regex, index = regex + "(?:.*/)?", index + 3
        elif line.startswith("/**", index) and index + 3 == len(line):
            regex, index = regex + "/.*", index + 3
        elif line.startswith("**", index):
            regex, index = regex + ".*", index + 2
        elif line[index] == "*":
            regex, index = regex + "[^/]*", index + 1
        elif line[index] == "?":
            regex, index = regex + "[^/]", index + 1
        elif line[index] == "[" and "]" in line[index + 1 :]:
            end = line.index("]", index + 1)
            regex, index = regex + "[" + line[index + 1 : end].replace("!", "^", 1) + "]", end + 1
        else:
            regex, index = regex + re.escape(line[index]), index + 1
    if not anchored:
        regex = "(?:.*/)?" + regex
    return _IgnoreRule(base, re.compile(f"^{regex}$"), negate, directory_only)


def _read_gitignore(directory: Path) -> list[_IgnoreRule]:
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [rule for line in lines.splitlines() if (rule := _compile(line, directory))]


def _ignored(path: Path, is_directory: bool, rules: list[_IgnoreRule]) -> bool:
    ignored = False
    for rule in rules:  # later rules (deeper files, later lines) win, as in git
        if rule.directory_only and not is_directory:
            continue
        try:
            relative = path.relative_to(rule.base).as_posix()
        except ValueError:
            continue
        if rule.pattern.match(relative):
            ignored = not rule.negate
    return ignored


def _ancestor_rules(directory: Path) -> list[_IgnoreRule]:
    """The .gitignore files above a walked directory, up to its repository root."""
    chain = []
    for parent in directory.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            break
    else:
        return []  # not in a repository: git would not read those files
    rules: list[_IgnoreRule] = []
    for parent in reversed(chain):
        rules.extend(_read_gitignore(parent))
    return rules


def _exclusion(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regex for all exclude globs: a call per pattern and file costs more than the walk."""
    flags = re.IGNORECASE if os.path.normcase("A") != "A" else 0
    return re.compile("|".join(fnmatch.translate(p) for p in patterns) or "(?!)", flags)


def discover(paths: list[Path], excludes: tuple[str, ...], respect_gitignore: bool) -> list[Path]:
    """Python files under `paths`, sorted, without duplicates."""
    found: set[Path] = set()
    for given in paths:
        if not given.exists():
            raise PathError(f"{given}: no such file or directory")
        if given.is_file():
            found.add(given)
            continue
        root = given.resolve()
        base_rules = _ancestor_rules(root) if respect_gitignore else []
        rules_at: dict[str, list[_IgnoreRule]] = {}
        excluded = _exclusion(excludes).match
        for directory, subdirectories, files in os.walk(given):
            here = Path(directory)
            resolved = here.resolve()
            parent_rules = rules_at.get(os.path.dirname(directory), base_rules)
            rules = parent_rules + _read_gitignore(resolved) if respect_gitignore else []
            rules_at[directory] = rules
            kept = []
            for name in sorted(subdirectories):
                relative = (here / name).relative_to(given).as_posix()
                if excluded(name) or excluded(relative):
                    continue
                if rules and _ignored(resolved / name, True, rules):
                    continue
                kept.append(name)
            subdirectories[:] = kept
            for name in files:
                if not name.endswith(".py"):
                    continue
                child = here / name
                relative = child.relative_to(given).as_posix()
                if excluded(name) or excluded(relative):
                    continue
                if rules and _ignored(resolved / name, False, rules):
                    continue
                found.add(child)
    return sorted(found)
