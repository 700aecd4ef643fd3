"""What each file's analysis found, kept between runs by content, as ruff's `.ruff_cache`.

One pickle per tool version and Python version holds, per absolute path: the file's stat stamp,
the hash of its bytes, whether it passed the textual prefilter, and the outcome of parsing it (its
`ModuleFacts`, pickled separately so a run unpickles only the modules it links, or the one-line
error). A file whose stamp is unchanged is not even read; one whose bytes hash the same is not
parsed. Anything unreadable, of another format, or produced by other analysis code is ignored and
rewritten: the cache can only make a run faster, never change what it finds. Reading it runs no
code: the unpickler builds only the plain-data classes of an exact list (docs/safety.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import mcp_codemod

if TYPE_CHECKING:  # a run the run cache answers reads no facts (engine/run_cache.py)
    from mcp_codemod.analysis.facts import ModuleFacts
    from mcp_codemod.engine.import_graph import Target

CACHE_DIR_NAME = ".mcp-codemod-cache"
_FORMAT = 3
# A file changed within this long of being stamped may change again without moving its mtime
# (timestamps have a coarse granularity): its entry is trusted only after hashing it again.
RACY_NS = 2_000_000_000
# Reading a cache file must not run code, whoever wrote it (a repository may commit one, or
# point `cache-dir` at a committed folder): the unpickler builds only these classes, named
# exactly. Each is a plain dataclass or enum whose construction runs no code of the file's
# choosing; a dotted name (`types.json.codecs.builtins.eval`, which protocol 4 would resolve
# attribute by attribute) is never on the list. Annotations hold `...` and, in literals, any
# constant.
FACTS_CLASSES = frozenset(
    {
        ("builtins", "Ellipsis"),
        ("builtins", "complex"),
        ("builtins", "frozenset"),
        ("builtins", "set"),
        ("mcp_codemod.analysis.frameworks", "Framework"),
        *(
            ("mcp_codemod.analysis.facts", name)
            for name in (
                "Alias",
                "AnnotationSite",
                "CallSite",
                "ClassBase",
                "ExecFile",
                "ExecText",
                "Function",
                "FunctionKind",
                "FunctionRef",
                "ModuleFacts",
                "Parameter",
                "Position",
                "Registration",
                "ServerKind",
                "ServerRef",
                "ServerSwap",
                "Span",
            )
        ),
        *(
            ("mcp_codemod.analysis.type_exprs", name)
            for name in ("TCall", "TConst", "TName", "TOpaque", "TSubscript", "TUnion")
        ),
    }
)
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by mcp-codemod.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)

Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


def default_cache_dir(config_file: Path | None, project: Path | None = None) -> Path:
    """`.mcp-codemod-cache` beside the configuration file, or in `project` (by default the
    working directory)."""
    if config_file is not None:
        return config_file.parent / CACHE_DIR_NAME
    return (project or Path.cwd()) / CACHE_DIR_NAME


def stamp(stat: os.stat_result) -> Stamp:
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


def digest(data: bytes) -> bytes:
    return hashlib.sha1(data, usedforsecurity=False).digest()


class Parsed(NamedTuple):
    """A parse outcome as stored: facts (pickled) for one module name and display path, or an
    error message. Facts name their module and path, so they are reused only for the same ones."""

    module: str
    display: str
    is_package: bool
    facts: bytes | None  # pickled ModuleFacts
    error: str | None


class Entry(NamedTuple):
    stamp: Stamp | None  # None: too recent to be trusted without hashing
    digest: bytes
    candidate: bool | None  # None: never prefiltered (loaded only because a candidate imports it)
    parsed: Parsed | None
    # Of a candidate: whether its text has each word asked about (registrars' names), so that
    # the search for callers reads only the files that mention one.
    mentions: tuple[tuple[str, bool], ...] = ()
    # Of a file whose imports were read for the search for callers: what they may refer to
    # (`engine/import_graph.py`); None until then.
    imports: tuple[Target, ...] | None = None


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that builds the classes of `allowed` and nothing else."""

    allowed: frozenset[tuple[str, str]] = FACTS_CLASSES

    def find_class(self, module: str, name: str):
        if (module, name) in self.allowed:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not cached data")


def analysis_sources() -> list[Path]:
    """The code that computes the facts and defines their classes."""
    package = Path(mcp_codemod.__file__).parent
    analysis = package / "analysis"
    # The data both stages share, and the scan stage that computes the facts.
    sources = sorted([*analysis.glob("*.py"), *(analysis / "scan").glob("*.py")])
    sources += [
        package / "engine" / name
        for name in (
            "file_facts.py",
            "prefilter.py",
            "module_paths.py",
            "file_io.py",
            "facts_cache.py",
            "import_graph.py",
            "caller_texts.py",
        )
    ]
    return sources


