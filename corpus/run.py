"""The ecosystem check: run `mcp-codemod check` and `fix` over real MCP servers, with invariants.

    python corpus/run.py [--only NAME ...] [--deep] [--details] [--markdown corpus/RESULTS.md]

For every distribution pinned in corpus/packages.txt: download it (`pip download --no-deps`),
unpack it to a cache folder outside the repository (default ~/.cache/mcp-codemod-corpus, or
$MCP_CODEMOD_CORPUS_CACHE), copy it, run `check` and `fix --write` on the copy, and verify:

- no command crashes (exit code 2, a traceback);
- every rewritten file still parses, and only `.py` files with fixes planned for them change;
- a second `fix --write` changes nothing, and `fix` without `--write` then has nothing to show;
- `check` afterwards reports no fixable finding, and the same number of tools;
- files without findings are byte-identical.

It prints a table per package and exits 1 when any invariant fails. The fix phase runs when
`mcp-codemod fix --help` works, and is reported as skipped otherwise.

`--deep` additionally installs the packages marked `deep=` into throwaway virtualenvs (kept in the
cache), imports each named server from the sources before and after the fix, requires every
tool's input schema to be unchanged, and runs `mcp-codemod probe` (where that command exists) on
both: after the fix no argument may arrive mangled except on parameters `check` reports as not
fixable. Where probe and check disagree before the fix, the details list it (analyzer leads).

Importable: `tests/test_corpus_subset.py` calls `load_packages` and `run_package`.
"""

from __future__ import annotations

import argparse
import ast
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

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PACKAGES = HERE / "packages.txt"
DEFAULT_CACHE = Path(
    os.environ.get("MCP_CODEMOD_CORPUS_CACHE", Path.home() / ".cache" / "mcp-codemod-corpus")
)
CODEMOD = [sys.executable, "-m", "mcp_codemod"]
SELECT = "ALL"  # every rule, so MCP003 is counted too; fix only touches the fixable ones
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


_FIX_AVAILABLE: bool | None = None


def fix_available() -> bool:
    global _FIX_AVAILABLE
    if _FIX_AVAILABLE is None:
        _FIX_AVAILABLE = codemod(["fix", "--help"], REPO).returncode == 0
    return _FIX_AVAILABLE


def probe_available() -> bool:
    return codemod(["probe", "--help"], REPO).returncode == 0


# The analysis as the CLI runs it, for what the JSON output does not carry: how many tool
# registrations were found, which were not checked, and which files the fixes will touch.
_INTROSPECT = r"""
import json, sys
from mcp_codemod.api import Options, check_paths
framework = sys.argv[1] or None
options = Options(select=("ALL",), cache=False)
settings, result = check_paths((".",), options)
if framework is not None:
    settings, stated = check_paths((".",), Options(select=("ALL",), cache=False, framework=framework))
else:
    stated = result
planned = set()
for finding in stated.findings:
    if finding.fix is not None:
        planned.update(edit.path for edit in finding.fix.markers + finding.fix.swaps)
print(json.dumps({
    "tools": result.tools,
    "unresolved": [[u.path, u.line, u.reason] for u in result.unresolved],
    "unresolved_stated": [[u.path, u.line, u.reason] for u in stated.unresolved],
    "planned": sorted(planned),
}))
"""


def introspect(cwd: Path, framework: str | None = None) -> dict | None:
    """Tool count and unresolved tools as `check` finds them without `--framework`, and the files
    the fix will touch (with the package's `framework`). None if the internals moved."""
    done = subprocess.run(
        [sys.executable, "-c", _INTROSPECT, framework or ""],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    if done.returncode != 0:
        return None
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


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
    unresolved: list[list] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)  # files the fixes will rewrite
    naive: dict[str, int] = field(default_factory=dict)
    findings: list[dict] = field(default_factory=list)
    unparsable: list[str] = field(default_factory=list)  # E902 paths
    changed: list[str] = field(default_factory=list)
    fix: str = "not run"  # "ok", "skipped: fix not available", "failed"
    deep: str = ""
    probe: dict = field(default_factory=dict)  # --deep: the probe's problems before/after
    probe_only: list = field(default_factory=list)  # mangled per the probe, not reported by check
    check_only: list = field(default_factory=list)  # reported by check, not mangled per the probe
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> Counter:
        return Counter(f["code"] for f in self.findings)

    @property
    def fixable(self) -> int:
        return sum(bool(f.get("fixable")) for f in self.findings)


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
    findings = [item for item in items if item["code"] != "E902"]
    errors = [item["path"] for item in items if item["code"] == "E902"]
    return findings, errors


def _parses(path: Path) -> str | None:
    try:
        ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError) as error:
        return str(error)
    return None


