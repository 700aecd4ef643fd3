"""Types of an installed library: read from its source by the analysis, never imported."""

import enum

MaybeText = str | None
Count = int


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Name(str):
    pass
