"""The work the project-wide analysis does, counted in steps rather than timed: each call
examined for its callee, each name followed a module further, each function or value visited
while a question is answered. The count is the same on every machine, so tests assert how it
grows with the tree, and a question that needs more than its budget of steps is answered
"cannot be seen" instead of being waited for."""

from __future__ import annotations

# What one question (what a stored value is, which servers reach a parameter, the tools a
# registration reaches) may spend: well above what the corpus's largest answer needs, far
# below what a wait would be noticed at. docs/analysis.md says what an answer over it is.
QUESTION_BUDGET = 20_000


class OverBudget(Exception):
    """Raised inside a question that spent its budget; the question's owner catches it and
    answers "cannot be seen"."""


class Work:
    """The steps of the whole run, and the budget of the question being answered."""

    __slots__ = ("budget", "limit", "steps")

    def __init__(self) -> None:
        self.budget = QUESTION_BUDGET
        self.steps = 0
        self.limit: int | None = None  # the step at which the current question is over budget

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.limit is not None and self.steps > self.limit:
            raise OverBudget

    def question(self) -> Question:
        """A budget for one question (`with work.question(): ...`); a question asked inside
        another spends from the outer one's budget too."""
        return Question(self, self.budget)


class Question:
    __slots__ = ("budget", "outer", "work")

    def __init__(self, work: Work, budget: int) -> None:
        self.work = work
        self.budget = budget
        self.outer: int | None = None

    def __enter__(self) -> Question:
        self.outer = self.work.limit
        limit = self.work.steps + self.budget
        self.work.limit = limit if self.outer is None else min(limit, self.outer)
        return self

    def __exit__(self, *exc: object) -> None:
        self.work.limit = self.outer
