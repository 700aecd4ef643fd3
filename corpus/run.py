"""The ecosystem check: run `mcp-codemod check` and `fix` over real MCP servers, with invariants.

    python corpus/run.py [--only NAME ...] [--deep] [--details] [--markdown corpus/RESULTS.md]
    python corpus/run.py --download-only        # fill the cache (CI's setup step), nothing else

For every distribution pinned in corpus/packages.txt: download it (`pip download --no-deps`),
unpack it to a cache folder outside the repository (default ~/.cache/mcp-codemod-corpus, or
$MCP_CODEMOD_CORPUS_CACHE), copy it to `work/<key>/tree` beside a second pristine copy
(`work/<key>/neighbour`), run `check` and `fix --unsafe-fixes --write` on the tree, and verify:

- no command crashes (exit code 2, a traceback);
- every rewritten file still parses, and exactly the `.py` files `api.fix_paths` plans change;
- nothing outside the given path changes (the neighbour copy is byte-identical afterwards);
- a file that passes `ruff check --isolated --select I` before the fix passes it after;
- a second `fix --write` changes nothing, and `fix` without `--write` then has nothing to show;
- `check` afterwards reports no fixable finding, and the same number of tools;
- files without findings are byte-identical.

Missed registrations (unchecked, except tools with generated signatures) are counted against
all registrations over the run; the run fails at 2% or more. It prints a table per package (a
column for every rule that reported something) and exits 1 when any invariant fails.

`--deep` additionally installs the packages marked `deep=` into throwaway virtualenvs (kept in the
cache), and imports each named server from three trees: the pristine sources, a fresh copy fixed
with the default `fix --write` (safe fixes only), and the tree fixed with `fix --unsafe-fixes
--write`. Every tool's input schema must be the same in all three. For servers whose class is
constructed in the package's sources, `mcp-codemod probe` runs on each tree and counts the mangled
parameters before any fix, after the default fix and after the unsafe fix; after the unsafe fix the
probe may find none (whatever `check` said of it); before the fix `check` must report exactly the
parameters the probe finds mangled (MCP001, MCP002, and MCP006's JSON text on standalone
fastmcp; the run reports its recall and precision); and the safe fix may change only mangled
behaviour: a fixed battery of arguments is run through every parameter's handling on each tree,
and a parameter that receives any of them differently after the default fix must have been
mangled before (a violation is a failure; the same count after the unsafe fix is reported, not
judged).

Importable: `tests/engine/test_corpus_subset.py` calls `load_packages` and `run_package`.
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from mcp_codemod.runtime.guards import OPENAI_STRICT_FORMATS

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PACKAGES = HERE / "packages.txt"
DEFAULT_CACHE = Path(
    os.environ.get("MCP_CODEMOD_CORPUS_CACHE", Path.home() / ".cache" / "mcp-codemod-corpus")
)
CODEMOD = [sys.executable, "-m", "mcp_codemod"]
SELECT = "ALL"  # every rule, the ones off by default too; fix only touches the fixable ones
# Unsafe fixes too: the server swap of MCP001 for `Any` and unannotated parameters.
FIX = ["fix", "--unsafe-fixes"]
TIMEOUT = 300  # seconds for one command on one package


# ---- the package list ------------------------------------------------------------------------


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    deep: str | None = None  # module:attr of the server object, for --deep
    python: str | None = None  # interpreter version the deep virtualenv needs
    framework: str | None = None  # `--framework` for servers the analysis cannot resolve
    extra: tuple[str, ...] = ()  # more requirements for the deep virtualenv (`with=mcp<2,...`)
    sdist: bool = False  # check the source distribution (tests, examples…) instead of the wheel
    note: str = ""

    @property
    def key(self) -> str:
        return f"{_normalize(self.name)}-{self.version}" + ("-sdist" if self.sdist else "")

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def load_packages(path: Path = PACKAGES) -> list[Package]:
    packages = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line, _, note = raw.partition("#")
        tokens = line.split()
        if not tokens:
            continue
        name, sep, version = tokens[0].partition("==")
        if not sep or not version:
            raise ValueError(f"{path}:{number}: expected name==version, got {tokens[0]!r}")
        options = dict([*token.split("=", 1), "yes"][:2] for token in tokens[1:])
        unknown = set(options) - {"deep", "python", "framework", "with", "sdist"}
        if unknown:
            raise ValueError(f"{path}:{number}: unknown option(s) {sorted(unknown)}")
        packages.append(
            Package(
                name,
                version,
                options.get("deep"),
                options.get("python"),
                options.get("framework"),
                tuple(filter(None, options.get("with", "").split(","))),
                "sdist" in options,
                note.strip(),
            )
        )
    return packages


# ---- download and unpack ---------------------------------------------------------------------


def _archive_matches(path: Path, package: Package) -> bool:
    stem = path.name.lower().replace("_", "-")
    prefix = f"{_normalize(package.name)}-{package.version}".lower()
    if not stem.startswith((f"{prefix}-", f"{prefix}.")):
        return False
    if package.sdist:
        return path.name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".zip"))
    return path.suffix == ".whl"


def download(package: Package, cache: Path) -> Path:
    """The wheel (or sdist) of `package`, downloaded once into the cache."""
    folder = cache / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.iterdir()):
        if _archive_matches(path, package):
            return path
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
    command += ["--disable-pip-version-check", "-d", str(folder), package.requirement]
    command += ["--no-binary", ":all:"] if package.sdist else ["--only-binary", ":all:"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"pip download {package.requirement} failed:\n{done.stderr[-2000:]}")
    for path in sorted(folder.iterdir()):
        if _archive_matches(path, package):
            return path
    raise RuntimeError(f"pip download {package.requirement} left no archive in {folder}")


def unpack(archive: Path, target: Path) -> Path:
    """The pristine sources of an archive, unpacked once (wheels are importable as unpacked)."""
    if target.is_dir():
        return target
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as bundle:
            bundle.extractall(partial)
    else:
        with tarfile.open(archive) as bundle:
            if hasattr(tarfile, "data_filter"):
                bundle.extractall(partial, filter="data")
            else:  # Python < 3.12 without the backported filter
                bundle.extractall(partial)
        entries = list(partial.iterdir())
        if len(entries) == 1 and entries[0].is_dir():  # sdists hold one name-version/ folder
            inner = entries[0]
            for child in inner.iterdir():
                child.rename(partial / child.name)
            inner.rmdir()
    partial.rename(target)
    return target


def sources(package: Package, cache: Path) -> Path:
    return unpack(download(package, cache), cache / "src" / package.key)


# ---- running the codemod ---------------------------------------------------------------------


@dataclass
class Run:
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def crashed(self) -> bool:
        return self.returncode not in (0, 1) or "Traceback (most recent call last)" in (
            self.stdout + self.stderr
        )

    def describe(self) -> str:
        tail = (self.stderr.strip() or self.stdout.strip())[-1500:]
        return f"`{' '.join(self.command[2:])}` exited {self.returncode}: {tail}"


def codemod(arguments: list[str], cwd: Path) -> Run:
    command = [*CODEMOD, *arguments]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"},
        )
    except subprocess.TimeoutExpired as error:
        return Run(command, -9, "", f"timed out after {error.timeout}s", TIMEOUT)
    return Run(command, done.returncode, done.stdout, done.stderr, time.perf_counter() - start)


def analysis_here(framework: str | None) -> dict:
    """What `mcp_codemod.api` finds in the working directory, for what the CLI's JSON does not
    carry: the registrations, the unchecked ones with why, and the files the fix (with unsafe
    fixes) rewrites. Tools and unchecked are counted without `framework`, as a user first sees
    them; the planned files with it."""
    from mcp_codemod import api

    stated = api.fix_paths(
        [], api.Options(select=[SELECT], framework=framework, cache=False), unsafe_fixes=True
    )
    found = stated.check
    if framework is not None:
        _, found = api.check_paths([], api.Options(select=[SELECT], cache=False))
    return {
        "tools": found.tools,
        "unchecked": [[u.path, u.line, u.reason, u.kind.value] for u in found.unchecked],
        "planned": sorted(change.path for change in stated.fixes.files),
    }


def analysis(work: Path, framework: str | None) -> dict | None:
    """`analysis_here` in the package's copy: its folder is the working directory, as for a user
    running `mcp-codemod` there (its configuration, paths relative to it). None if it failed."""
    command = [sys.executable, str(Path(__file__).resolve()), "--analysis-here"]
    command += ["--framework", framework] if framework else []
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        return None
    return json.loads(done.stdout)


# ---- what a careful reader would count ----------------------------------------------------------


def naive_registrations(root: Path) -> dict[str, int]:
    """Syntax-only counts, to compare with what the analysis resolves: decorators and calls that
    look like tool registrations, and low-level `@server.call_tool()` handlers."""
    counts = Counter()
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if isinstance(target, ast.Attribute) and target.attr == "tool":
                        counts["decorated"] += 1
                    elif isinstance(target, ast.Attribute) and target.attr == "call_tool":
                        counts["lowlevel"] += 1
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == "add_tool":
                    counts["add_tool"] += 1
                elif (
                    isinstance(func, ast.Call)
                    and isinstance(func.func, ast.Attribute)
                    and func.func.attr == "tool"
                ):
                    counts["tool_call"] += 1
    return dict(counts)


# ---- one package -----------------------------------------------------------------------------


@dataclass
class PackageResult:
    package: Package
    files: int = 0  # .py files
    tools: int | None = None  # registrations the analysis found
    unchecked: list[list] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)  # files the fixes will rewrite
    naive: dict[str, int] = field(default_factory=dict)
    findings: list[dict] = field(default_factory=list)
    unparsable: list[str] = field(default_factory=list)  # E902 paths
    changed: list[str] = field(default_factory=list)
    fix: str = "not run"  # "crashed" (fix --write failed), "failed" (an invariant), "ok"
    deep: str = ""
    probe: dict = field(default_factory=dict)  # --deep: the probe's problems before/safe/after
    probe_only: list = field(default_factory=list)  # mangled per the probe, not reported by check
    check_only: list = field(default_factory=list)  # reported by check, not mangled per the probe
    # --deep, (tool, parameter) pairs: mangled per the probe before any fix, still mangled after
    # the default `fix --write` (safe fixes) and after `fix --unsafe-fixes --write`, reported by
    # check (`PROBED_CODES`) on the probed tools, and those whose received values the safe fix
    # changed although they were not mangled before (the safety invariant's violations).
    mangled: list = field(default_factory=list)
    left_safe: list = field(default_factory=list)
    left_unsafe: list = field(default_factory=list)
    reported: list = field(default_factory=list)
    unsafe_changed: list = field(default_factory=list)  # the same after the unsafe fix: a note
    safe_violations: list = field(default_factory=list)
    elsewhere: list = field(default_factory=list)  # tools check reports that no probed server has
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> Counter:
        return Counter(f["code"] for f in self.findings)

    @property
    def fixable(self) -> int:
        return sum(bool(f.get("fixable")) for f in self.findings)

    @property
    def missed(self) -> list[list]:
        """Unchecked registrations, except tools whose signature is made at run time: no static
        analysis can see those, so they do not count against its reach."""
        return [u for u in self.unchecked if u[3] != GENERATED_SIGNATURE]


GENERATED_SIGNATURE = "generated-signature"  # an `Unchecked` kind of the linker
MISSED_TARGET = 0.02  # the share of missed registrations the run tolerates


def missed_share(results: list[PackageResult]) -> tuple[int, int]:
    """Missed registrations and all registrations, over the packages."""
    return sum(len(r.missed) for r in results), sum(r.tools or 0 for r in results)


# What tools leave beside the sources (bytecode, mcp-codemod's own analysis cache): not sources.
_NOT_SOURCES = {"__pycache__", ".mcp-codemod-cache", ".ruff_cache"}


def _digest(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not _NOT_SOURCES.intersection(path.relative_to(root).parts)
    }


def _findings(run: Run) -> tuple[list[dict], list[str]]:
    items = json.loads(run.stdout or "[]")
    findings = [item for item in items if item["type"] == "finding"]
    errors = [item["path"] for item in items if item["type"] == "error"]
    return findings, errors


def _parses(path: Path) -> str | None:
    try:
        ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError) as error:
        return str(error)
    return None


def _relative(path: str) -> str:
    return Path(path).as_posix().removeprefix("./")


def _subject(finding: dict) -> str:
    """What a finding is about: a tool parameter, or (MCP004) its server."""
    if finding["parameter"] is None:
        return _oneline(finding["message"])
    return f"`{finding['tool']}`: `{finding['parameter']}: {_oneline(finding['annotation'])}`"


def _options(package: Package) -> list[str]:
    """What every check and fix of a package is given: the rules, and its framework if stated."""
    return ["--select", SELECT, *(["--framework", package.framework] if package.framework else [])]


def check_phase(result: PackageResult, work: Path) -> Run | None:
    run = codemod(
        ["check", "--output-format", "json", *_options(result.package), "--exit-zero", "."], work
    )
    if run.crashed():
        result.failures.append(f"check crashed: {run.describe()}")
        return None
    try:
        result.findings, result.unparsable = _findings(run)
    except (ValueError, KeyError) as error:
        result.failures.append(f"check printed invalid JSON ({error}): {run.stdout[:300]}")
        return None
    info = analysis(work, result.package.framework)
    if info is None:
        result.failures.append("the analysis through mcp_codemod.api failed")
    else:
        result.tools = info["tools"]
        result.unchecked = info["unchecked"]
        result.planned = info["planned"]
    return run


def _outside(work: Path) -> dict[str, str]:
    """The files beside the fixed tree (its parent folder's other files)."""
    return {
        path: digest
        for path, digest in _digest(work.parent).items()
        if not path.startswith(f"{work.name}/")
    }


def _unsorted_imports(work: Path) -> set[str] | None:
    """The files whose imports `ruff check --isolated --select I` would sort; None without ruff."""
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "I", "--no-cache"]
    command += ["--exit-zero", "--output-format", "json", "."]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        return None
    return {
        Path(item["filename"]).resolve().relative_to(work.resolve()).as_posix()
        for item in json.loads(done.stdout or "[]")
        if (item.get("code") or "").startswith("I")
    }