def _relative(path: str) -> str:
    return Path(path).as_posix().removeprefix("./")


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
    info = introspect(work, result.package.framework)
    if info is not None:
        result.tools = info["tools"]
        result.unresolved = info["unresolved"]
        result.planned = info["planned"]
    return run


def fix_phase(result: PackageResult, work: Path, planned: set[str]) -> None:
    before = _digest(work)
    fixed = codemod(["fix", "--write", *_options(result.package), "."], work)
    if fixed.crashed() or fixed.returncode != 0:
        result.fix = "failed"
        result.failures.append(f"fix --write: {fixed.describe()}")
        return
    after = _digest(work)
    result.changed = sorted(path for path in after if before.get(path) != after[path])
    if set(before) != set(after):
        result.failures.append(
            f"fix --write added or removed files: {sorted(set(before) ^ set(after))}"
        )
    with_findings = {_relative(f["path"]) for f in result.findings if f.get("fixable")}
    allowed = with_findings | {_relative(path) for path in planned}
    for path in result.changed:
        if not path.endswith(".py"):
            result.failures.append(f"fix rewrote a non-Python file: {path}")
        elif path not in allowed:
            result.failures.append(f"fix rewrote {path}, which has no fixable finding")
        error = _parses(work / path)
        if error is not None:
            result.failures.append(f"{path} no longer parses after the fix: {error}")
    missing = sorted(with_findings - set(result.changed))
    if missing:
        result.failures.append(f"fixable findings but file unchanged: {missing}")

    again = codemod(["fix", "--write", *_options(result.package), "."], work)
    if again.crashed() or again.returncode != 0:
        result.failures.append(f"second fix --write: {again.describe()}")
    elif _digest(work) != after:
        result.failures.append("a second fix --write changed files again (not idempotent)")
    dry = codemod(["fix", *_options(result.package), "."], work)
    if dry.crashed() or dry.returncode != 0 or re.search(r"^(@@|\+\+\+ )", dry.stdout, re.M):
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
                f"`{finding['parameter']}: {finding['annotation']}`"
            )
        if sorted(unparsable) != sorted(result.unparsable):
            result.failures.append(f"unparsable files changed: {result.unparsable} -> {unparsable}")
        info = introspect(work, result.package.framework)
        if info is not None and len(info["unresolved"]) != len(result.unresolved):
            result.failures.append(
                f"unresolved tools: {len(result.unresolved)} before the fix, "
                f"{len(info['unresolved'])} after"
            )
        if info is not None and result.tools is not None and info["tools"] != result.tools:
            result.failures.append(
                f"tools found: {result.tools} before the fix, {info['tools']} after"
            )
    result.fix = "failed" if result.failures else "ok"


def run_package(
    package: Package,
    cache: Path = DEFAULT_CACHE,
    fix: bool | None = None,
    scratch: Path | None = None,
) -> PackageResult:
    """Check (and fix, when available) one package on a fresh copy of its sources, made under
    `scratch` (default: the cache's work/ folder, which `--deep` reads afterwards)."""
    start = time.perf_counter()
    result = PackageResult(package)
    try:
        pristine = sources(package, cache)
    except Exception as error:  # download/unpack problems are failures of the run, not crashes
        result.failures.append(f"download/unpack: {error}")
        return result
    work = (scratch or cache / "work") / package.key
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(pristine, work)
    result.files = sum(1 for _ in work.rglob("*.py"))
    result.naive = naive_registrations(work)
    if check_phase(result, work) is not None:
        if fix is None:
            fix = fix_available()
        if not fix:
            result.fix = "skipped: fix not available"
        else:
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
    return {t.name: getattr(t, "input_schema", None) or t.inputSchema for t in listed}
print(json.dumps({"class": type(server).__module__ + "." + type(server).__qualname__,
                  "tools": asyncio.run(tools())}, sort_keys=True))
