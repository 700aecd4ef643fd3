"""The work the project-wide analysis does, counted in steps rather than timed: each call
examined for its callee, each name followed a module further, each function or value visited
while a question is answered. The count is the same on every machine, so tests assert how it
grows with the tree, and a question that needs more than its budget of steps is answered
"cannot be seen" instead of being waited for."""

from __future__ import annotations

# What one question (what a stored value is, the tools a registration reaches) may spend: well
# above what the corpus's largest answer needs, far below what a wait would be noticed at.
# docs/analysis.md says what an answer over it is.
QUESTION_BUDGET = 20_000


class OverBudget(Exception):
    """Raised inside a question that spent its budget; the question's owner catches it and
    answers "cannot be seen"."""


class Work:
    """The steps of the whole run, those charged to the questions, and the budget of the
    question being answered."""

    __slots__ = ("budget", "charged", "limit", "sharing", "steps")

    def __init__(self) -> None:
        self.budget = QUESTION_BUDGET
        self.steps = 0
        self.charged = 0  # the steps not done for the whole run (`shared`)
        self.sharing = 0
        self.limit: int | None = None  # the charged step at which the question is over budget

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.sharing:
            return
        self.charged += count
        if self.limit is not None and self.charged > self.limit:
            raise OverBudget

    def shared(self) -> Shared:
        """Work done once for the whole run (the project's calls sorted by the function they
        run), whichever question happens to need it first: counted, in no question's budget.
        Its own cost is linear in the tree."""
        return Shared(self)

    def question(self) -> Question:
        """A budget for one question (`with work.question(): ...`); a question asked inside
        another spends from the outer one's budget too."""
        return Question(self)


class Shared:
    __slots__ = ("work",)

    def __init__(self, work: Work) -> None:
        self.work = work

    def __enter__(self) -> Shared:
        self.work.sharing += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.work.sharing -= 1


class Question:
    __slots__ = ("outer", "work")

    def __init__(self, work: Work) -> None:
        self.work = work
        self.outer: int | None = None

    def __enter__(self) -> Question:
        work = self.work
        self.outer = work.limit
        limit = work.charged + work.budget
        work.limit = limit if self.outer is None else min(limit, self.outer)
        return self

    def __exit__(self, *exc: object) -> None:
        self.work.limit = self.outer