def _analysis_fingerprint() -> str:
    """Facts change when the code that computes them does, even without a new version number
    (an editable install under development): hash that code into the key. A class whose
    fields change is of that code too: its old pickles would read a new field as its default."""
    hasher = hashlib.sha1(usedforsecurity=False)
    for source in analysis_sources():
        with contextlib.suppress(OSError):
            hasher.update(source.read_bytes())
    return hasher.hexdigest()


def _cache_key() -> tuple:
    return (_FORMAT, mcp_codemod.__version__, sys.implementation.cache_tag, _analysis_fingerprint())


class FactsCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.file = directory / mcp_codemod.__version__ / f"facts-{sys.implementation.cache_tag}"
        self.key = _cache_key()
        # Stored as plain tuples, which unpickle fast and need no class of this module.
        self.entries: dict[str, tuple] = self._read()
        self.touched: set[str] = set()
        self.changed = False

    def _read(self) -> dict[str, tuple]:
        try:
            with open(self.file, "rb") as stream:
                key, entries = RestrictedUnpickler(stream).load()
        except Exception:  # missing, truncated, garbage, another format: start afresh
            return {}
        return entries if key == self.key and isinstance(entries, dict) else {}

    def get(self, path: str) -> Entry | None:
        self.touched.add(path)
        raw = self.entries.get(path)
        return _entry(raw) if raw is not None else None

    def put(self, path: str, entry: Entry) -> None:
        self.touched.add(path)
        raw = (
            entry.stamp,
            entry.digest,
            entry.candidate,
            entry.parsed and tuple(entry.parsed),
            entry.mentions,
            entry.imports,
        )
        if self.entries.get(path) != raw:
            self.entries[path] = raw
            self.changed = True

    def save(self) -> None:
        """Write the entries, without those of files that no longer exist. A cache that cannot be
        written (read-only tree, full disk) only makes the next run slower."""
        if not self.changed:
            return
        entries = {
            path: raw
            for path, raw in self.entries.items()
            if path in self.touched or os.path.exists(path)
        }
        import tempfile  # only runs that changed something write

        with contextlib.suppress(OSError):
            self._create_directory()
            handle, temporary = tempfile.mkstemp(dir=self.file.parent, suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as stream:
                    pickle.dump((self.key, entries), stream, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, self.file)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise

    def _create_directory(self) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "*\n"), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            marker = self.directory / name
            if not marker.exists():
                marker.write_text(text, encoding="utf-8")


def _entry(raw: object) -> Entry | None:
    """An entry checked field by field: a damaged one is a miss, never a crash later."""
    try:
        stamp_, digest_, candidate, parsed, mentions, imports = raw  # type: ignore[misc]
        if parsed is not None:
            parsed = Parsed(*parsed)
            if not (
                isinstance(parsed.module, str)
                and isinstance(parsed.display, str)
                and isinstance(parsed.facts, bytes | None)
                and isinstance(parsed.error, str | None)
            ):
                return None
    except (TypeError, ValueError):
        return None
    if not (
        isinstance(digest_, bytes)
        and (candidate is None or isinstance(candidate, bool))
        and (stamp_ is None or isinstance(stamp_, tuple))
        and isinstance(mentions, tuple)
        and all(isinstance(name, str) and isinstance(found, bool) for name, found in mentions)
        and (imports is None or _are_targets(imports))
    ):
        return None
    return Entry(stamp_, digest_, candidate, parsed, mentions, imports)


def _are_targets(imports: object) -> bool:
    return isinstance(imports, tuple) and all(
        isinstance(target, tuple)
        and len(target) == 2
        and isinstance(target[0], int)
        and isinstance(target[1], tuple)
        and all(isinstance(part, str) for part in target[1])
        for target in imports
    )


def trusted_stamp(stat: os.stat_result) -> Stamp | None:
    """The stamp to store for a file just read, or None while it is too recent to rely on."""
    if time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) < RACY_NS:
        return None
    return stamp(stat)


def dump_facts(facts: ModuleFacts) -> bytes:
    return pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)


def load_facts(data: bytes) -> ModuleFacts | None:
    """The facts in a cache entry; None when they cannot be restored (then the file is parsed)."""
    from mcp_codemod.analysis.facts import ModuleFacts

    try:
        facts = RestrictedUnpickler(io.BytesIO(data)).load()
    except Exception:
        return None
    return facts if isinstance(facts, ModuleFacts) else None


def refreshed(entry: Entry | None, status: os.stat_result, content: bytes) -> Entry:
    """The entry of a file just read: what was known of the same bytes, with the new stamp."""
    if entry is None or entry.digest != content:
        return Entry(trusted_stamp(status), content, None, None)
    return entry._replace(stamp=trusted_stamp(status))
