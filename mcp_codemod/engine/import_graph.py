"""Which files of a project can refer to a module at all: those whose import statements lead to
it, directly or through other files that do, read from their text without parsing it.

The linker finds what a call runs only through the names the caller's module binds (an import,
a class it defines), followed through the modules those imports name: a file none of whose
imports leads to a module cannot call a function of it, whatever words its text holds. So the
search for a registrar's callers parses only the files that mention its name *and* may import
its module. Every reading errs towards "may": a line that looks like an import in a string or a
comment counts; `import a.b` may reach anything under `a`; a relative `from . import x` anything
in its package; an absolute name may be rooted anywhere above the file; a file that calls
`exec` in its own body may import anything."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

# One import target: how many leading dots (0: absolute) and the dotted name after them, as
# path components; a file may refer to any module at or below it.
Target = tuple[int, tuple[str, ...]]
# A file that may import anything (it calls `exec`).
ANYTHING: tuple[Target, ...] = ((-1, ()),)

_CONTINUED = re.compile(rb"\\\r?\n")
_FROM = re.compile(rb"[ \t]*from[ \t]+(\.*)[ \t]*([^\s;#()]*)[ \t]+import\b")
_IMPORT = re.compile(rb"[ \t]*import[ \t]+([^\n#;]+)")
_EXEC_CALL = re.compile(rb"[ \t]*\(")
_SEPARATOR = re.compile(rb"[;:]")


def import_targets(text: bytes) -> tuple[Target, ...]:
    """What a module's import statements may refer to, from its bytes (any ASCII-compatible
    encoding: the statements' words are ASCII, a name's bytes are kept as they are). Each
    statement is found by its word first (`find` costs a hundredth of a pattern's search over
    the whole text), then read from where a statement can start on its line: the line's start,
    or after a `;` or a compound statement's `:`."""
    if _calls_exec(text):
        return ANYTHING
    if b"\\\n" in text or b"\\\r\n" in text:
        text = _CONTINUED.sub(b" ", text)
    found: set[Target] = set()
    at = text.find(b"import")
    while at != -1:
        start = text.rfind(b"\n", 0, at) + 1
        end = text.find(b"\n", at)
        line = text[start : end if end != -1 else len(text)]
        starts = [0]
        if b";" in line or b":" in line:
            starts += [separator.end() for separator in _SEPARATOR.finditer(line)]
        for offset in starts:
            matched = _FROM.match(line, offset)
            if matched is not None:
                found.add((len(matched[1]), _parts(matched[2])))
                continue
            matched = _IMPORT.match(line, offset)
            if matched is not None:
                for alias in matched[1].split(b","):
                    words = alias.split()
                    if words:
                        dotted = _parts(words[0])
                        # `import a.b` binds `a`, through which anything under `a` is reached;
                        # `as` binds the module itself.
                        found.add((0, dotted if b"as" in words[1:2] else dotted[:1]))
        at = text.find(b"import", end) if end != -1 else -1
    return tuple(sorted(found))


def _calls_exec(text: bytes) -> bool:
    """Whether a statement of the module's own body calls `exec`: only such a call runs another
    file in the module's namespace (`analysis/scan/exec_files.py`). Its line starts at the first
    column, and nothing but another statement (`;`) comes before it there."""
    at = text.find(b"exec")
    while at != -1:
        start = text.rfind(b"\n", 0, at) + 1
        before = text[start:at].rstrip(b" \t")
        in_body = text[start : start + 1] not in (b" ", b"\t")
        if in_body and (not before or before.endswith(b";")) and _EXEC_CALL.match(text, at + 4):
            return True
        at = text.find(b"exec", at + 4)
    return False


def _parts(name: bytes) -> tuple[str, ...]:
    return tuple(part for part in os.fsdecode(name.strip(b"()")).split(".") if part)


def module_parts(path: str) -> tuple[str, ...]:
    """A file's path as the components a dotted name spells: `.py` and a package's `__init__`
    dropped, every directory kept (where the import root is, is not decided here)."""
    parts = tuple(part for part in path.split(os.sep) if part)
    last = parts[-1] if parts else ""
    if last == "__init__.py":
        return parts[:-1]
    return (*parts[:-1], last.removesuffix(".py"))


class ImportGraph:
    """The files of one project and what each one's imports may refer to: `reaching(path)` is
    the set of files whose imports lead to that file, directly or through others."""

    def __init__(self, targets: Iterable[tuple[str, tuple[Target, ...]]]) -> None:
        self.everything: list[str] = []  # the files that may import anything
        self.absolute: dict[tuple[str, ...], list[str]] = {}
        self.relative: dict[tuple[str, ...], list[str]] = {}
        for path, found in targets:
            if found == ANYTHING:
                self.everything.append(path)
                continue
            package = module_parts(os.path.dirname(path) + os.sep + "__init__.py")
            for dots, name in found:
                if dots == 0:
                    self.absolute.setdefault(name, []).append(path)
                else:
                    base = package[: len(package) - (dots - 1)] if dots > 1 else package
                    self.relative.setdefault((*base, *name), []).append(path)
        self.answers: dict[str, frozenset[str]] = {}

    def reaching(self, path: str) -> frozenset[str]:
        """The files that may refer to the module of `path`, itself among them."""
        if path not in self.answers:
            reached = {path, *self.everything}
            pending = [path]
            while pending:
                parts = module_parts(pending.pop())
                for importer in self._importers(parts):
                    if importer not in reached:
                        reached.add(importer)
                        pending.append(importer)
            self.answers[path] = frozenset(reached)
        return self.answers[path]

    def _importers(self, parts: tuple[str, ...]) -> Iterable[str]:
        """The files with an import of these components or of a package above them: an
        absolute name rooted at any directory, a relative one at its own package."""
        for end in range(len(parts) + 1):
            yield from self.relative.get(parts[:end], ())
            for start in range(end):
                yield from self.absolute.get(parts[start:end], ())
