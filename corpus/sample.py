"""Draw MCP servers at random from the registry's package list, for corpus/packages.txt.

    python corpus/sample.py [LIST] [--seed 23] [-n 36] [--verbose]

Generalisation is measured on servers nobody chose: this script picks them, reproducibly, from a
list of the registry's packages (default /work/.library/env/packages/pypi.tsv: tab-separated
`name, version, month, rank_among_15000_most_downloaded, summary`, one package a line, a header
first). It prints `name==version` lines on standard output and why each other candidate was
passed over on standard error (with `--verbose`).

1. **The predicate** (`is_mcp_server`): a package is a candidate when, with its name and summary
   lowercased,
   - its name contains `mcp` and its name or its summary contains `server`, or
   - its summary contains `mcp server`, `model context protocol server` or
     `model context protocol (mcp) server`.
2. **The order**: the candidates sorted by normalized name (so the list's own order does not
   matter), then shuffled with `random.Random(seed).shuffle`.
3. **The walk**: in that order, each candidate's wheel of the listed version is downloaded
   (`pip download --no-deps --only-binary :all: name==version`, into the corpus cache's
   `downloads/`, where `corpus/run.py` finds it again) and its `METADATA` is read, never its code.
   The candidate is kept when a `Requires-Dist` names the distribution `mcp` (any extras or
   version specifier) outside an `extra == ...` marker: the server depends on the official SDK.
   Passed over: names already in corpus/packages.txt, versions without a wheel (an sdist's
   metadata is only known by running its build backend, that is its code), downloads that fail.
   The walk stops at N kept packages.

Nothing is picked by hand: the list, the seed and N determine the output (and the registry,
which serves the pinned versions; a version deleted since the list was taken is passed over).
Candidates are downloaded a few at a time, but decided in order.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from email.parser import HeaderParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_LIST = Path("/work/.library/env/packages/pypi.tsv")
SEED = 23  # issue #23, item 5; chosen before any draw
COUNT = 36
PHRASES = ("mcp server", "model context protocol server", "model context protocol (mcp) server")
WINDOW = 6  # downloads at a time


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def is_mcp_server(name: str, summary: str) -> bool:
    name, summary = name.lower(), summary.lower()
    if "mcp" in name and ("server" in name or "server" in summary):
        return True
    return any(phrase in summary for phrase in PHRASES)


def candidates(path: Path) -> list[tuple[str, str]]:
    """(name, version) of every package of the list the predicate keeps, sorted by name."""
    found = {}
    with path.open(encoding="utf-8", errors="replace") as lines:
        next(lines)  # the header
        for line in lines:
            columns = line.rstrip("\n").split("\t")
            if len(columns) < 5:
                continue
            name, version, summary = columns[0], columns[1], columns[4]
            if version and is_mcp_server(name, summary):
                found[normalize(name)] = (name, version)
    return [found[key] for key in sorted(found)]


def pinned(packages: Path) -> set[str]:
    """The normalized names already in corpus/packages.txt."""
    names = set()
    for raw in packages.read_text(encoding="utf-8").splitlines():
        tokens = raw.partition("#")[0].split()
        if tokens:
            names.add(normalize(tokens[0].partition("==")[0]))
    return names


def _wheel(name: str, version: str, folder: Path) -> Path | None:
    """`name`'s wheel of `version` in `folder`: `{name}-{version}(-{build})?-{tags}.whl`."""
    for path in sorted(folder.glob("*.whl")):
        parts = path.name.split("-")
        if len(parts) < 5 or normalize(parts[0]) != normalize(name):
            continue
        if _version(parts[1]) == _version(version):
            return path
    return None


def _version(text: str) -> str:
    try:
        from pip._vendor.packaging.version import Version  # pip is there: it downloads

        return str(Version(text))
    except Exception:
        return text


def download(name: str, version: str, folder: Path) -> Path | str:
    """The wheel of `name==version` in `folder` (downloaded once), or why there is none."""
    found = _wheel(name, version, folder)
    if found is not None:
        return found
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
    command += ["--disable-pip-version-check", "--only-binary", ":all:", "-d", str(folder)]
    command.append(f"{name}=={version}")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "download timed out"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return "no wheel: " + (lines[-1] if lines else f"pip exited {done.returncode}")
    found = _wheel(name, version, folder)
    return found if found is not None else "pip left no wheel of that version"


def requires(wheel: Path) -> list[str]:
    """The `Requires-Dist` fields of a wheel's METADATA."""
    with zipfile.ZipFile(wheel) as bundle:
        metadata = [n for n in bundle.namelist() if n.endswith(".dist-info/METADATA")]
        if not metadata:
            return []
        text = bundle.read(min(metadata, key=len)).decode("utf-8", errors="replace")
    return HeaderParser().parsestr(text).get_all("Requires-Dist") or []


def depends_on_mcp(requirements: list[str]) -> bool:
    for requirement in requirements:
        spec, _, marker = requirement.partition(";")
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if match and normalize(match.group(1)) == "mcp" and "extra" not in marker:
            return True
    return False


def verdict(name: str, version: str, folder: Path) -> str | None:
    """None when the candidate is kept, else why not."""
    wheel = download(name, version, folder)
    if isinstance(wheel, str):
        return wheel
    try:
        requirements = requires(wheel)
    except (zipfile.BadZipFile, OSError) as error:
        return f"unreadable wheel: {error}"
    return None if depends_on_mcp(requirements) else "no dependency on mcp"


def sample(
    listing: Path, seed: int, count: int, folder: Path, skip: set[str], log=None
) -> list[str]:
    order = candidates(listing)
    random.Random(seed).shuffle(order)
    order = [(n, v) for n, v in order if normalize(n) not in skip]
    folder.mkdir(parents=True, exist_ok=True)
    kept: list[str] = []
    with ThreadPoolExecutor(WINDOW) as pool:
        for start in range(0, len(order), WINDOW):
            batch = order[start : start + WINDOW]
            verdicts = pool.map(lambda item: verdict(*item, folder), batch)
            for (name, version), reason in zip(batch, verdicts, strict=True):
                if len(kept) == count:
                    break
                if reason is None:
                    kept.append(f"{name}=={version}")
                elif log is not None:
                    log(f"passed over {name}=={version}: {reason}")
            if len(kept) == count:
                break
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("list", nargs="?", type=Path, default=DEFAULT_LIST)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("-n", "--count", type=int, default=COUNT)
    parser.add_argument("--packages", type=Path, default=HERE / "packages.txt")
    parser.add_argument(
        "--downloads",
        type=Path,
        help="where the wheels go (default: the corpus cache's downloads/, as corpus/run.py's)",
    )
    parser.add_argument("--verbose", action="store_true", help="say why candidates were passed")
    args = parser.parse_args(argv)
    if args.downloads is None:
        sys.path.insert(0, str(HERE))
        from run import DEFAULT_CACHE

        args.downloads = DEFAULT_CACHE / "downloads"
    digest = hashlib.sha256(args.list.read_bytes()).hexdigest()[:16]
    log = (lambda text: print(text, file=sys.stderr)) if args.verbose else None
    if log:
        log(f"list {args.list} (sha256 {digest}…), seed {args.seed}, n {args.count}")
        log(f"{len(candidates(args.list))} candidates by name and summary")
    kept = sample(args.list, args.seed, args.count, args.downloads, pinned(args.packages), log)
    for line in kept:
        print(line)
    if len(kept) < args.count:
        print(f"only {len(kept)} of {args.count} found", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
