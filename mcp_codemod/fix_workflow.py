"""The fix workflow, as functions that return data: what `fix` does after `api.fix_paths` planned
the changes. The command line prints what they return; the language server confirms its edits
with the same check of the runtime's names.

`apply_fixes`: write the changes (compare and swap), fix again what the fixed files hold (a
fix can make a finding another rule fixes), check what the fixes leave, confirm that the fixed
code imports with the installed mcp, and count what was done. `fix_buffer`: one round on one
module's bytes (`fix -`), whose fixed text goes back to the caller instead of a file.
Per-file problems are data; only a bug of ours is an exception, kept in the result.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from mcp_codemod import api
from mcp_codemod.engine.checker import CheckResult
from mcp_codemod.engine.file_io import SourceError
from mcp_codemod.fix import apply as fixer
from mcp_codemod.fix import runtime_names
from mcp_codemod.fix.remaining import what_fixes
from mcp_codemod.report.fix_output import FixSummary
from mcp_codemod.rules.findings import FileError, Finding

# How many times `fix --write` fixes again what its own fixes made fixable.
FIX_ROUNDS = 10

# Entered around each group of writes: the command line stops on SIGTERM as on Ctrl-C there.
WhileWriting = Callable[[], contextlib.AbstractContextManager[object]]


@dataclass(frozen=True)
class FixRun:
    """What `apply_fixes` did, for the command to print."""

    # The user's files changed (by the first round and the later ones, in order) and the guard
    # modules (`runtime-module`) written: with `write`, those written.
    changed: tuple[fixer.FileFix, ...]
    generated: tuple[fixer.FileFix, ...]
    write_failures: tuple[fixer.FixFailure, ...]  # files that could not be written
    # A bug of ours while fixing again or checking after: the rest is then empty.
    error: Exception | None = None
    after: CheckResult | None = None  # what `check` reports once the fixes are made
    # Each finding the fixes leave, with the one step that fixes it.
    remaining: tuple[tuple[Finding, str], ...] = ()
    unimportable: tuple[str, ...] = ()  # a line per runtime name the installed mcp lacks
    summary: FixSummary | None = None


def apply_fixes(
    outcome: api.FixOutcome,
    paths: Sequence[str | Path],
    options: api.Options,
    *,
    write: bool,
    unsafe_fixes: bool = False,
    while_writing: WhileWriting = contextlib.nullcontext,
) -> FixRun:
    """The changes of `outcome` (`api.fix_paths(paths, options, unsafe_fixes=...)`), written
    when `write`, then the rounds after the first, the check after the fixes (with every
    change's text in place of its file's when nothing is written), the names the fixed code
    imports from the runtime, and the summary's counts."""
    result, fixes = outcome.check, outcome.fixes
    failures = []
    changed = []
    generated = []
    with while_writing() if write else contextlib.nullcontext():
        for change in fixes.files:
            if write:
                try:
                    fixer.write(change)
                except SourceError as error:
                    failures.append(fixer.FixFailure(change.path, str(error)))
                    continue
            (generated if change.generated else changed).append(change)
    written = (*changed, *generated) if write else None
    try:
        after = None
        if write and changed and not (result.errors or fixes.failures or failures):
            # A fix can make a finding another rule fixes (an unannotated parameter marked
            # `Annotated[Any, NoPreParse]` is then an untyped schema node): as ruff does, fix
            # again what the fixed files hold, a bounded number of rounds.
            made, after = _fix_again(outcome, paths, options, unsafe_fixes, while_writing)
            changed += made
        if after is None:
            after = api.check_after_fix(paths, options, outcome, written)
    except Exception as error:
        return FixRun(tuple(changed), tuple(generated), tuple(failures), error=error)
    unimportable = unimportable_names(changed, outcome)
    changed_files = {change.path for change in changed}
    summary = FixSummary(
        write=write,
        fixed=sum(change.fixes for change in changed),
        partly=sum(change.partly_fixed for change in changed),
        files=len(changed_files),
        unimportable=bool(unimportable),
        guard_modules=tuple(module.path for module in generated),
        incomplete=fixes.incomplete,
        left=sum(not finding.applies(unsafe_fixes) for finding in result.findings),
        hidden=sum(f.fixable and not f.applies(unsafe_fixes) for f in result.findings),
    )
    return FixRun(
        tuple(changed),
        tuple(generated),
        tuple(failures),
        after=after,
        remaining=remaining(after, outcome, paths, unsafe_fixes),
        unimportable=tuple(unimportable),
        summary=summary,
    )


def _fix_again(
    first: api.FixOutcome,
    paths: Sequence[str | Path],
    options: api.Options,
    unsafe_fixes: bool,
    while_writing: WhileWriting,
) -> tuple[list[fixer.FileFix], CheckResult | None]:
    """The changes of the rounds after the first, written: each round fixes what the files hold
    now, until a round changes nothing. And the check of the files as the rounds leave them:
    the last round's own, when it wrote nothing (None when every round wrote)."""
    made = []
    for _ in range(FIX_ROUNDS - 1):
        outcome = api.fix_again(first, paths, options, unsafe_fixes=unsafe_fixes)
        changes = [change for change in outcome.fixes.files if not change.generated]
        if not changes or outcome.fixes.failures:
            # Nothing was written since this round's check: it is the check after the fixes.
            return made, outcome.check
        with while_writing():
            for change in changes:
                fixer.write(change)
        made += changes
    return made, None