def fix_phase(result: PackageResult, work: Path, planned: set[str]) -> None:
    before = _digest(work)
    outside = _outside(work)
    unsorted = _unsorted_imports(work)
    if unsorted is None:
        result.failures.append("ruff is not installed: pip install -e '.[test]'")
    fixed = codemod([*FIX, "--write", *_options(result.package), "."], work)
    # Exit 1 is a finding left (one with no fix, or an unsafe one); the checks below read them.
    if fixed.crashed():
        result.fix = "crashed"
        result.failures.append(f"fix --write: {fixed.describe()}")
        return
    after = _digest(work)
    outside_after = _outside(work)
    if outside_after != outside:
        changed = sorted(
            p for p in set(outside) | set(outside_after) if outside.get(p) != outside_after.get(p)
        )
        result.failures.append(f"fix --write changed files outside the given path: {changed}")
    result.changed = sorted(path for path in after if before.get(path) != after[path])
    if unsorted is not None:
        now_unsorted = sorted((_unsorted_imports(work) or set()) - unsorted)
        if now_unsorted:
            result.failures.append(
                f"imports sorted before the fix, not after (ruff --select I): {now_unsorted}"
            )
    if set(before) != set(after):
        result.failures.append(
            f"fix --write added or removed files: {sorted(set(before) ^ set(after))}"
        )
    planned = {_relative(path) for path in planned}
    for path in result.changed:
        if not path.endswith(".py"):
            result.failures.append(f"fix rewrote a non-Python file: {path}")
        elif path not in planned:
            result.failures.append(f"fix rewrote {path}, which the API plans no fix for")
        error = _parses(work / path)
        if error is not None:
            result.failures.append(f"{path} no longer parses after the fix: {error}")
    missing = sorted(planned - set(result.changed))
    if missing:
        result.failures.append(f"fixes planned but file unchanged: {missing}")

    again = codemod([*FIX, "--write", *_options(result.package), "."], work)
    if again.crashed():
        result.failures.append(f"second fix --write: {again.describe()}")
    elif _digest(work) != after:
        result.failures.append("a second fix --write changed files again (not idempotent)")
    dry = codemod([*FIX, *_options(result.package), "."], work)
    if dry.crashed() or re.search(r"^(@@|\+\+\+ )", dry.stdout, re.M):
        result.failures.append(
            f"fix without --write after fixing still shows changes: {dry.describe()}"
        )

    recheck = codemod(
        ["check", "--output-format", "json", *_options(result.package), "--exit-zero", "."], work
    )
    if recheck.crashed():
        result.failures.append(f"check after fix crashed: {recheck.describe()}")
    else:
        findings, unparsable = _findings(recheck)
        left = [f for f in findings if f.get("fixable")]
        for finding in left:
            result.failures.append(
                f"still fixable after fix: {finding['path']}:{finding['line']} {finding['code']} "
                f"{_subject(finding)}"
            )
        if sorted(unparsable) != sorted(result.unparsable):
            result.failures.append(f"unparsable files changed: {result.unparsable} -> {unparsable}")
        info = analysis(work, result.package.framework)
        if info is not None and len(info["unchecked"]) != len(result.unchecked):
            result.failures.append(
                f"unchecked tools: {len(result.unchecked)} before the fix, "
                f"{len(info['unchecked'])} after"
            )
        if info is not None and result.tools is not None and info["tools"] != result.tools:
            result.failures.append(
                f"tools found: {result.tools} before the fix, {info['tools']} after"
            )
    result.fix = "failed" if result.failures else "ok"


