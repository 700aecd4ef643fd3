"""The project's formatter settings, read as data: what `line_wrap` needs to lay out fixed lines
the way the user's `ruff format` would.

As ruff finds its configuration: the closest directory at or above the file with `.ruff.toml`,
`ruff.toml`, or a `pyproject.toml` with a `[tool.ruff]` table (in that order within a
directory). From it: `line-length` (default 88), `indent-width` (4) and `format.indent-style`
(`space`). An `extend`ed base file is not followed: its line length would need its own lookup,
and a file that cannot be read or parsed gives the defaults (ruff itself would stop there).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_codemod.fix.line_wrap import LineStyle

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class FormatStyles:
    """The formatter settings of the files of one run, each directory's looked up once."""

    def __init__(self) -> None:
        self.directories: dict[Path, LineStyle] = {}

    def of(self, path: Path) -> LineStyle:
        """The formatter settings that apply to the file at `path`."""
        directory = path.resolve().parent
        if directory not in self.directories:
            self.directories[directory] = self._find(directory)
        return self.directories[directory]

    @staticmethod
    def _find(directory: Path) -> LineStyle:
        for candidate in (directory, *directory.parents):
            settings = _ruff_settings(candidate)
            if settings is not None:
                return _style(settings)
        return LineStyle()


def _ruff_settings(directory: Path) -> dict | None:
    for name in (".ruff.toml", "ruff.toml", "pyproject.toml"):
        path = directory / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, MemoryError):
            return {}
        if name != "pyproject.toml":
            return data
        ruff = data.get("tool", {}).get("ruff")
        if isinstance(ruff, dict):
            return ruff
    return None


def _style(settings: dict) -> LineStyle:
    length = settings.get("line-length", 88)
    width = settings.get("indent-width", 4)
    format_settings = settings.get("format", {})
    style = format_settings.get("indent-style") if isinstance(format_settings, dict) else None
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        length = 88
    if not isinstance(width, int) or isinstance(width, bool) or width < 1:
        width = 4
    return LineStyle(length, "\t" if style == "tab" else " " * width, width)
