"""Unified diffs of a file before and after the fix, in time close to linear in its length.

`difflib.unified_diff` compares every line with every other that could match: on a large
generated server whose lines repeat, that is quadratic (bench/HISTORY.md, "`fix` on a large
file"). The fix changes lines in
place and adds or removes a few imports, so lines that occur once in each text (`def tool_17(`,
a docstring) pin the two texts together, as in patience diff: only the short stretches between
those anchors are left to `difflib`.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter

# Stretches between anchors at most this big (lines × lines) go to difflib; larger ones that
# share no unique line are shown as replaced.
_DIFFLIB_LIMIT = 250_000


def unified_diff(old: str, new: str, fromfile: str, tofile: str, context: int = 3) -> str:
    """`old` → `new` as a unified diff, in the format of `difflib.unified_diff`."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    matcher = _AnchoredMatcher(a, b)
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2])
        new_range = _range(first[3], last[4])
        out.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return "".join(out)


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


class _AnchoredMatcher(difflib.SequenceMatcher):
    def __init__(self, a: list[str], b: list[str]) -> None:
        super().__init__(None, a, b, autojunk=False)

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self.matching_blocks is None:
            pairs = sorted(_matching_lines(self.a, self.b))
            blocks: list[difflib.Match] = []
            for i, j in pairs:
                if (
                    blocks
                    and blocks[-1].a + blocks[-1].size == i
                    and blocks[-1].b + blocks[-1].size == j
                ):
                    last = blocks[-1]
                    blocks[-1] = difflib.Match(last.a, last.b, last.size + 1)
                else:
                    blocks.append(difflib.Match(i, j, 1))
            blocks.append(difflib.Match(len(self.a), len(self.b), 0))
            self.matching_blocks = blocks
        return self.matching_blocks


def _matching_lines(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines `a[i] == b[j]` that the diff keeps, in increasing order of both."""
    pairs: list[tuple[int, int]] = []
    pending = [(0, len(a), 0, len(b))]
    while pending:
        alo, ahi, blo, bhi = pending.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            pairs.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            pairs.append((ahi, bhi))
        if alo >= ahi or blo >= bhi:
            continue
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
        if anchors:
            previous = (alo - 1, blo - 1)
            for i, j in [*anchors, (ahi, bhi)]:
                pending.append((previous[0] + 1, i, previous[1] + 1, j))
                if i < ahi:
                    pairs.append((i, j))
                previous = (i, j)
        elif (ahi - alo) * (bhi - blo) <= _DIFFLIB_LIMIT:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for block in matcher.get_matching_blocks():
                pairs += [(alo + block.a + k, blo + block.b + k) for k in range(block.size)]
    return pairs


def _unique_anchors(
    a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Lines that occur exactly once in each stretch, paired, keeping the longest run that is
    in the same order on both sides (patience sorting)."""
    counts_a = Counter(a[alo:ahi])
    counts_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if counts_b[b[j]] == 1}
    candidates = [
        (i, where_b[a[i]]) for i in range(alo, ahi) if counts_a[a[i]] == 1 and a[i] in where_b
    ]
    # Longest increasing subsequence of the b positions.
    tails: list[int] = []  # smallest b position ending a run of each length
    tail_index: list[int] = []
    back: list[int] = []
    for index, (_, j) in enumerate(candidates):
        length = bisect.bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[length] = j
            tail_index[length] = index
        back.append(tail_index[length - 1] if length else -1)
    run: list[tuple[int, int]] = []
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        run.append(candidates[index])
        index = back[index]
    return run[::-1]
