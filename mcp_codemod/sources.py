"""Reading and writing Python source files exactly: encoding, BOM and line endings survive."""

from __future__ import annotations

import io
import os
import re
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

# Python ends lines at \r\n, \r or \n only; str.splitlines() also splits at \x0c, \x1c, \u2028…
# which would shift every line number after them.
_NEWLINE = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` as Python numbers them, without their endings."""
    return _NEWLINE.split(text)


def line_offsets(text: str) -> list[int]:
    """The offset in `text` where each line starts; index 0 is line 1."""
    return [0, *(match.end() for match in _NEWLINE.finditer(text))]


class SourceError(Exception):
    """A file that cannot be read or decoded; the message is one line for the user."""


@dataclass(frozen=True)
class Source:
    text: str  # decoded, with the file's own line endings
    encoding: str  # as declared or detected, "utf-8-sig" when the file has a BOM


def decode(data: bytes) -> Source:
    try:
        # tokenize finds a BOM or a PEP 263 declaration; it reports undecodable first lines
        # as a SyntaxError, so decoding them below gives the real reason.
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        encoding = "utf-8"
        if "encoding problem" in str(error) or "unknown encoding" in str(error):
            raise SourceError(str(error)) from None
    try:
        return Source(data.decode(encoding), encoding)
    except UnicodeDecodeError as error:
        raise SourceError(f"not valid {error.encoding}: {error.reason}") from None
    except LookupError as error:
        raise SourceError(str(error)) from None


def read_source(path: Path) -> Source:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SourceError(f"cannot read: {error.strerror or error}") from None
    return decode(data)


def write_source(path: Path, text: str, encoding: str) -> None:
    """Replace `path` atomically (temporary file in the same directory, then rename), keeping its
    permission bits, so that an interrupted write never leaves a truncated file."""
    data = text.encode(encoding)
    mode = path.stat().st_mode & 0o7777
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