"""


def _venv(package: Package, cache: Path) -> Path:
    """A throwaway virtualenv with the package and this project installed (kept in the cache)."""
    folder = cache / "venvs" / package.key
    python = folder / "bin" / "python"
    marker = folder / ".complete"
    if marker.exists():
        return python
    shutil.rmtree(folder, ignore_errors=True)
    base = f"python{package.python}" if package.python else sys.executable
    subprocess.run([base, "-m", "venv", str(folder)], check=True, capture_output=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    done = subprocess.run(
        [*pip, package.requirement, *package.extra, "-e", str(REPO)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"installing {package.requirement} failed:\n{done.stderr[-2000:]}")
    marker.touch()
    return python


def _in_venv(
    python: Path, arguments: list[str], tree: Path, target: str
) -> subprocess.CompletedProcess:
    """Run in the virtualenv with `tree` (the sources before or after the fix) first on the path,
    before the installed copy of the package, and the server importable as `_corpus_target:server`."""
    module, _, expression = target.partition(":")
    with tempfile.TemporaryDirectory() as scratch:
        shim = Path(scratch) / "_corpus_target.py"
        shim.write_text(_TARGET.format(module=module, expression=expression), encoding="utf-8")
        path = os.pathsep.join([str(tree), scratch])
        env = {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
        return subprocess.run(
            [str(python), *arguments],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )


def deep(result: PackageResult, cache: Path) -> None:
    """Install the package, then for each `deep=` target: the tools' input schemas before and after
    the fix must be equal, and `mcp-codemod probe` must find no mangled argument after the fix
    except on parameters that `check` reports as not fixable."""
    package = result.package
    if not package.deep:
        return
    try:
        python = _venv(package, cache)
    except Exception as error:
        result.deep = "install failed"
        result.failures.append(f"deep: {error}")
        return
    pristine, work = cache / "src" / package.key, cache / "work" / package.key
    probe = subprocess.run(
        [str(python), "-m", "mcp_codemod", "probe", "--help"], capture_output=True, text=True
    )
    notes = []
    problems: dict[str, list] = {"before": [], "after": []}
    for target in package.deep.split(","):
        schemas = {}
        for label, tree in (("before", pristine), ("after", work)):
            done = _in_venv(python, ["-c", _SCHEMAS], tree, target)
            if done.returncode != 0:
                result.failures.append(
                    f"deep: importing {target} {label} the fix: {done.stderr[-1500:]}"
                )
                result.deep = "failed"
                return
            schemas[label] = json.loads(done.stdout.strip().splitlines()[-1])
        before, after = schemas["before"]["tools"], schemas["after"]["tools"]
        note = f"{target}: {len(before)} tools, {schemas['after']['class']} after the fix"
        if before != after:
            differ = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
            result.failures.append(f"deep: {target}: the fix changed the input schemas of {differ}")
        else:
            note += ", schemas equal"
        if probe.returncode == 0:
            found = _probe(result, python, pristine, work, target)
            if found is None:
                return
            for label in problems:
                problems[label] += found[label]
            count = {
                label: len({(p["tool"], p["parameter"]) for p in found[label]}) for label in found
            }
            note += f", probe: {count['before']} mangled parameters before, {count['after']} after"
        notes.append(note)
    if probe.returncode != 0:
        notes.append("probe: skipped (not available)")
    else:
        _compare(result, problems)
    result.probe = problems
    result.deep = "; ".join(notes)


def _probe(
    result: PackageResult, python: Path, pristine: Path, work: Path, target: str
) -> dict[str, list] | None:
    """The probe's problems (JSON) before and after the fix; None when it failed."""
    problems = {}
    for label, tree in (("before", pristine), ("after", work)):
        command = ["-m", "mcp_codemod", "probe", "--output-format", "json", "_corpus_target:server"]
        done = _in_venv(python, command, tree, target)
        crashed = "Traceback (most recent call last)" in done.stdout + done.stderr
        if crashed or done.returncode not in (0, 1):
            result.failures.append(
                f"deep: probe exited {done.returncode} on {target} {label} the fix: "
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


def _names(pairs) -> str:
    return ", ".join(f"{tool}({parameter})" for tool, parameter in sorted(pairs))


def _compare(result: PackageResult, problems: dict[str, list]) -> None:
    """Probe against check, by (tool, parameter): what the fix left mangled is a failure; where
    the two disagree before the fix is a lead for an analyzer bug."""
    reported = {(f["tool"], f["parameter"]) for f in result.findings if f["code"] != "MCP003"}
    unfixable = {(f["tool"], f["parameter"]) for f in result.findings if not f.get("fixable")}
    mangled = {(p["tool"], p["parameter"]) for p in problems["before"]}
    left = {(p["tool"], p["parameter"]) for p in problems["after"]} - unfixable
    fixed_but_mangled = left & reported
    if fixed_but_mangled:
        result.failures.append(
            "deep: check reports these as fixable and the fix ran, but the probe still finds "
            f"them mangled: {_names(fixed_but_mangled)}"
        )
    if left - reported and not result.unresolved:
        # A silent false negative. Where check said it could not resolve some tools, it did not
        # claim to cover them: those are listed in the details (`probe_only`), not failures.
        result.failures.append(
            "deep: mangled before and after the fix, never reported by check (false negatives): "
            f"{_names(left - reported)}"
        )
    result.probe_only = sorted(mangled - reported)
    result.check_only = sorted(reported - mangled)


# ---- reporting -------------------------------------------------------------------------------

CODES = ("MCP001", "MCP002", "MCP003")


def table(results: list[PackageResult], markdown: bool = False) -> str:
    header = [
        "package",
        "files",
        "tools",
        "unres.",
        "naive",
        *CODES,
        "fixable",
        "E902",
        "changed",
        "fix",
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
                str(len(r.unresolved)),
                naive_text,
                *(str(counts.get(code, 0)) for code in CODES),
                str(r.fixable),
                str(len(r.unparsable)),
                str(len(r.changed)),
                r.fix,
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
        str(sum(len(r.unresolved) for r in results)),
        "",
        *(str(total.get(code, 0)) for code in CODES),
        str(sum(r.fixable for r in results)),
        str(sum(len(r.unparsable) for r in results)),
        str(sum(len(r.changed) for r in results)),
        "",
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


def _oneline(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= 90 else text[:87] + "..."


def details(results: list[PackageResult]) -> str:
    lines = []
    for r in results:
        if not (r.failures or r.unresolved or r.unparsable or r.findings or r.deep):
            continue
        lines.append(f"## {r.package.requirement}")
        for failure in r.failures:
            lines.append(f"- FAILURE: {failure}")
        for path in r.unparsable:
            lines.append(f"- unparsable: {path}")
        for f in r.findings:
            mark = " [*]" if f.get("fixable") else ""
            lines.append(
                f"- {f['path']}:{f['line']} {f['code']}{mark} `{f['tool']}`: "
                f"`{f['parameter']}: {_oneline(f['annotation'])}` ({f['framework']})"
            )
        reasons = Counter(re.sub(r"`[^`]*`", "`…`", reason) for _p, _l, reason in r.unresolved)
        for reason, count in reasons.most_common():
            lines.append(f"- unresolved ×{count}: {reason}")
        if r.deep:
            lines.append(f"- deep: {r.deep}")
        if r.probe_only:
            lines.append(f"- mangled per the probe, not reported by check: {_names(r.probe_only)}")
        if r.check_only:
            lines.append(f"- reported by check, unharmed per the probe: {_names(r.check_only)}")
        lines.append("")
    return "\n".join(lines)


BEGIN = "<!-- corpus/run.py: begin generated -->"
END = "<!-- corpus/run.py: end generated -->"


def write_markdown(path: Path, results: list[PackageResult], deep: bool, elapsed: float) -> None:
    """The table and details, in place of the generated section of `path` (RESULTS.md keeps its
    hand-written analysis around it)."""
    import platform

    from mcp_codemod import __version__

    failed = sum(bool(r.failures) for r in results)
    header = (
        f"`python corpus/run.py{' --deep' if deep else ''}`: {len(results)} packages, "
        f"{failed} with failures, {elapsed:.0f} s (mcp-codemod {__version__}, Python "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}; fix "
        f"{'run' if any(r.fix == 'ok' or r.fix == 'failed' for r in results) else 'skipped'}).\n"
    )
    generated = f"{BEGIN}\n{header}\n{table(results, markdown=True)}\n{details(results)}{END}"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in text and END in text:
        before, _, rest = text.partition(BEGIN)
        _, _, after = rest.partition(END)
        text = before + generated + after
    else:
        text = generated + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="package names to run (default: all)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--packages", type=Path, default=PACKAGES)
    parser.add_argument("--deep", action="store_true", help="also the import/schema/probe checks")
    parser.add_argument("--no-fix", action="store_true", help="the check phase only")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--markdown",
        type=Path,
        help="write the table and details here too (between the BEGIN/END markers if it has them)",
    )
    parser.add_argument("--details", action="store_true", help="print findings and unresolved")
    args = parser.parse_args(argv)

    packages = load_packages(args.packages)
    if args.only:
        wanted = {_normalize(name) for name in args.only}
        packages = [p for p in packages if _normalize(p.name) in wanted]
        missing = wanted - {_normalize(p.name) for p in packages}
        if missing:
            parser.error(f"not in {args.packages}: {sorted(missing)}")
    fix = False if args.no_fix else fix_available()
    if not fix and not args.no_fix:
        print("fix phase: skipped: fix not available (`mcp-codemod fix --help` failed)")
    start = time.perf_counter()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda p: run_package(p, args.cache, fix), packages))
    if args.deep:
        for result in results:
            if result.package.deep and not result.failures:
                started = time.perf_counter()
                deep(result, args.cache)
                result.seconds += time.perf_counter() - started
    elapsed = time.perf_counter() - start
    print(table(results))
    if args.details:
        print(details(results))
    failed = [r for r in results if r.failures]
    for r in failed:
        print(f"FAILED {r.package.requirement}:")
        for failure in r.failures:
            print(f"  - {failure}")
    print(f"{len(results)} packages, {len(failed)} with failures, {elapsed:.1f}s")
    if args.markdown:
        write_markdown(args.markdown, results, args.deep, elapsed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