def work_tree(base: Path, package: Package) -> Path:
    """Where a package's copy is checked and fixed: `base/<key>/tree`, beside `neighbour/`, a
    second pristine copy that no fix of `tree` may touch."""
    return base / package.key / "tree"


def run_package(
    package: Package, cache: Path = DEFAULT_CACHE, fix: bool = True, scratch: Path | None = None
) -> PackageResult:
    """Check (and fix) one package on a fresh copy of its sources, made under `scratch`
    (default: the cache's work/ folder, which `--deep` reads afterwards)."""
    start = time.perf_counter()
    result = PackageResult(package)
    try:
        pristine = sources(package, cache)
    except Exception as error:  # download/unpack problems are failures of the run, not crashes
        result.failures.append(f"download/unpack: {error}")
        return result
    work = work_tree(scratch or cache / "work", package)
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(pristine, work)
    shutil.copytree(pristine, work.parent / "neighbour")
    result.files = sum(1 for _ in work.rglob("*.py"))
    result.naive = naive_registrations(work)
    if check_phase(result, work) is not None and fix:
        pristine_digest = _digest(pristine)
        fix_phase(result, work, set(result.planned))
        unchanged = {p for p, d in _digest(work).items() if pristine_digest.get(p) == d}
        touched = set(pristine_digest) - unchanged - set(result.changed)
        if touched:
            result.failures.append(f"files differ from the pristine copy: {sorted(touched)}")
    result.seconds = time.perf_counter() - start
    return result


