"""Where and how a command prints: standard output or `--output-file`, standard error, colour."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from mcp_codemod.cli.exits import fail


class Output:
    """Where and how a command prints: the report on standard output (or `--output-file`),
    messages on standard error; `--quiet` keeps only the findings (or the diff), `--silent`
    nothing but the errors that stop the run; colour per `--color`, NO_COLOR and FORCE_COLOR."""

    def __init__(self, quiet: bool, silent: bool, color: str, output_file: Path | None = None):
        self.quiet = quiet or silent
        self.silent = silent
        self.output_file = output_file
        self.color = output_file is None and _use_color(color, sys.stdout)
        self.report: list[str] = []

    def echo(self, text: str) -> None:
        """Part of the report."""
        if self.silent:
            return
        if self.output_file is not None:
            self.report.append(text)
        else:
            click.echo(text, nl=False, color=self.color)

    def note(self, text: str) -> None:
        """A message beside the report: summaries, notes, advice."""
        if not self.quiet:
            click.echo(text, err=True)

    def finding_note(self, text: str) -> None:
        """A message that tells why the run fails (a file not checked): kept under --quiet."""
        if not self.silent:
            click.echo(text, err=True)

    def close(self) -> None:
        """Write the report to `--output-file`: one line and exit 2 when it cannot be."""
        if self.output_file is None:
            return
        try:
            _write_report(self.output_file, "".join(self.report))
        except _LinkedPath as linked:
            fail(f"--output-file {self.output_file}: {linked} is a symbolic link; not written")
        except OSError as error:
            fail(f"--output-file {self.output_file}: cannot write: {error.strerror or error}")


class _LinkedPath(Exception):
    """A path the report would be written through is a symbolic link."""


def _write_report(path: Path, text: str) -> None:
    """The report, in a file of its own: missing parent folders are made first, as ruff makes
    them, but only those of the path given, and never in or through a symbolic link; the file
    itself is not written through one either."""
    missing = []
    parent = path.parent
    while not parent.exists() and not parent.is_symlink():  # a dangling link exists not
        missing.append(parent)
        parent = parent.parent
    if missing:
        linked = next((p for p in (parent, *parent.parents) if p.is_symlink()), None)
        if linked is not None:
            raise _LinkedPath(linked)
        for folder in reversed(missing):
            try:
                folder.mkdir()
            except FileExistsError:  # made meanwhile: only a real folder will do
                if folder.is_symlink() or not folder.is_dir():
                    raise
    if path.is_symlink():
        raise _LinkedPath(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with open(os.open(path, flags, 0o666), "w", encoding="utf-8") as report:
        report.write(text)


def _use_color(choice: str, stream) -> bool:
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False
