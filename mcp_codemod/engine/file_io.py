"""Reading and writing Python source files exactly: encoding, BOM and line endings survive."""

from __future__ import annotations

import codecs
import functools
import io
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path


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


CHANGED = "changed while fixing; left unchanged, run fix again"


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file (a FIFO would block the read)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise SourceError("not a regular file")
        return path.read_bytes()
    except OSError as error:
        raise SourceError(f"cannot read: {error.strerror or error}") from None


@functools.cache
def ascii_compatible(encoding: str) -> bool:
    """Whether every ASCII character is one and the same byte in `encoding`, both ways and in any
    context. Edits in UTF-7, ISO-2022-JP or UTF-16 text could change bytes they do not touch."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    if name.startswith("iso2022") or name == "hz":
        return False  # escape sequences switch what the ASCII bytes after them mean
    sample = bytes(range(128))
    try:
        text = sample.decode(name)
        return text == sample.decode("ascii") and text.encode(name) == sample
    except UnicodeError:
        return False


def read_for_rewrite(path: Path, data: bytes | None = None) -> tuple[bytes, Source]:
    """The bytes and the decoded text of a file the fixer may rewrite (`data`: the bytes of an
    unsaved buffer instead of the file's); raises SourceError for an encoding it must not
    re-encode."""
    if data is None:
        data = read_bytes(path)
    source = decode(data)
    # utf-8-sig is UTF-8 after its BOM, which encoding puts back.
    if not ascii_compatible(source.encoding.removesuffix("-sig")):
        raise SourceError(
            f"encoded in {source.encoding}, which is not ASCII-compatible; left unchanged"
        )
    if source.text.encode(source.encoding) != data:
        raise SourceError(
            f"its {source.encoding} text does not encode back to the same bytes; left unchanged"
        )
    return data, source


def create_new(path: Path) -> None:
    """Create the empty file `path`, which must not exist: not even as a symbolic link, whose
    target could be anywhere. Raises SourceError."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.close(os.open(path, flags, 0o644))
    except OSError as error:
        raise SourceError(f"cannot create: {error.strerror or error}; left unchanged") from None


def write_source(path: Path, text: str, encoding: str, original: bytes) -> None:
    """Compare and swap: replace the file `path` names, if it still holds the bytes `original`,
    with `text`. Atomic (a temporary file in the same directory, then a rename), so an
    interrupted write never leaves a truncated file; owner, group and permission bits kept (the
    new file is given the old one's owner before the rename: a root run must not take a user's
    file). A symbolic link stays a link: its target is rewritten in place. A file with several
    hard links is left alone: the rename would split them, and rewriting it in place is not
    atomic. Raises SourceError (with the message CHANGED when the file changed since it was
    read) and leaves the file as it was."""
    import tempfile  # only `fix` writes sources

    data = text.encode(encoding)
    try:
        target = path.resolve(strict=True)
        status = target.stat()
    except OSError as error:
        raise SourceError(f"cannot write: {error.strerror or error}; left unchanged") from None
    if status.st_nlink > 1:
        raise SourceError(
            f"has {status.st_nlink} hard links, which a rewrite would split; left unchanged"
        )
    try:
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise SourceError(f"cannot write: {error.strerror or error}; left unchanged") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        _keep_owner(temporary, status)
        os.chmod(temporary, status.st_mode & 0o7777)  # after chown, which clears setuid bits
        # The last moment to notice an editor's save or a formatter's run: only a change within
        # the next system call can still be lost.
        if read_bytes(target) != original:
            raise SourceError(CHANGED)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise SourceError(f"cannot write: {error.strerror or error}; left unchanged") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _keep_owner(temporary: str, status: os.stat_result) -> None:
    """Give the new file the owner and group of the one it replaces; raises SourceError when
    this user cannot (then the rename would hand the file over to them)."""
    new = os.stat(temporary)
    if (new.st_uid, new.st_gid) == (status.st_uid, status.st_gid):
        return
    try:
        os.chown(temporary, status.st_uid, status.st_gid)
    except OSError:
        raise SourceError(
            f"owned by {status.st_uid}:{status.st_gid}, which this user cannot give a new file; "
            "left unchanged"
        ) from None