# ---- deep mode -------------------------------------------------------------------------------

# The server object, named by `deep=module:expression`: an attribute, or a call such as
# `create_server(Settings())` evaluated in the module's namespace (no spaces: one token).
_TARGET = """
import importlib
_module = importlib.import_module({module!r})
server = eval({expression!r}, vars(_module))
"""

_SCHEMAS = r"""
import asyncio, json
from _corpus_target import server
async def tools():
    if hasattr(server, "get_tools"):  # standalone fastmcp
        found = await server.get_tools()
        return {name: tool.parameters for name, tool in found.items()}
    listed = await server.list_tools()  # mcp 1.x: inputSchema; mcp 2.x: input_schema
    return {t.name: getattr(t, "input_schema", None) or getattr(t, "inputSchema", None)
            or t.parameters for t in listed}  # fastmcp 3.x: parameters
print(json.dumps({"class": type(server).__module__ + "." + type(server).__qualname__,
                  "tools": asyncio.run(tools())}, sort_keys=True))
"""


def deep_targets(deep: str) -> list[str]:
    """The `deep=` targets: separated by commas outside brackets, so an expression can call."""
    targets, depth, start = [], 0, 0
    for index, char in enumerate(deep):
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 0:
            targets.append(deep[start:index])
            start = index + 1
    return [*targets, deep[start:]]


