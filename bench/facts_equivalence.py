"""Compare the scanner's facts with those of the scanner at another git revision.

    python bench/facts_equivalence.py [--rev main | --against FILE] [--dump FILE] [ROOT ...]

Exports `mcp_codemod` as it is at `--rev` (`git archive`) into a temporary folder, scans every
`.py` file under the roots with it in a subprocess, scans them again with this checkout's
scanner, and reports every file whose facts differ. Every file is scanned, not only the
prefilter's candidates: the linker scans any module it loads.

Facts are compared in a canonical form that keeps dictionaries' order and sorts sets (a set's
order depends on the process's string hashing), so an order change counts as a difference.
Default roots: the fixtures, the ecosystem corpus's sources and the benchmark's trees, those of
them that are unpacked.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import gc
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOTS = [
    REPO / "fixtures",
    Path.home() / ".cache" / "mcp-codemod-corpus" / "src",
    Path.home() / ".cache" / "mcp-codemod-bench" / "tree",
    Path.home() / ".cache" / "mcp-codemod-bench" / "mcp-heavy",
]


def canonical(value: object) -> object:
    """Plain nested tuples that are equal exactly when the facts are, order of dicts included."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            tuple(canonical(getattr(value, f.name)) for f in dataclasses.fields(value)),
        )
    if isinstance(value, enum.Enum):
        return (type(value).__name__, value.value)
    if isinstance(value, dict):
        return ("dict", tuple((canonical(k), canonical(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return (type(value).__name__, tuple(sorted((canonical(v) for v in value), key=repr)))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(canonical(v) for v in value))
    return value


def module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = path.relative_to(root).with_suffix("").parts
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts) or "m", is_package


def scan_digests(roots: list[Path]) -> dict[str, str]:
    """Each file's canonical facts, hashed (or the parse error's type)."""
    import mcp_codemod
    from mcp_codemod.analysis.scan.scanner import scan_module

    print(f"scanning with {Path(mcp_codemod.__file__).parent}", file=sys.stderr)
    gc.disable()  # as `check` runs the scanner
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            source = path.read_bytes().decode("utf-8", "replace")
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError) as error:
                found[str(path)] = type(error).__name__
                continue
            module, is_package = module_name(path, root)
            facts = scan_module(source, tree, module, str(path), is_package)
            # `repr`, not a pickle: a pickle's bytes also tell which equal strings are one object.
            found[str(path)] = hashlib.sha1(repr(canonical(facts)).encode()).hexdigest()
    return found


def scan_at_revision(revision: str, roots: list[Path]) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", revision, "mcp_codemod"],
            check=True,
            capture_output=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        output = Path(folder) / "digests.json"
        subprocess.run(
            [sys.executable, __file__, "--dump", str(output), *map(str, roots)],
            check=True,
            env={**os.environ, "PYTHONPATH": folder},
        )
        return json.loads(output.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--rev", default="main", help="the revision to compare with")
    parser.add_argument("--dump", type=Path, help="write this checkout's digests to FILE, and stop")
    parser.add_argument(
        "--against", type=Path, help="compare with digests --dump wrote, instead of --rev's"
    )
    arguments = parser.parse_args()
    roots = arguments.roots or [root for root in DEFAULT_ROOTS if root.is_dir()]
    if arguments.dump:
        arguments.dump.write_text(json.dumps(scan_digests(roots)))
        return 0
    if arguments.against:
        before = json.loads(arguments.against.read_text())
        arguments.rev = str(arguments.against)
    else:
        before = scan_at_revision(arguments.rev, roots)
    after = scan_digests(roots)
    differ = sorted(
        path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
    )
    for path in differ:
        print(f"differs: {path}")
    print(
        f"{len(after)} files under {len(roots)} roots, {len(differ)} with other facts than {arguments.rev}"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