@dataclass(frozen=True)
class BufferFix:
    """What `fix_buffer` made of one module's bytes."""

    outcome: api.FixOutcome
    change: fixer.FileFix | None  # the buffer's, None when nothing applies (or it failed)
    # The project's guard module the fixed buffer imports (`runtime-module`), and whether it
    # was written (never for a diff).
    guards: fixer.FileFix | None
    guards_written: bool
    failures: tuple[fixer.FixFailure | FileError, ...]
    left: tuple[Finding, ...]  # the findings the fixed text still has
    unimportable: tuple[str, ...]

    @property
    def fixed(self) -> int:
        return self.change.fixes if self.change is not None else 0


def fix_buffer(
    stdin: tuple[Path, bytes],
    options: api.Options,
    *,
    unsafe_fixes: bool = False,
    diff: bool = False,
) -> BufferFix:
    """As ruff's `check --fix -`: the fixed text of one module's bytes (`stdin`: the path it
    stands for and the bytes), and what is left. The project's guard module is written as
    `fix --write` writes it unless `diff`; when it cannot be, the buffer goes back as it came
    (an import of a module that does not exist would break the saved server). Raises
    `api.UsageError` for options or configuration that cannot be used."""
    outcome = api.fix_paths((), options, unsafe_fixes=unsafe_fixes, stdin=stdin)
    result, fixes = outcome.check, outcome.fixes
    failures: list[fixer.FixFailure | FileError] = [*result.errors, *fixes.failures]
    change = next((f for f in fixes.files if not f.generated), None)
    guards = next((f for f in fixes.files if f.generated), None)
    written = False
    if guards is not None and not diff:
        try:
            fixer.write(guards)
            written = True
        except SourceError as error:
            failures.append(fixer.FixFailure(guards.path, str(error)))
            change = None
    left = [f for f in result.findings if not f.applies(unsafe_fixes)]
    if change is None and fixes.failures:
        left = list(result.findings)
    unimportable = unimportable_names([change] if change is not None else [], outcome)
    return BufferFix(
        outcome, change, guards, written, tuple(failures), tuple(left), tuple(unimportable)
    )


def unimportable_names(changed: Sequence[fixer.FileFix], outcome: api.FixOutcome) -> list[str]:
    """A line per runtime name the fixed files import that the installed mcp lacks."""
    first: dict[str, str | runtime_names.ModuleImports] = {}
    final: dict[str, str | runtime_names.ModuleImports] = {}
    swapped: dict[str, frozenset[str]] = {}
    for change in changed:  # a later round's text wins; the first round's original is the user's
        # What the fix read of each text's tree when it has it: the texts are not parsed again.
        first.setdefault(change.path, change.original_imports or change.original)
        final[change.path] = change.fixed_imports or change.fixed
        swapped[change.path] = swapped.get(change.path, frozenset()) | change.swapped
    return missing_runtime_names(
        [(path, first[path], text) for path, text in final.items()],
        outcome.runtime_modules,
        swapped,
    )


def missing_runtime_names(
    fixed: Iterable[
        tuple[str, str | runtime_names.ModuleImports, str | runtime_names.ModuleImports]
    ],
    runtime_modules: Collection[str],
    swapped: Mapping[str, Collection[str]] | None = None,
) -> list[str]:
    """A line per name a fixed file (path, text before, text after; for either text, what the
    fix read of its tree) imports from the runtime (`runtime_modules`: `mcp_codemod.runtime` and
    the project's `runtime-module`) that does not exist with the mcp installed here: `fix` never
    says "Fixed" over it, and the language server offers no such edit. `swapped`: per file, the
    guarded classes the fix swapped in, which the analysis found right for the module
    (`runtime_names.missing_names`)."""
    return runtime_names.missing_names(
        fixed,
        runtime_modules,
        runtime_names.runtime_exports(),
        runtime_names.installed_mcp(),
        swapped,
    )


def remaining(
    after: CheckResult,
    outcome: api.FixOutcome,
    paths: Sequence[str | Path],
    unsafe_fixes: bool,
) -> tuple[tuple[Finding, str], ...]:
    """Every finding the fixes leave, with the step that fixes it: `fix` never passes over
    one."""
    resolved: dict[str, Path] = {}

    def writable(path: str) -> bool:
        return resolved.setdefault(path, Path(path).resolve()) in outcome.writable

    given = [str(path) for path in paths]
    return tuple(
        (finding, what_fixes(finding, unsafe_fixes, writable, given)) for finding in after.findings
    )


@contextlib.contextmanager
def stopped_by_termination() -> Iterator[None]:
    """SIGTERM and SIGHUP end the run as Ctrl-C does, by an exception: the file being written
    then removes its temporary copy (the default action ends the process on the spot, leaving
    `.NAME.py.XXXX.tmp` in the tree). For a process's main thread, and only around the writes:
    the processes the analysis forks keep the default action."""
    import signal

    def stop(signum: int, _frame) -> NoReturn:
        raise SystemExit(128 + signum)

    # Windows has no SIGHUP.
    signals = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {number: signal.signal(number, stop) for number in signals}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
