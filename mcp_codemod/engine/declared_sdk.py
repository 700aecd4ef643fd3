"""The mcp releases a project declares it runs on, read from its requirement as data.

From mcp 1.12.0 the SDK's `pre_parse_json` leaves a parameter annotated exactly `str` alone;
1.2.0 (the first with `FastMCP`) to 1.11.0 decode its text too (docs/analysis.md, "Which SDK
release"). A project whose every allowed release is older than that runs where `check` must
judge exact `str` as pre-parsed. The requirement is read from the project's `pyproject.toml`
(`[project]` dependencies and optional dependencies) and its `requirements*.txt`; nothing runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from mcp_codemod.engine.module_paths import ProjectRoots

# The first release whose pre-parse exempts exact `str`.
EXACT_STR_EXEMPT = (1, 12, 0)
# `mcp`, `mcp[cli]`, `MCP (<2.0)`: the name, its extras, then its specifiers up to a marker.
_REQUIREMENT = re.compile(
    r"^\s*mcp\s*(?:\[[^\]]*\])?\s*\(?(?P<specifiers>[^;#()]*)\)?\s*(?:[;#].*)?$", re.IGNORECASE
)
_CLAUSE = re.compile(r"^\s*(?P<op>===|==|~=|<=|>=|!=|<|>)\s*(?P<version>[\w.*+!-]+)\s*$")


def capped_before_exact_str(requirement: str) -> bool:
    """Whether every release an `mcp` requirement allows is older than 1.12 (`==1.6.0`,
    `<1.12`, `~=1.9.0`, `>=1.2,<=1.11.0`): a clause that caps it there caps the whole."""
    match = _REQUIREMENT.match(requirement)
    if match is None:
        return False
    clauses = (_CLAUSE.match(clause) for clause in match["specifiers"].split(","))
    return any(_caps(found["op"], found["version"]) for found in clauses if found is not None)


def _caps(op: str, text: str) -> bool:
    given = _release(text)
    if not given:
        return False
    version = (*given, 0, 0)[: max(3, len(given))]  # `1.12` is 1.12.0
    if op in ("==", "==="):
        # `==1.6.0`, `==1.6.*`; `==1.*` allows 1.12 and later.
        return version < EXACT_STR_EXEMPT and (not text.endswith(".*") or len(given) >= 2)
    if op == "<":
        return version <= EXACT_STR_EXEMPT
    if op == "<=":
        return version < EXACT_STR_EXEMPT
    # `~=1.9.0` is `>=1.9.0, ==1.9.*`; `~=1.9` allows every 1.x from 1.9.
    return op == "~=" and len(given) >= 3 and (given[0], given[1] + 1, 0) <= EXACT_STR_EXEMPT


def _release(text: str) -> tuple[int, ...]:
    """The release numbers of a version (`1.6.0rc1` → (1, 6, 0)), up to the first that is none."""
    numbers = []
    for part in text.split("."):
        digits = re.match(r"\d+", part)
        if digits is None:
            break
        numbers.append(int(digits.group()))
        if digits.end() != len(part):
            break
    return tuple(numbers)


class DeclaredSdk:
    """Per project root, the `mcp` requirement that allows only releases older than 1.12."""

    def __init__(self, roots: ProjectRoots, saw: Callable | None = None) -> None:
        self.roots = roots
        self.saw = saw  # the run cache's witness: these files are inputs of the result
        self.known: dict[Path, str | None] = {}
        self.roots_of: dict[str, Path] = {}  # asked of every parameter, of a few modules

    def old_requirement(self, path: str) -> str | None:
        root = self.roots_of.get(path)
        if root is None:
            root = self.roots_of[path] = self.roots.of(Path(path))
        if root not in self.known:
            listed = sorted(root.glob("requirements*.txt"))
            files = list(
                dict.fromkeys([root / "pyproject.toml", root / "requirements.txt", *listed])
            )
            if self.saw is not None:
                self.saw(files)
            self.known[root] = next(
                (r for r in _requirements(files) if capped_before_exact_str(r)), None
            )
        return self.known[root]


def _requirements(files: Iterable[Path]) -> Iterator[str]:
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if file.suffix == ".toml":
            yield from _pyproject_requirements(text)
        else:
            yield from (line.partition(" #")[0].strip() for line in text.splitlines())


def _pyproject_requirements(text: str) -> list[str]:
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    try:
        project = tomllib.loads(text).get("project", {})
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    if not isinstance(project, dict):
        return []
    found = list(project.get("dependencies") or ())
    optional = project.get("optional-dependencies") or {}
    if isinstance(optional, dict):
        for group in optional.values():
            found.extend(group if isinstance(group, list) else ())
    return [r for r in found if isinstance(r, str)]