def _venv(package: Package, cache: Path) -> Path:
    """A throwaway virtualenv with the package and this project installed (kept in the cache,
    installed again when the requirements or this project's pyproject.toml change)."""
    folder = cache / "venvs" / package.key
    folder.parent.mkdir(parents=True, exist_ok=True)
    # One install at a time per virtualenv: another run (or one preparing the virtualenvs ahead,
    # several at a time) may be installing it now; after its install this one finds it complete.
    with open(folder.parent / f"{package.key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _install(package, folder)


def _install(package: Package, folder: Path) -> Path:
    python = folder / "bin" / "python"
    marker = folder / ".complete"
    requirements = [package.requirement, *package.extra, "-e", str(REPO)]
    stamp = json.dumps([requirements, (REPO / "pyproject.toml").read_text(encoding="utf-8")])
    if marker.exists() and marker.read_text(encoding="utf-8") == stamp:
        return python
    # A virtualenv whose creation was stopped has its interpreter and no pip: made again.
    if not any(folder.glob("lib/python*/site-packages/pip")):
        base = _interpreter(package.python) if package.python else sys.executable
        command = [base, "-m", "venv", "--clear", str(folder)]
        subprocess.run(command, check=True, capture_output=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    done = subprocess.run([*pip, *requirements], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"installing {package.requirement} failed:\n{done.stderr[-2000:]}")
    marker.write_text(stamp, encoding="utf-8")
    return python


def _interpreter(version: str) -> str:
    """`python3.12` where it runs, else pyenv's build of that version (as .ci/run looks)."""
    name = f"python{version}"
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [name, *map(str, sorted(root.glob(f"versions/{version}*/bin/{name}")))]
    for candidate in candidates:
        try:
            done = subprocess.run([candidate, "-c", "import venv"], capture_output=True)
        except OSError:
            continue
        if done.returncode == 0:
            return candidate
    return name


def _in_venv(
    python: Path, arguments: list[str], tree: Path, target: str
) -> subprocess.CompletedProcess:
    """Run in the virtualenv with `tree` (the sources before or after the fix) first on the path,
    before the installed copy of the package, and the server importable as `_corpus_target:server`."""
    module, _, expression = target.partition(":")
    with tempfile.TemporaryDirectory() as scratch:
        shim = Path(scratch) / "_corpus_target.py"
        shim.write_text(_TARGET.format(module=module, expression=expression), encoding="utf-8")
        # Servers that build boto3 clients at import find a profile, with no credentials: nothing
        # reaches AWS (no tool is called).
        aws = Path(scratch) / "aws-config"
        aws.write_text("[default]\nregion = us-east-1\n", encoding="utf-8")
        path = os.pathsep.join([str(tree), scratch])
        env = {
            **os.environ,
            "PYTHONPATH": path,
            "PYTHONDONTWRITEBYTECODE": "1",
            "AWS_CONFIG_FILE": str(aws),
            "AWS_SHARED_CREDENTIALS_FILE": str(aws),
            "AWS_EC2_METADATA_DISABLED": "true",
        }
        return subprocess.run(
            [str(python), *arguments],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )


# The trees `--deep` imports the server from: the pristine sources, a copy after the default
# `fix --write` (safe fixes only), and the tree after `fix --unsafe-fixes --write`.
TREES = ("before", "safe", "unsafe")
SAFE_FIX = ["fix", "--write"]


def _safe_tree(result: PackageResult, pristine: Path, work: Path) -> Path | None:
    """A fresh copy of the sources beside `work`, fixed with the default `fix --write`."""
    safe = work.parent / "safe"
    shutil.rmtree(safe, ignore_errors=True)
    shutil.copytree(pristine, safe)
    fixed = codemod([*SAFE_FIX, *_options(result.package), "."], safe)
    # Exit 1 is a finding left (one with no fix, or an unsafe one); the checks below read them.
    if fixed.crashed():
        result.failures.append(f"deep: the default fix --write: {fixed.describe()}")
        return None
    return safe


# What the schema markers add, and nothing else may change: a type list on an untyped node
# and beside a model's `$ref` (TypedSchema, MCP007 and MCP201), the digit text beside an integer
# (AcceptDigitText, MCP003), `items` beside a tuple's `prefixItems` (ArrayItemsSchema, MCP005);
# and what one removes, a `format` OpenAI strict mode refuses (OpenAIStrictFormats, MCP104),
# removed from both sides.
_EVERY_JSON_TYPE = ["string", "number", "boolean", "object", "array", "null"]
_DIGIT_TEXT = {"type": "string", "pattern": "^-?[0-9]+$"}


def _markers_undone(schema):
    """`schema` as it was before the schema markers added to it."""
    if isinstance(schema, list):
        return [_markers_undone(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    undone = {key: _markers_undone(value) for key, value in schema.items()}
    if undone.get("type") == _EVERY_JSON_TYPE or ("$ref" in undone and "type" in undone):
        del undone["type"]
    if isinstance(undone.get("format"), str) and undone["format"] not in OPENAI_STRICT_FORMATS:
        del undone["format"]
    members = undone.get("anyOf")
    if isinstance(members, list) and _DIGIT_TEXT in members:
        members = [member for member in members if member != _DIGIT_TEXT]
        if len(members) == 1 and isinstance(members[0], dict) and len(undone) > 0:
            del undone["anyOf"]
            undone = {**members[0], **undone}
        else:
            undone["anyOf"] = members
    if "prefixItems" in undone:
        undone.pop("items", None)
    return undone


def deep(result: PackageResult, cache: Path) -> None:
    """Install the package; for each `deep=` target the tools' input schemas must be equal before
    and after each fix, and `mcp-codemod probe` runs on the three trees (judged by `_compare`),
    with the received value of every argument of a fixed battery (`_OUTCOMES`) beside it."""
    package = result.package
    if not package.deep:
        return
    try:
        python = _venv(package, cache)
    except Exception as error:
        result.deep = "install failed"
        result.failures.append(f"deep: {error}")
        return
    pristine, work = cache / "src" / package.key, work_tree(cache / "work", package)
    safe = _safe_tree(result, pristine, work)
    if safe is None:
        result.deep = "default fix failed"
        return
    trees = dict(zip(TREES, (pristine, safe, work), strict=True))
    notes = []
    problems: dict[str, list] = {label: [] for label in TREES}
    outcomes: dict[str, dict] = {label: {} for label in TREES}
    probed: set[str] = set()
    for target in deep_targets(package.deep):
        schemas = {}
        for label, tree in trees.items():
            done = _in_venv(python, ["-c", _SCHEMAS], tree, target)
            if done.returncode != 0:
                result.failures.append(
                    f"deep: importing {target} {_WHEN[label]}: {done.stderr[-1500:]}"
                )
                result.deep = "failed"
                return
            schemas[label] = json.loads(done.stdout.strip().splitlines()[-1])
        before = _markers_undone(schemas["before"]["tools"])
        note = f"{target}: {len(before)} tools, {schemas['unsafe']['class']} after the fix"
        equal = True
        for label in ("safe", "unsafe"):
            after = _markers_undone(schemas[label]["tools"])
            if before != after:
                equal = False
                differ = sorted(
                    n for n in set(before) | set(after) if before.get(n) != after.get(n)
                )
                result.failures.append(
                    f"deep: {target}: the {label} fix changed the input schemas of {differ}"
                )
        if equal:
            note += ", schemas equal"
        server_class = schemas["before"]["class"].rpartition(".")[2]
        if not _constructed_in(pristine, server_class):
            # The package cannot fix a server that another package builds for it.
            notes.append(f"{note}, not probed: no `{server_class}(...)` in its sources")
            continue
        found = _probe(result, python, trees, target)
        if found is None:
            return
        received = _outcomes(result, python, trees, target)
        if received is None:
            return
        for label in TREES:
            problems[label] += found[label]
            outcomes[label].update(received[label])
        probed.update(before)
        count = {label: len(_pairs(found[label])) for label in found}
        notes.append(
            f"{note}, probe: {count['before']} mangled parameters before, {count['safe']} after "
            f"the default fix, {count['unsafe']} after the unsafe fix"
        )
    _compare(result, problems, probed, outcomes)
    result.probe = problems
    result.deep = "; ".join(notes)


_WHEN = {"before": "before the fix", "safe": "after the default fix", "unsafe": "after the fix"}


def _constructed_in(root: Path, class_name: str) -> bool:
    call = re.compile(rf"\b{re.escape(class_name)}\s*\(")
    return any(call.search(path.read_text(errors="replace")) for path in root.rglob("*.py"))


def _probe(
    result: PackageResult, python: Path, trees: dict[str, Path], target: str
) -> dict[str, list] | None:
    """The probe's problems (JSON) on each tree; None when it failed."""
    problems = {}
    for label, tree in trees.items():
        command = ["-m", "mcp_codemod", "probe", "--output-format", "json", "_corpus_target:server"]
        done = _in_venv(python, command, tree, target)
        crashed = "Traceback (most recent call last)" in done.stdout + done.stderr
        if crashed or done.returncode not in (0, 1):
            result.failures.append(
                f"deep: probe exited {done.returncode} on {target} {_WHEN[label]}: "
                f"{done.stderr[-1500:]}"
            )
            result.deep = "probe failed"
            return None
        try:
            problems[label] = json.loads(done.stdout or "[]")
        except ValueError:
            result.failures.append(f"deep: probe printed invalid JSON: {done.stdout[:300]}")
            result.deep = "probe failed"
            return None
    return problems


# What every parameter of every tool receives for a fixed battery of arguments (the probe's own
# values, and ordinary ones), after the framework's own handling and the parameter's validator,
# as the probe reproduces them; the tool body is never called. A value is compared as its type
# and repr (addresses blanked), a refusal as "rejected". Printed as JSON:
# {"tool\x00parameter": {"argument as JSON": outcome}}.
_OUTCOMES = r"""
import json, re
from _corpus_target import server

def inspect_server():
    from mcp_codemod.probe.argument_handling import inspect_server as found
    return found

BATTERY = ["null", "[1]", '{"a": 1}', "abc", "5", "", "true", 5.0, 5, 2.5, True, None, [1], ["a"],
           {"a": 1}, "[]", "{}", '["a"]']
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

def outcome(parameter, sent):
    try:
        received = parameter.validate(parameter.prepare(sent))
    except Exception:
        return "rejected"
    return type(received).__qualname__ + ":" + ADDRESS.sub("", repr(received))

framework, tools, parameters_of = inspect_server()(server)
found = {}
for name, tool in tools:
    try:
        parameters = parameters_of(tool)
    except Exception:
        continue
    for parameter in parameters:
        found[name + "\x00" + parameter.key] = {
            json.dumps(sent): outcome(parameter, sent) for sent in BATTERY
        }
print(json.dumps(found, sort_keys=True))
"""


def _outcomes(
    result: PackageResult, python: Path, trees: dict[str, Path], target: str
) -> dict[str, dict] | None:
    """`_OUTCOMES` on each tree, keyed by (tool, parameter); None when it failed."""
    received = {}
    for label, tree in trees.items():
        done = _in_venv(python, ["-c", _OUTCOMES], tree, target)
        try:
            found = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            result.failures.append(
                f"deep: the received values of {target} {_WHEN[label]}: {done.stderr[-1500:]}"
            )
            result.deep = "failed"
            return None
        received[label] = {tuple(key.split("\x00", 1)): value for key, value in found.items()}
    return received


def _pairs(problems: list[dict]) -> set[tuple[str, str]]:
    """The (tool, parameter) pairs whose arguments do not arrive as sent (not the schema's
    arrays without `items`: a client's complaint, not a mangled argument)."""
    return {(p["tool"], p["parameter"]) for p in problems if p.get("outcome") != "schema"}


def _names(pairs) -> str:
    return ", ".join(f"{tool}({parameter})" for tool, parameter in sorted(pairs))


# The rules whose findings the probe can confirm: it sends JSON text and whole numbers as floats.
PROBED_CODES = {"MCP001", "MCP002", "MCP006"}


def _confirmable(finding: dict) -> bool:
    """Whether the probe's battery sends what a finding is about: MCP001's and MCP002's text and
    whole floats, and of MCP006 (standalone fastmcp) an array or object sent as its JSON text,
    which its message names; not null sent as the text "null", a client's form the battery does
    not send (`probe --clients` does)."""
    if finding["code"] == "MCP006":
        return "'[1, 2]'" in finding["message"]
    return finding["code"] in PROBED_CODES


def _changed(outcomes: dict[str, dict], label: str) -> set[tuple[str, str]]:
    """The parameters that some argument of the battery reached as sent before the fix `label`
    and reaches differently after it. An argument the framework changed before (the text
    "null" arriving as None, 5.0 refused) may change: that is the fix; one that arrived as sent
    may not (issue #23: a safe fix changes only what the SDK mangled)."""
    before, after = outcomes["before"], outcomes[label]
    changed = set()
    for pair in before.keys() & after.keys():
        for sent, outcome in before[pair].items():
            value = json.loads(sent)
            if (
                outcome == f"{type(value).__qualname__}:{value!r}"
                and after[pair].get(sent) != outcome
            ):
                changed.add(pair)
    return changed


def _compare(
    result: PackageResult, problems: dict[str, list], tools: set[str], outcomes: dict[str, dict]
) -> None:
    """Probe against check, by (tool, parameter), on the probed servers' tools. Three invariants:
    after the unsafe fix nothing is mangled (whatever check said about it: an announced gap is
    still a gap); before the fix check reports exactly what the probe finds mangled; and the safe
    fix changes only mangled behaviour (what a parameter receives changes only if the probe found
    it mangled before). What is left after the default fix is counted, not judged."""
    reported = {
        (f["tool"], f["parameter"])
        for f in result.findings
        if _confirmable(f) and f["tool"] in tools
    }
    fixable = {(f["tool"], f["parameter"]) for f in result.findings if f.get("fixable")}
    mangled = _pairs(problems["before"])
    left = _pairs(problems["unsafe"])
    result.mangled, result.reported = sorted(mangled), sorted(reported)
    result.left_safe, result.left_unsafe = sorted(_pairs(problems["safe"])), sorted(left)
    result.safe_violations = sorted(_changed(outcomes, "safe"))
    result.unsafe_changed = sorted(_changed(outcomes, "unsafe"))
    if left:
        kinds = {
            "reported as fixable": left & reported & fixable,
            "reported as not fixable": (left & reported) - fixable,
            "never reported": left - reported,
        }
        parts = [f"{len(pairs)} {kind}: {_names(pairs)}" for kind, pairs in kinds.items() if pairs]
        if kinds["never reported"] and result.unchecked:
            parts.append(f"(check announced {len(result.unchecked)} unchecked tools)")
        result.failures.append(
            f"deep: the probe still finds {len(left)} parameters mangled after the fix; "
            + "; ".join(parts)
        )
    if result.safe_violations:
        result.failures.append(
            f"deep: the default fix changed what {len(result.safe_violations)} parameters receive "
            f"for an argument that arrived as sent before: {_names(result.safe_violations)}"
        )
    result.probe_only = sorted(mangled - reported)
    result.check_only = sorted(reported - mangled)
    # Another server of the package, or a tool reported under another name than it is registered
    # with: the details show which, so a disagreement can be told from a naming difference.
    result.elsewhere = sorted(
        {f["tool"] for f in result.findings if _confirmable(f)} - tools - {None}
    )
    if result.probe_only or result.check_only:
        result.failures.append(
            f"deep: check and the probe disagree before the fix on {len(result.probe_only)} "
            f"mangled parameters check does not report and {len(result.check_only)} reported ones "
            "the probe finds unharmed (see the details)"
        )


def recall_precision(results: list[PackageResult]) -> tuple[str, str]:
    """check against the probe before the fix, over the packages: reported and mangled ÷
    mangled, and reported and mangled ÷ reported (pairs counted per package)."""
    hits = sum(len(set(r.reported) & set(r.mangled)) for r in results)
    mangled = sum(len(r.mangled) for r in results)
    reported = sum(len(r.reported) for r in results)
    return _ratio(hits, mangled), _ratio(hits, reported)


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"


# ---- reporting -------------------------------------------------------------------------------


def table(results: list[PackageResult], markdown: bool = False) -> str:
    # Every rule that reported something (MCP005, MCP006... appear once they exist).
    codes = sorted({"MCP001", "MCP002", "MCP003"}.union(*(r.counts() for r in results)))
    header = [
        "package",
        "files",
        "tools",
        "unchk.",
        "missed",
        "naive",
        *codes,
        "fixable",
        "E902",
        "changed",
        "fix",
        "disagree",
        "mangled b/s/u",
        "recall",
        "prec.",
        "safe viol.",
        "failures",
        "s",
    ]
    rows = []
    for r in results:
        counts = r.counts()
        naive = (
            r.naive.get("decorated", 0) + r.naive.get("add_tool", 0) + r.naive.get("tool_call", 0)
        )
        naive_text = str(naive) + (f"+{r.naive['lowlevel']}ll" if r.naive.get("lowlevel") else "")
        rows.append(
            [
                r.package.requirement,
                str(r.files),
                "?" if r.tools is None else str(r.tools),
                str(len(r.unchecked)),
                str(len(r.missed)),
                naive_text,
                *(str(counts.get(code, 0)) for code in codes),
                str(r.fixable),
                str(len(r.unparsable)),
                str(len(r.changed)),
                r.fix,
                f"{len(r.probe_only)}/{len(r.check_only)}" if r.probe else "",
                _left(r) if r.probe else "",
                *(recall_precision([r]) if r.probe else ("", "")),
                str(len(r.safe_violations)) if r.probe else "",
                str(len(r.failures)),
                f"{r.seconds:.1f}",
            ]
        )
    total = Counter()
    for r in results:
        total.update(r.counts())
    footer = [
        "TOTAL",
        str(sum(r.files for r in results)),
        str(sum(r.tools or 0 for r in results)),
        str(sum(len(r.unchecked) for r in results)),
        str(sum(len(r.missed) for r in results)),
        "",
        *(str(total.get(code, 0)) for code in codes),
        str(sum(r.fixable for r in results)),
        str(sum(len(r.unparsable) for r in results)),
        str(sum(len(r.changed) for r in results)),
        "",
        f"{sum(len(r.probe_only) for r in results)}/{sum(len(r.check_only) for r in results)}",
        _left(*results),
        *recall_precision(results),
        str(sum(len(r.safe_violations) for r in results)),
        str(sum(len(r.failures) for r in results)),
        f"{sum(r.seconds for r in results):.1f}",
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in [*rows, footer]]
        return "\n".join(lines) + "\n"
    widths = [max(len(row[i]) for row in [header, *rows, footer]) for i in range(len(header))]

    def line(row):
        return "  ".join(
            cell.ljust(width) for cell, width in zip(row, widths, strict=True)
        ).rstrip()

    rule = "-" * len(line(header))
    return "\n".join([line(header), rule, *map(line, rows), rule, line(footer)]) + "\n"


def _left(*results: PackageResult) -> str:
    """Mangled parameters before any fix / after the default fix / after the unsafe fix."""
    columns = (
        sum(len(r.mangled) for r in results),
        sum(len(r.left_safe) for r in results),
        sum(len(r.left_unsafe) for r in results),
    )
    return "/".join(map(str, columns))


def deep_line(results: list[PackageResult]) -> str:
    """The deep totals in a sentence (empty without --deep)."""
    probed = [r for r in results if r.probe]
    if not probed:
        return ""
    mangled, safe, unsafe = _left(*probed).split("/")
    recall, precision = recall_precision(probed)
    violations = sum(len(r.safe_violations) for r in probed)
    changed = sum(len(r.unsafe_changed) for r in probed)
    return (
        f"Deep, {len(probed)} probed packages: {mangled} mangled parameters before any fix, "
        f"{safe} left after the default fix, {unsafe} after the unsafe fix; check's recall "
        f"{recall}, precision {precision}; the default fix changed what {violations} unharmed "
        f"parameters receive (must be 0), the unsafe fix {changed}."
    )


def _oneline(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= 90 else text[:87] + "..."


def details(results: list[PackageResult]) -> str:
    lines = []
    for r in results:
        if not (r.failures or r.unchecked or r.unparsable or r.findings or r.deep):
            continue
        lines.append(f"## {r.package.requirement}")
        for failure in r.failures:
            lines.append(f"- FAILURE: {failure}")
        for path in r.unparsable:
            lines.append(f"- unparsable: {path}")
        for f in r.findings:
            mark = " [*]" if f.get("fixable") else ""
            lines.append(
                f"- {f['path']}:{f['line']} {f['code']}{mark} {_subject(f)} ({f['framework']})"
            )
        reasons = Counter(
            (kind, re.sub(r"`[^`]*`", "`…`", reason)) for _p, _l, reason, kind in r.unchecked
        )
        for (kind, reason), count in reasons.most_common():
            lines.append(f"- unchecked ×{count} ({kind}): {reason}")
        if r.deep:
            lines.append(f"- deep: {r.deep}")
        if r.probe_only:
            lines.append(f"- mangled per the probe, not reported by check: {_names(r.probe_only)}")
        if r.elsewhere:
            lines.append(
                f"- reported on tools no probed server has ({len(r.elsewhere)}): "
                + ", ".join(r.elsewhere)
            )
        if r.check_only:
            lines.append(f"- reported by check, unharmed per the probe: {_names(r.check_only)}")
        if r.left_safe:
            lines.append(f"- still mangled after the default fix: {_names(r.left_safe)}")
        if r.unsafe_changed:
            lines.append(
                "- the unsafe fix changed what these unharmed parameters receive: "
                + _names(r.unsafe_changed)
            )
        lines.append("")
    return "\n".join(lines)


BEGIN = "<!-- corpus/run.py: begin generated -->"
END = "<!-- corpus/run.py: end generated -->"


def markers(section: str | None) -> tuple[str, str]:
    """The markers around a generated section: the default one, or a named one (`--section`)."""
    if not section:
        return BEGIN, END
    return BEGIN.replace(" -->", f" {section} -->"), END.replace(" -->", f" {section} -->")


def share_line(results: list[PackageResult]) -> str:
    missed, tools = missed_share(results)
    share = missed / tools if tools else 0.0
    verdict = "ok" if share < MISSED_TARGET else "FAILED"
    return (
        f"Missed registrations (unchecked, outside generated signatures): {missed} of {tools} "
        f"({share:.1%}; target < {MISSED_TARGET:.0%}): {verdict}."
    )


def write_markdown(
    path: Path,
    results: list[PackageResult],
    deep: bool,
    elapsed: float,
    section: str | None = None,
    command: str | None = None,
) -> None:
    """The table and details, in place of the generated section of `path` (RESULTS.md keeps its
    hand-written analysis around it)."""
    import platform

    from mcp_codemod import __version__

    failed = sum(bool(r.failures) for r in results)
    header = (
        f"`{command or 'python corpus/run.py' + (' --deep' if deep else '')}`: "
        f"{len(results)} packages, "
        f"{failed} with failures, {elapsed:.0f} s (mcp-codemod {__version__}, Python "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}). {share_line(results)}\n"
    )
    if deep_line(results):
        header += f"\n{deep_line(results)}\n"
    begin, end = markers(section)
    generated = f"{begin}\n{header}\n{table(results, markdown=True)}\n{details(results)}{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if begin in text and end in text:
        before, _, rest = text.partition(begin)
        _, _, after = rest.partition(end)
        text = before + generated + after
    else:  # a new section goes after what the file holds
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + generated + "\n"
    path.write_text(text, encoding="utf-8")


def download_all(packages: list[Package], cache: Path, jobs: int) -> int:
    def fetch(package: Package) -> str | None:
        try:
            sources(package, cache)
        except Exception as error:
            return f"{package.requirement}: {_oneline(str(error))}"
        return None

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        errors = [error for error in pool.map(fetch, packages) if error]
    for error in errors:
        print(f"error: {error}")
    print(f"{len(packages) - len(errors)} of {len(packages)} packages in {cache / 'src'}")
    return 1 if errors else 0


def progress(result: PackageResult, phase: str, start: float) -> None:
    """One line on standard error as each package finishes a phase: the table prints only at the
    end, and a long run that is stopped would otherwise leave nothing of what it measured."""
    line = (
        f"[{time.perf_counter() - start:7.0f}s] {phase} {result.package.requirement}: "
        f"tools {result.tools}, unchecked {len(result.unchecked)}, fix {result.fix}"
    )
    if phase == "deep":
        line += f", mangled {_left(result)}, deep: {_oneline(result.deep)}"
    for failure in result.failures:
        line += "\n    FAILED: " + failure.replace("\n", "\n      ")
    print(line, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="package names to run (default: all)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--packages", type=Path, default=PACKAGES)
    parser.add_argument("--deep", action="store_true", help="also the import/schema/probe checks")
    parser.add_argument("--no-fix", action="store_true", help="the check phase only")
    parser.add_argument(
        "--download-only",
        action="store_true",
        help="download and unpack the packages into the cache, nothing else (CI's setup step)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--markdown",
        type=Path,
        help="write the table and details here too (between the BEGIN/END markers if it has them)",
    )
    parser.add_argument(
        "--section",
        help="with --markdown: the named generated section to replace (`begin generated NAME`), "
        "so that a run of some packages (--only) leaves the whole corpus's table in place",
    )
    parser.add_argument(
        "--deep-first",
        nargs="*",
        metavar="NAME",
        help="with --deep: these packages' deep phase first, in this order (the table keeps its own)",
    )
    parser.add_argument(
        "--install-jobs",
        type=int,
        default=4,
        help="with --deep: virtualenvs installed at a time, from the start of the run",
    )
    parser.add_argument("--details", action="store_true", help="print findings and unchecked")
    # What `analysis` runs in a package's copy (not for people: it prints JSON).
    parser.add_argument("--analysis-here", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--framework", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    packages = load_packages(args.packages)
    if args.only:
        wanted = {_normalize(name) for name in args.only}
        packages = [p for p in packages if _normalize(p.name) in wanted]
        missing = wanted - {_normalize(p.name) for p in packages}
        if missing:
            parser.error(f"not in {args.packages}: {sorted(missing)}")
    if args.analysis_here:
        print(json.dumps(analysis_here(args.framework)))
        return 0
    if args.download_only:
        return download_all(packages, args.cache, args.jobs)
    start = time.perf_counter()
    first = {_normalize(name): rank for rank, name in enumerate(args.deep_first or ())}

    def priority(package: Package) -> int:
        return first.get(_normalize(package.name), len(first))

    # The virtualenvs install while the packages are checked: pip mostly waits on the network and
    # the disk. A failed install is tried again, and reported, by the deep phase.
    installer = ThreadPoolExecutor(max(1, args.install_jobs)) if args.deep else None
    if installer is not None:
        for package in sorted((p for p in packages if p.deep), key=priority):
            installer.submit(_venv, package, args.cache)

    def check_one(package: Package) -> PackageResult:
        result = run_package(package, args.cache, not args.no_fix)
        progress(result, "checked", start)
        return result

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(check_one, packages))
    if args.deep:  # each package in its own virtualenv and work folder: `--jobs` at a time

        def deep_one(result: PackageResult) -> None:
            started = time.perf_counter()
            deep(result, args.cache)
            result.seconds += time.perf_counter() - started
            progress(result, "deep", start)

        chosen = [r for r in results if r.package.deep and r.fix in ("ok", "failed")]
        # A run that may be stopped before its end does the packages that matter most first.
        chosen.sort(key=lambda r: priority(r.package))
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            list(pool.map(deep_one, chosen))
        installer.shutdown(cancel_futures=True)
    elapsed = time.perf_counter() - start
    print(table(results))
    if args.details:
        print(details(results))
    failed = [r for r in results if r.failures]
    for r in failed:
        print(f"FAILED {r.package.requirement}:")
        for failure in r.failures:
            print(f"  - {failure}")
    missed, tools = missed_share(results)
    print(share_line(results))
    if deep_line(results):
        print(deep_line(results))
    print(f"{len(results)} packages, {len(failed)} with failures, {elapsed:.1f}s")
    if args.markdown:
        command = "python corpus/run.py " + " ".join(argv if argv is not None else sys.argv[1:])
        write_markdown(args.markdown, results, args.deep, elapsed, args.section, command.strip())
    return 1 if failed or (tools and missed / tools >= MISSED_TARGET) else 0


if __name__ == "__main__":
    sys.exit(main())
