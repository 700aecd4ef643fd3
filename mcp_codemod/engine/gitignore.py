"""`.gitignore` patterns, matched as git matches them, in time linear in the name's length.

A pattern is cut at its slashes into one matcher per path component, `**` components apart.
A component's glob is a regular expression whose `*` runs cannot backtrack into one another:
each fixed piece between two stars is placed at its leftmost occurrence and kept there (a
lookahead, which Python's `re` never re-enters, and a back-reference). That placement is always
a match when any placement is, so `*a*a*a…b` against a long name of `a`s costs one pass per
piece instead of a try of every split (exponential in the stars, as pathspec's translation and
git's own wildmatch are). The components of a path are then matched against the pattern's by a
table of positions: `**` matches any number of whole components, each tried once.

Git's rules: `#` starts a comment; trailing spaces are dropped unless escaped; `!` negates; a
trailing `/` matches directories only; a slash elsewhere anchors the pattern to the directory of
its `.gitignore`, else it matches a name at any depth; `**/`, `/**/` and a trailing `/**` cross
directories; `\\` escapes; brackets as git's wildmatch reads them (`[!...]`, ranges, `[:alpha:]`
classes), never matching `/`. A pattern git would never match raises `NeverMatches`.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import NamedTuple


class NeverMatches(Exception):
    """A .gitignore pattern that git never matches (an empty range, an unknown class...)."""


# Git's wildmatch classes, which test ASCII characters only.
_CLASS_TESTS = {
    "alnum": str.isalnum,
    "alpha": str.isalpha,
    "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "digit": str.isdigit,
    "graph": lambda c: 33 <= ord(c) <= 126,
    "lower": str.islower,
    "print": lambda c: 32 <= ord(c) <= 126,
    "punct": lambda c: c in string.punctuation,
    "space": lambda c: c in " \t\n\r\f\v",
    "upper": str.isupper,
    "xdigit": lambda c: c in string.hexdigits,
}
_CLASSES = {
    name: frozenset(chr(code) for code in range(128) if test(chr(code)))
    for name, test in _CLASS_TESTS.items()
}

_STAR = "*"  # a token: any run of characters within a component
_SLASH = "/"  # a token: a component boundary
NameTest = Callable[[str], object]  # truthy when a path component matches


class Pattern(NamedTuple):
    # One test per component of the pattern; None for a `**` component.
    parts: tuple[NameTest | None, ...]
    anchored: bool  # matched from the .gitignore's directory, else against the last name
    directory_only: bool
    negated: bool

    def matches(self, names: list[str]) -> bool:
        if not self.anchored:
            return bool(self.parts[0](names[-1]))
        return _match_components(self.parts, names)


def _match_components(parts: tuple[NameTest | None, ...], names: list[str]) -> bool:
    """Whether the components `names` match `parts`: the positions in `names` that the parts so
    far can end at, carried part by part (a `**` part reaches every position from the first;
    a trailing one at least one component further, as git's `dir/**` matches what is inside)."""
    positions = [0]
    last = len(parts) - 1
    for index, part in enumerate(parts):
        if part is None:
            start = positions[0] + (1 if index == last else 0)
            positions = list(range(start, len(names) + 1))
        else:
            positions = [p + 1 for p in positions if p < len(names) and part(names[p])]
        if not positions:
            return False
    return positions[-1] == len(names)


class IgnoreFile(NamedTuple):
    """The patterns of one `.gitignore`, in order: the last one that matches decides."""

    patterns: tuple[Pattern, ...]

    def decision(self, relative: str, is_directory: bool) -> bool | None:
        """True: ignored, False: re-included (`!`), None: no pattern matches. `relative`: the
        path from the .gitignore's directory, with `/` between names."""
        names = relative.split("/")
        for pattern in reversed(self.patterns):
            if pattern.directory_only and not is_directory:
                continue
            if pattern.matches(names):
                return not pattern.negated
        return None


def parse_line(line: str) -> Pattern | None:
    """The pattern of one line, None for a blank line or a comment; raises NeverMatches."""
    if line.startswith("#"):
        return None
    line = _without_trailing_spaces(line)
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    directory_only = line.endswith("/") and not line.endswith("\\/")
    if directory_only:
        line = line[:-1]
    if not line:
        return None
    tokens = _tokens(line)
    anchored = _SLASH in tokens
    if tokens and tokens[0] == _SLASH:
        tokens = tokens[1:]
    components: list[list[str]] = [[]]
    for token in tokens:
        if token == _SLASH:
            components.append([])
        else:
            components[-1].append(token)
    if not anchored:
        return Pattern((_name_test(components[0]),), False, directory_only, negated)
    parts = tuple(
        None if component == [_STAR, _STAR] else _name_test(component) for component in components
    )
    return Pattern(parts, True, directory_only, negated)


def _without_trailing_spaces(line: str) -> str:
    """Trailing spaces go, unless a backslash escapes them (`a\\ ` keeps one)."""
    end = len(line)
    while end > 0 and line[end - 1] == " ":
        backslashes = len(line[: end - 1]) - len(line[: end - 1].rstrip("\\"))
        if backslashes % 2:
            break
        end -= 1
    return line[:end]


def _tokens(pattern: str) -> list[str]:
    """`*`, `/`, or one character's regular expression, each a token."""
    tokens: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if index + 1 == len(pattern):
                raise NeverMatches("trailing backslash")
            tokens.append(re.escape(pattern[index + 1]))
            index += 2
        elif char == "[":
            members, ranges, negated, index = _bracket(pattern, index)
            tokens.append(_character_set(members, ranges, negated))
        else:
            tokens.append(
                char if char in (_STAR, _SLASH) else "." if char == "?" else re.escape(char)
            )
            index += 1
    return tokens


def _name_test(tokens: list[str]) -> NameTest:
    """The test of one component: its fixed pieces, and the stars between them, as a regular
    expression whose middle pieces each sit at their leftmost place, never tried elsewhere."""
    pieces = [""]
    for token in tokens:
        if token == _STAR:
            pieces.append("")
        else:
            pieces[-1] += token
    if len(pieces) == 1:
        expression = pieces[0]
    else:
        first, *middle, final = pieces
        expression = first + "".join(
            f"(?=(?P<p{number}>.*?{piece}))(?P=p{number})"
            for number, piece in enumerate(middle)
            if piece
        )
        expression += f".*{final}"
    return re.compile(expression, re.DOTALL).fullmatch


def _bracket(pattern: str, start: int) -> tuple[set[str], list[tuple[str, str]], bool, int]:
    """The bracket expression at `start`, parsed as git's wildmatch does: its members, ranges,
    whether it is negated, and the index after it."""
    index = start + 1
    negated = pattern[index : index + 1] in ("!", "^")
    index += negated
    members: set[str] = set()
    ranges: list[tuple[str, str]] = []
    previous: str | None = None
    first = True
    while True:
        if index >= len(pattern):
            raise NeverMatches("unterminated bracket")
        char = pattern[index]
        if char == "]" and not first:
            return members, ranges, negated, index + 1
        first = False
        if char == "\\":
            index += 1
            if index >= len(pattern):
                raise NeverMatches("unterminated bracket")
            char = pattern[index]
            members.add(char)
            previous = char
        elif (
            char == "-" and previous is not None and pattern[index + 1 : index + 2] not in ("", "]")
        ):
            index += 1
            high = pattern[index]
            if high == "\\":
                index += 1
                if index >= len(pattern):
                    raise NeverMatches("unterminated bracket")
                high = pattern[index]
            if previous <= high:  # git matches nothing in a reversed range
                ranges.append((previous, high))
            previous = None
        elif char == "[" and pattern[index + 1 : index + 2] == ":":
            end = pattern.find("]", index + 2)
            if end == -1:
                raise NeverMatches("unterminated bracket")
            name = pattern[index + 2 : end]
            if not name.endswith(":") or end - index - 3 < 0:  # no `:]`: a literal `[`
                members.add(char)
                previous = char
            elif name[:-1] not in _CLASSES:
                raise NeverMatches(f"unknown character class [:{name}]")
            else:
                members |= _CLASSES[name[:-1]]
                previous = None
                index = end
        else:
            members.add(char)
            previous = char
        index += 1


def _character_set(members: set[str], ranges: list[tuple[str, str]], negated: bool) -> str:
    """The regular expression of a bracket (it tests one name: there is no `/` to refuse)."""
    body = "".join(re.escape(c) for c in sorted(members - {"/"}))
    body += "".join(f"{re.escape(low)}-{re.escape(high)}" for low, high in ranges)
    if negated:
        return f"[^{body}]" if body else "."
    if not body:
        raise NeverMatches("matches no character")
    return f"[{body}]"
