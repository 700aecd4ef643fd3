"""Whether a string `pattern` (`Field(pattern=...)`, `StringConstraints(pattern=...)`) keeps out
every text the SDK's JSON pre-parse replaces: JSON null, arrays and objects, which start, after
JSON whitespace, with `n`, `[` or `{`. Such a parameter takes no text the pre-parse changes, as
a `Literal` of plain words takes none (the probe does not count it either: the value it would
send is refused by the validator anyway).

Decided on the pattern's syntax tree, and only when it is certain: the pattern is anchored at
the start, and every character a match can begin with is known and none of those. Anything else
(no anchor, `.`, a negated or `\\w` class, a case-insensitive flag, a backreference, a pattern
Python's `re` cannot parse) counts as letting such text through.
"""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    from re import _parser as parser
else:  # pragma: no cover (Python 3.10)
    import sre_parse as parser

_BEGINS_CHANGED = frozenset(" \t\n\r" + "n[{")
_ANCHORS = (parser.AT_BEGINNING, parser.AT_BEGINNING_STRING)
_ENDS = (parser.AT_END, parser.AT_END_STRING)


class _Unknown(Exception):
    """A part of the pattern whose first characters are not known exactly."""


def keeps_out_pre_parsed_text(pattern: str) -> bool:
    try:
        parsed = parser.parse(pattern)
    except Exception:  # any pattern `re` refuses (an error, too deep): not known to keep out
        return False
    if parsed.state.flags & (parser.SRE_FLAG_IGNORECASE | parser.SRE_FLAG_MULTILINE):
        return False
    items = list(parsed)
    if not items or items[0][0] is not parser.AT or items[0][1] not in _ANCHORS:
        return False
    try:
        first, may_be_empty = _first(items[1:])
    except _Unknown:
        return False
    # A match that may be empty at the start matches a prefix of any text (`^a?`).
    return not may_be_empty and not (first & _BEGINS_CHANGED)


def _first(items: list[tuple[Any, Any]]) -> tuple[set[str], bool]:
    """The characters a match of this sequence can begin with, and whether it may be empty
    (then only if nothing may follow it: `$` ends the text, so no text can begin there)."""
    found: set[str] = set()
    for op, av in items:
        if op is parser.AT:
            if av in _ENDS:
                return found, False  # only the empty text is left: not JSON
            raise _Unknown
        chars, may_be_empty = _first_of(op, av)
        found |= chars
        if not may_be_empty:
            return found, False
    return found, True


def _first_of(op: Any, av: Any) -> tuple[set[str], bool]:
    if op is parser.LITERAL:
        return {chr(av)}, False
    if op is parser.IN:
        return _class(av), False
    if op is parser.SUBPATTERN:
        _group, add_flags, _del_flags, pattern = av
        if add_flags & parser.SRE_FLAG_IGNORECASE:
            raise _Unknown
        return _first(list(pattern))
    if op in (parser.MAX_REPEAT, parser.MIN_REPEAT):
        least, _most, pattern = av
        chars, may_be_empty = _first(list(pattern))
        return chars, may_be_empty or least == 0
    if op is parser.BRANCH:
        chars: set[str] = set()
        may_be_empty = False
        for branch in av[1]:
            branch_chars, branch_empty = _first(list(branch))
            chars |= branch_chars
            may_be_empty = may_be_empty or branch_empty
        return chars, may_be_empty
    raise _Unknown


def _class(items: list[tuple[Any, Any]]) -> set[str]:
    chars: set[str] = set()
    for op, av in items:
        if op is parser.LITERAL:
            chars.add(chr(av))
        elif op is parser.RANGE:
            low, high = av
            if high - low > 0x400:
                raise _Unknown  # wide enough to hold anything that matters
            chars.update(chr(code) for code in range(low, high + 1))
        elif op is parser.CATEGORY and av is parser.CATEGORY_DIGIT:
            chars.update("0123456789")  # and other digits: none begins JSON that changes
        else:
            raise _Unknown  # NEGATE, `\w`, `\s`, ...
    return chars
