"""Measure `mcp-codemod check` and `fix` against reading the files and against ruff.

    python bench/run.py [--cache DIR] [--repeat N] [--results FILE]

Builds a corpus from pinned registry distributions (`pip download --no-deps`, wheels unzipped)
in a cache folder outside the repository (default ~/.cache/mcp-codemod-bench, or
$MCP_CODEMOD_BENCH_CACHE), then measures, as medians of N runs, in one go:

- Python start-up (`python -c pass`) and `mcp-codemod --version`;
- reading every file (the floor) and `ruff check --no-cache --select E,F --exit-zero` (the
  reference), over the same trees: the mixed corpus, its MCP servers alone, and the MCP-heavy
  tree (the ecosystem corpus's server distributions);
- `mcp-codemod check --no-cache` with 1 job and with every core, `check` on a warm cache (each
  interleaved with ruff, the ratio taken pair by pair), and `fix` (no write) without cache,
  each with its peak memory;
- `check` of one staged file in a monorepo of about 2,500 files made from the MCP-heavy tree,
  as the pre-commit hook runs it: without a cache, warm, and after another file changed;
- on a synthetic tree where every file registers tools: `ast.parse`, libcst's parse, the
  analysis (scan + link) and `check` with 1 and 2 jobs;
- where a process pool starts to pay (the `jobs` threshold);
- one generated 2 MB server with a tool every few lines: `check` and `fix` (no write) on it,
  with their peak memory, since a file that size once took `fix` minutes and gigabytes;
- `check` on the generated trees of each kind of resolution (tests/analysis/link/generated_trees.py)
  at N and 8N, and the README's demo (`check fixtures/`) against parsing its files with `ast`;
- the language server (`bench/lsp.py`, when pygls is installed): diagnostics after each of 20
  edits of a 2,000-line server module, warm.

It prints the figures and writes them to bench/RESULTS.md. The commands run as subprocesses, so
the numbers include start-up, as a user sees them.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import gc
import importlib.util
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_CACHE = Path(
    os.environ.get("MCP_CODEMOD_BENCH_CACHE", Path.home() / ".cache" / "mcp-codemod-bench")
)
# MCP server distributions, as a project of servers looks.
SERVERS = [
    "mcp-server-fetch==2026.10.24",
    "mcp-server-git==2026.10.19",
    "mcp-server-time==2026.10.19",
    "mcp-atlassian==0.23.1",
    "awslabs-aws-documentation-mcp-server==1.2.3",
    "awslabs-postgres-mcp-server==1.2.2",
    "awslabs-aws-api-mcp-server==1.5.6",
    "awslabs-dynamodb-mcp-server==2.1.8",
    "excel-mcp-server==2.2.2",
    "chroma-mcp==0.2.6",
    "mcp-clickhouse==0.7.0",
    "duckduckgo-mcp-server==0.7.0",
]
# The ecosystem corpus's wheels (corpus/packages.txt): servers with many tool modules, helpers,
# registrars and handler classes; the tree where `check` parses the most of what it reads.
MCP_HEAVY = [
    "arxiv-mcp-server==0.8.2",
    "astro-airflow-mcp==0.9.1",
    "awslabs-amazon-sns-sqs-mcp-server==2.1.1",
    "awslabs-aws-dataprocessing-mcp-server==0.2.2",
    "awslabs-aws-documentation-mcp-server==1.2.3",
    "awslabs-aws-healthomics-mcp-server==0.1.5",
    "awslabs-aws-pricing-mcp-server==1.1.1",
    "awslabs-aws-serverless-mcp-server==0.2.0",
    "awslabs-cloudwatch-mcp-server==0.3.1",
    "awslabs-dynamodb-mcp-server==2.1.8",
    "awslabs-eks-mcp-server==0.2.1",
    "awslabs-lambda-tool-mcp-server==2.1.1",
    "awslabs-memcached-mcp-server==1.1.1",
    "chroma-mcp==0.2.6",
    "docling-mcp==3.3.0",
    "duckduckgo-mcp-server==0.7.0",
    "elasticsearch-mcp-server==2.1.6",
    "excel-mcp-server==2.2.2",
    "fast-mcp-telegram==0.46.1",
    "ida-pro-mcp==1.4.0",
    "jupyter-mcp-server==2.2.4",
    "lean-lsp-mcp==0.32.0",
    "markitdown-mcp==0.0.1a8",
    "mcp-agent==0.2.6",
    "mcp-atlassian==0.23.1",
    "mcp-clickhouse==0.7.0",
    "mcp-server-duckdb==1.1.0",
    "mcp-server-fetch==2026.10.24",
    "mcp-server-git==2026.10.19",
    "mcp-server-motherduck==1.1.0",
    "mcp-server-qdrant==0.8.1",
    "mcp-server-sqlite==2025.4.25",
    "mcp-server-tree-sitter==0.7.0",
    "mcp-yahoo-finance==0.2.0",
    "office-powerpoint-mcp-server==2.0.7",
    "office-word-mcp-server==1.1.11",
    "serena-agent==2.1.0",
]
# The file a pre-commit hook passes in the monorepo: a registrar (`register_chart_tools(app)`)
# whose server is created in another module, so its callers are looked up across the project.
STAGED = "packages/office_powerpoint_mcp_server_0/tools/chart_tools.py"
MONOREPO_FILES = 2500
# The frameworks and a repository's worth of their dependencies: the scale of a monorepo or a
# vendored tree, where most files cannot hold a tool.
LIBRARIES = [
    "fastmcp==4.2.3",
    "fastmcp-slim==4.2.3",
    "mcp==2.3.0",
    "pydantic==2.14.4",
    "pydantic-settings==2.16.3",
    "starlette==1.10.0",
    "sse-starlette==3.7.0",
    "uvicorn==0.54.0",
    "httpx==0.28.1",
    "httpcore==1.0.9",
    "anyio==4.16.0",
    "authlib==1.9.10",
    "cyclopts==5.5.2",
    "typer==0.29.2",
    "click==8.5.1",
    "rich==15.0.0",
    "pygments==2.21.0",
    "jsonschema==4.26.0",
    "jinja2==3.1.6",
    "openpyxl==3.1.5",
    "docutils==0.23",
    "botocore==1.44.8",
    "sqlalchemy==2.1.9",
    "websockets==17.4",
    "setuptools==84.2.1",
    "pip==25.3",
]


# ---- the corpus ----------------------------------------------------------------------------


def build_tree(cache: Path, group: str, requirements: list[str]) -> Path:
    """`cache/tree/<group>/<distribution>/`: each wheel unpacked; downloads are kept."""
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    tree = cache / "tree" / group
    for requirement in requirements:
        name = requirement.split("==")[0].replace("-", "_").lower()
        target = tree / name
        if target.is_dir():
            continue
        wheel = _wheel(downloads, requirement)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target.with_suffix(".partial"))
        target.with_suffix(".partial").rename(target)
    return tree


def _wheel(downloads: Path, requirement: str) -> Path:
    name, version = requirement.split("==")
    prefix = f"{name.replace('-', '_').lower()}-{version}-"
    for existing in downloads.glob("*.whl"):
        if existing.name.lower().startswith(prefix):
            return existing
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
            *(
                "--only-binary=:all:",
                "--python-version",
                f"{sys.version_info[0]}.{sys.version_info[1]}",
            ),
            *("-d", str(downloads), requirement),
        ],
        check=True,
    )
    return _wheel(downloads, requirement)


def python_files(tree: Path) -> list[Path]:
    return sorted(tree.rglob("*.py"))


def synthetic_tree(target: Path, count: int) -> Path:
    """`count` modules, each the fixture servers' code run together: every file registers tools
    (on mcp 1.x, mcp 2.x and fastmcp servers, through every registration form)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    sources = [
        path.read_text(encoding="utf-8")
        for path in sorted((REPO / "fixtures").glob("*.py"))
        if "__future__" not in path.read_text(encoding="utf-8")  # must come first in a module
    ]
    module = "\n\n".join(sources)
    for index in range(count):
        (target / f"server_{index:04d}.py").write_text(module, encoding="utf-8")
    return target


# ---- measuring -----------------------------------------------------------------------------


class Peak(int):
    """A command's peak resident memory in MB. Linux counts a parent's memory at its child's
    `exec` into the child's peak, so no child reads below this process's own peak: a reading at
    that floor shows as "≤ floor", not as the command's."""

    at_floor: bool

    def __new__(cls, megabytes: int, floor: int) -> Peak:
        peak = super().__new__(cls, max(megabytes, floor))
        peak.at_floor = megabytes <= floor
        return peak

    def __str__(self) -> str:
        return f"≤ {int(self)}" if self.at_floor else str(int(self))


def _megabytes(max_rss: int) -> int:
    # ru_maxrss is in KB on Linux and in bytes on macOS.
    return max_rss * (1 if sys.platform == "darwin" else 1024) // 2**20


def run(command: list[str], cwd: Path) -> tuple[float, Peak, int]:
    """Wall seconds, peak resident memory (MB) and exit code of one command."""
    floor = _megabytes(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, Peak(_megabytes(usage.ru_maxrss), floor), process.returncode


def median_run(command: list[str], cwd: Path, repeat: int) -> tuple[float, int]:
    runs = [run(command, cwd) for _ in range(repeat)]
    codes = {code for _, _, code in runs}
    if codes - {0, 1}:
        raise SystemExit(f"{' '.join(command)} failed with exit code {codes}")
    return statistics.median(t for t, _, _ in runs), max(m for _, m, _ in runs)


def paired_runs(
    command: list[str], reference: list[str], cwd: Path, repeat: int
) -> tuple[float, int, float]:
    """`command` and `reference` in turn, A B A B...: the median wall time and peak memory of
    `command`, and the median of the ratios pair by pair, which holds while the machine's speed
    drifts (it is shared)."""
    times, memories, ratios = [], [], []
    for _ in range(repeat):
        seconds, memory, code = run(command, cwd)
        if code not in (0, 1):
            raise SystemExit(f"{' '.join(command)} failed with exit code {code}")
        reference_seconds, _memory, _code = run(reference, cwd)
        times.append(seconds)
        memories.append(memory)
        ratios.append(seconds / reference_seconds)
    return statistics.median(times), max(memories), statistics.median(ratios)


def median_time(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def codemod_command() -> list[str]:
    script = Path(sys.executable).with_name("mcp-codemod")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mcp_codemod"]


def ruff_command() -> list[str]:
    script = Path(sys.executable).with_name("ruff")
    return [str(script) if script.exists() else "ruff"]


class Report:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def heading(self, text: str) -> None:
        print(f"\n{text}")
        self.lines += ["", f"## {text}", ""]

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
        for row in [header, *rows]:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
        self.lines.append("| " + " | ".join(header) + " |")
        self.lines.append("|" + "---|" * len(header))
        self.lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]

    def note(self, text: str) -> None:
        print(text)
        self.lines += ["", text]


def ruff_reference() -> list[str]:
    return [*ruff_command(), "check", "--no-cache", "--select", "E,F", "--exit-zero", "."]


def measure_tree(report: Report, name: str, tree: Path, repeat: int) -> None:
    files = python_files(tree)
    size = sum(path.stat().st_size for path in files)
    codemod = codemod_command()
    read = median_time(lambda: [path.read_bytes() for path in files], repeat)
    reference = ruff_reference()
    ruff, ruff_memory = median_run(reference, tree, repeat)
    rows: list[list[str]] = []

    def row(label: str, seconds: float, memory: int | str, ratio: float | None = None) -> None:
        rows.append(
            [
                label,
                f"{seconds:.3f}",
                f"{len(files) / seconds:,.0f}",
                f"{ratio if ratio is not None else seconds / ruff:.2f}×",
                f"{seconds / read:.0f}×",
                str(memory),
            ]
        )

    row("read every file (in process)", read, "")
    row("ruff check --no-cache --select E,F", ruff, ruff_memory)
    check = [*codemod, "check", "--exit-zero", "."]
    for label, options in (("1 job", ["--jobs", "1"]), ("every core", [])):
        seconds, memory, ratio = paired_runs(
            [*check, "--no-cache", *options], reference, tree, repeat
        )
        row(f"mcp-codemod check, cold, {label}", seconds, memory, ratio)
    with tempfile.TemporaryDirectory() as cache:
        # Two runs first: the first one parses, the second stores the run's result once every
        # file's timestamps are old enough to trust.
        run([*check, "--cache-dir", cache], tree)
        run([*check, "--cache-dir", cache], tree)
        seconds, memory, ratio = paired_runs(
            [*check, "--cache-dir", cache], reference, tree, repeat
        )
        row("mcp-codemod check, warm cache", seconds, memory, ratio)
    seconds, memory = median_run([*codemod, "fix", "--no-cache", "."], tree, repeat)
    row("mcp-codemod fix (diff, no write), cold", seconds, memory)
    candidates = _candidates(files)
    report.heading(f"{name}: {len(files):,} files, {size / 2**20:.1f} MB")
    report.table(["step", "wall s", "files/s", "vs ruff", "vs read", "peak MB"], rows)
    report.note(
        f'{candidates:,} files ({candidates / len(files):.0%}) pass the prefilter. "vs ruff" of'
        " the check rows: the median of ratios to ruff runs interleaved with them."
    )


def _candidates(files: list[Path]) -> int:
    from mcp_codemod.engine.prefilter import is_candidate

    return sum(is_candidate(path.read_bytes()) for path in files)


def monorepo(target: Path, source: Path, count: int) -> Path:
    """About `count` files: the MCP-heavy tree's distributions copied under `packages/` (as
    often as it takes), one `pyproject.toml` at the top, as a monorepo of servers looks."""
    shutil.rmtree(target, ignore_errors=True)
    (target / "packages").mkdir(parents=True)
    (target / "pyproject.toml").write_text("[project]\nname = 'monorepo'\n", encoding="utf-8")
    total = copy = 0
    while total < count:
        for distribution in sorted(source.iterdir()):
            shutil.copytree(distribution, target / "packages" / f"{distribution.name}_{copy}")
            total += len(python_files(distribution))
            if total >= count:
                break
        copy += 1
    return target


def measure_staged_file(report: Report, tree: Path, repeat: int) -> None:
    """What the pre-commit hook does: `check` one staged file of a large project."""
    files = python_files(tree)
    staged = Path(STAGED)
    check = [*codemod_command(), "check", "--exit-zero", str(staged)]
    reference = [*ruff_command(), "check", "--no-cache", "--select", "E,F", "--exit-zero"]
    reference.append(str(staged))
    ruff, _memory = median_run(reference, tree, repeat)
    rows = [["ruff check --no-cache --select E,F (the file)", f"{ruff:.3f}", "1.00×", ""]]
    seconds, memory, ratio = paired_runs([*check, "--no-cache"], reference, tree, repeat)
    rows.append(["mcp-codemod check, no cache", f"{seconds:.3f}", f"{ratio:.2f}×", str(memory)])
    with tempfile.TemporaryDirectory() as cache:
        # The copies are seconds old: a run stores its result only once the files it depends on
        # are old enough for their stamps to be trusted (docs/speed.md, the run cache).
        time.sleep(2)
        run([*check, "--cache-dir", cache], tree)
        run([*check, "--cache-dir", cache], tree)
        seconds, memory, ratio = paired_runs(
            [*check, "--cache-dir", cache], reference, tree, repeat
        )
        rows.append(
            ["mcp-codemod check, warm cache", f"{seconds:.3f}", f"{ratio:.2f}×", str(memory)]
        )
        # Another file of the project changed since: the run cache misses, the facts cache and
        # the mention index answer.
        other = tree / staged.parent / "content_tools.py"
        with other.open("a", encoding="utf-8") as stream:
            stream.write("\n# edited\n")
        seconds, memory = median_run([*check, "--cache-dir", cache], tree, 1)
        rows.append(
            [
                "mcp-codemod check, warm, after editing another file (1 run)",
                f"{seconds:.3f}",
                "",
                str(memory),
            ]
        )
    report.heading(f"One staged file in a monorepo of {len(files):,} files ({staged})")
    report.table(["step", "wall s", "vs ruff", "peak MB"], rows)


def measure_every_file_holds_tools(report: Report, scratch: Path, repeat: int) -> None:
    """Parse and analysis cost where the prefilter passes everything, in this process."""
    from mcp_codemod.api import Options, check_paths
    from mcp_codemod.engine.file_facts import FileFacts, scan_source

    # check_paths runs without the cycle collector; so do these measurements, to compare alike.
    gc.disable()
    tree = synthetic_tree(scratch / "every-file-holds-tools", 500)
    files = python_files(tree)
    sources = FileFacts(None)
    tasks = [sources.examine(path, prefilter=True).task for path in files]
    texts = [task.text for task in tasks]
    parse = median_time(lambda: [ast.parse(text) for text in texts], repeat)
    scan_and_parse = median_time(lambda: [scan_source(task) for task in tasks], repeat)
    serial = median_time(lambda: check_paths([tree], Options(jobs=1, cache=False)), repeat)
    parallel = median_time(lambda: check_paths([tree], Options(jobs=2, cache=False)), repeat)
    analysis = serial - parse  # reading, prefilter, scan and link: all but the parse
    scan = scan_and_parse - parse
    try:
        import libcst
    except ImportError:
        libcst_parse = None
    else:
        libcst_parse = median_time(lambda: [libcst.parse_module(text) for text in texts], 1)
    codemod = [*codemod_command(), "check", "--exit-zero", "--no-cache", "."]
    wall_1, _ = median_run([*codemod, "--jobs", "1"], tree, repeat)
    wall_2, _ = median_run([*codemod, "--jobs", "2"], tree, repeat)
    size = sum(len(text) for text in texts)
    report.heading(
        f"Every file holds tools: {len(files)} files, {size / 2**20:.1f} MB (the fixture servers"
        " run together)"
    )
    rows = [
        ["ast.parse", f"{parse:.3f}", ""],
        ["scan (facts from the tree)", f"{scan:.3f}", f"{scan / parse:.0%} of ast.parse"],
        [
            "check_paths, 1 job, minus ast.parse (read, scan, link, rules)",
            f"{analysis:.3f}",
            f"{analysis / parse:.0%} of ast.parse",
        ],
    ]
    if libcst_parse is not None:
        rows.append(
            [
                "libcst.parse_module (1 run)",
                f"{libcst_parse:.3f}",
                f"analysis is {analysis / libcst_parse:.0%} of it",
            ]
        )
    rows += [
        ["check_paths, 1 job", f"{serial:.3f}", ""],
        ["check_paths, 2 jobs", f"{parallel:.3f}", f"{serial / parallel:.2f}× faster"],
        ["mcp-codemod check, 1 job (wall)", f"{wall_1:.3f}", ""],
        ["mcp-codemod check, 2 jobs (wall)", f"{wall_2:.3f}", f"{wall_1 / wall_2:.2f}× faster"],
    ]
    report.table(["step", "s", "ratio"], rows)
    gc.enable()


def _pooled(parallel, tasks: list, sizes: list[int]) -> list:
    from mcp_codemod.engine.file_facts import scan_source

    with parallel.Workers(2) as workers:
        mapped = parallel.OrderedMap(scan_source, workers)
        for task, size in zip(tasks, sizes, strict=True):
            mapped.put(task, size)
        return mapped.results()


def measure_pool_threshold(report: Report, scratch: Path, repeat: int) -> None:
    """Serial against a 2-process pool over growing amounts of source: where the pool pays.
    Measured before this process grows: forking a large process costs more (after the
    libcst parse below, the pool took 37 ms where it takes 15 in a fresh process)."""
    from mcp_codemod.engine import parallel
    from mcp_codemod.engine.file_facts import FileFacts, scan_source

    gc.disable()
    files = python_files(synthetic_tree(scratch / "pool-threshold", 256))
    sources = FileFacts(None)
    tasks = [sources.examine(path, prefilter=True).task for path in files]
    sizes = [len(task.text) for task in tasks]
    rows = []
    saved = parallel.POOL_THRESHOLD_BYTES
    try:
        parallel.POOL_THRESHOLD_BYTES = 0
        for count in (8, 16, 32, 64, 128, 256):
            some, some_sizes = tasks[:count], sizes[:count]
            serial = median_time(lambda: [scan_source(t) for t in some], repeat)  # noqa: B023
            pooled = median_time(lambda: _pooled(parallel, some, some_sizes), repeat)  # noqa: B023
            rows.append(
                [
                    f"{sum(some_sizes) / 1000:,.0f}",
                    f"{serial * 1000:.0f}",
                    f"{pooled * 1000:.0f}",
                    "pool" if pooled < serial else "serial",
                ]
            )
    finally:
        parallel.POOL_THRESHOLD_BYTES = saved
        gc.enable()
    report.heading("Pool threshold: parse and scan, serial against 2 processes")
    report.table(["source KB", "serial ms", "pool ms", "faster"], rows)
    report.note(f"`parallel.POOL_THRESHOLD_BYTES` is {saved:,} bytes.")


def big_server(target: Path, size: int) -> Path:
    """One module of about `size` bytes: an mcp 1.x server with tools whose three parameters
    each have a fixable finding (two MCP001, one MCP002)."""
    target.mkdir(parents=True, exist_ok=True)
    parts = [
        '"""Generated."""\n\nfrom typing import Optional\n\nfrom mcp.server.fastmcp import FastMCP\n'
        'from pydantic import StrictInt\n\nmcp = FastMCP("big")\n'
    ]
    length, index = len(parts[0]), 0
    while length < size:
        parts.append(
            f"\n\n@mcp.tool()\ndef tool_{index}(query: str | None = None, other: Optional[str] = None,"
            f' page: StrictInt = 1, text: str = "") -> str:\n    """Tool {index}."""\n'
            "    return repr((query, other, page, text))\n"
        )
        length += len(parts[-1])
        index += 1
    (target / "big_server.py").write_text("".join(parts), encoding="utf-8")
    return target


def measure_big_file(report: Report, scratch: Path, repeat: int) -> None:
    tree = big_server(scratch / "big-file", 2_000_000)
    codemod = codemod_command()
    check_command = [*codemod, "check", "--no-cache", "."]
    check, check_memory = median_run(check_command, tree, repeat)
    # Interleaved with `check`, as the check rows are with ruff: the ratio holds while the
    # shared machine's speed drifts.
    fix, fix_memory, ratio = paired_runs(
        [*codemod, "fix", "--no-cache", "."], check_command, tree, repeat
    )
    findings = (tree / "big_server.py").read_text(encoding="utf-8").count("@mcp.tool()") * 3
    report.heading(f"One generated 2 MB server: {findings:,} fixable findings")
    report.table(
        ["step", "wall s", "peak MB", "vs check"],
        [
            ["mcp-codemod check --no-cache", f"{check:.2f}", str(check_memory), "1.00×"],
            [
                "mcp-codemod fix --no-cache (diff, no write)",
                f"{fix:.2f}",
                str(fix_memory),
                f"{ratio:.2f}×",
            ],
        ],
    )
    report.note('"vs check": the median of ratios to `check` runs interleaved with `fix`.')


def measure_fixtures(report: Report, repeat: int) -> None:
    """The README's demo, `check fixtures/` from the repository's root, against a Python process
    that parses the same files with `ast` (run in turn, the ratio taken pair by pair): the
    bundled servers hold most registration shapes, so a resolution step that grows out of
    bounds shows here first."""
    files = [str(path.relative_to(REPO)) for path in python_files(REPO / "fixtures")]
    parse = [sys.executable, "-c", PARSE_EVERY_FILE, *files]
    floor, _memory = median_run(parse, REPO, repeat)
    command = ["check", "--no-cache", "fixtures/"]
    check, memory, ratio = paired_runs([*codemod_command(), *command], parse, REPO, repeat)
    patch = SPEED_MECHANISMS[IMPORTS_OFF]
    off = [sys.executable, "-c", f"{patch}\nfrom mcp_codemod.cli import run\nrun()", *command]
    off_seconds, off_memory, off_ratio = paired_runs(off, parse, REPO, repeat)
    report.heading(f"The README's demo: `check fixtures/`, {len(files):,} files")
    report.table(
        ["step", "wall s", "peak MB", "vs parse"],
        [
            ["python parsing every file with ast", f"{floor:.3f}", "", "1×"],
            [
                "mcp-codemod check --no-cache fixtures/",
                f"{check:.3f}",
                str(memory),
                f"{ratio:.1f}×",
            ],
            [
                "the same, parsing every file that names a registrar (imports filter off)",
                f"{off_seconds:.3f}",
                str(off_memory),
                f"{off_ratio:.1f}×",
            ],
        ],
    )


IMPORTS_OFF = (
    "the callers search parses only files whose imports may lead to the registrar (off: every "
    "file that names it)"
)
# A process that parses each file named: the floor of any analysis of them.
PARSE_EVERY_FILE = """\
import ast, contextlib, sys
for name in sys.argv[1:]:
    with open(name, "rb") as file, contextlib.suppress(SyntaxError):  # `type X` before 3.12
        ast.parse(file.read())
"""


def measure_generated_shapes(report: Report, scratch: Path, repeat: int) -> None:
    """`check` on the trees tests/analysis/link/test_work_growth.py counts the work of, at N and 8N:
    each kind of resolution on a tree that grows linearly. The test asserts the work; this
    shows the time."""
    spec = importlib.util.spec_from_file_location(
        "generated_trees", REPO / "tests" / "analysis" / "link" / "generated_trees.py"
    )
    assert spec is not None and spec.loader is not None
    trees = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trees)
    rows = []
    for label, make in trees.TREES.items():
        times = []
        for size in (SHAPE_SIZE, 8 * SHAPE_SIZE):
            root = scratch / "shapes" / f"{make.__name__}-{size}"
            for name, text in make(size).items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text, encoding="utf-8")
            times.append(
                median_run([*codemod_command(), "check", "--no-cache", "."], root, repeat)[0]
            )
        rows.append([label, f"{times[0]:.2f}", f"{times[1]:.2f}", f"{times[1] / times[0]:.1f}×"])
    report.heading(f"Generated shapes: `check --no-cache` at N = {SHAPE_SIZE} and 8N")
    report.table(["tree", "N s", "8N s", "8N ÷ N"], rows)
    report.note("Each figure includes start-up; the growth test counts work, not time.")


SHAPE_SIZE = 100

# Each speed mechanism that replaces a standard way of doing the same thing, and how to turn it
# off in a fresh process: each must pay at least 5 % on one tree to stay (docs/speed.md).
SPEED_MECHANISMS = {
    "workers forked by hand (off: the standard library's process pool)": (
        "from mcp_codemod.engine import parallel; parallel.ForkedPool = parallel.SpawnedPool"
    ),
    IMPORTS_OFF: ("from mcp_codemod.engine import project; project.PARSING_TO_READING_IMPORTS = 0"),
    "what is handed to imported functions parsed ahead (off: each module when asked for)": (
        "from mcp_codemod.analysis.link import escapes; "
        "escapes.ServerEscapes.handed_names = lambda self, module: iter(())"
    ),
}


def measure_speed_mechanisms(report: Report, trees: dict[str, Path], repeat: int) -> None:
    """A cold `check` with each mechanism turned off against the same launcher with it on, in
    pairs: the median ratio is what the mechanism saves."""

    def ratio(patch: str, tree: Path) -> float:
        off = _patched_check(patch, "--no-cache", "--exit-zero", ".")
        on = _patched_check("pass", "--no-cache", "--exit-zero", ".")
        return paired_runs(off, on, tree, repeat)[2]

    _mechanism_table(
        report,
        "Speed mechanisms: a cold check with each one off, against it on",
        SPEED_MECHANISMS,
        trees,
        ratio,
        "Each cell: the median of ratios (off ÷ on) of cold `check --no-cache` runs interleaved "
        "pair by pair. A mechanism stays where it saves at least 5 % (1.050×) on one tree.",
    )


Tree = TypeVar("Tree")  # what a mechanism's ratio is measured on


def _patched_check(patch: str, *arguments: str) -> list[str]:
    """`mcp-codemod check` in a fresh process that runs `patch` first (a mechanism turned off,
    or `pass`)."""
    script = f"{patch}\nfrom mcp_codemod.cli import run\nrun()"
    return [sys.executable, "-c", script, "check", *arguments]


def _mechanism_table(
    report: Report,
    heading: str,
    mechanisms: dict[str, str],
    trees: dict[str, Tree],
    ratio: Callable[[str, Tree], float],
    note: str,
) -> None:
    """A row per mechanism, a column per tree: `ratio` of the mechanism's patch on the tree."""
    rows = [
        [mechanism, *(f"{ratio(patch, tree):.3f}×" for tree in trees.values())]
        for mechanism, patch in mechanisms.items()
    ]
    report.heading(heading)
    report.table(["mechanism", *trees], rows)
    report.note(note)


# What makes a warm `check` (one the run cache answers) fast, and how to turn it off in a fresh
# process; measured on warm runs, each launcher with a cache of its own (a mechanism turned off
# may store its result otherwise). The same rule: at least 5 % on one tree (docs/speed.md).
WARM_MECHANISMS = {
    "a warm run imports neither the analysis nor the rules (off: imported at start-up)": (
        "import mcp_codemod.rules, mcp_codemod.analysis.subjects, mcp_codemod.report.sarif; "
        "import mcp_codemod.report.machine_formats; mcp_codemod.rules.RULES"
    ),
    "discovery as text (off: a Path per file, sorted as Paths; excludes matched by the regex)": (
        "from pathlib import Path; from mcp_codemod.engine import discovery; "
        "discovery._sorted_paths = lambda found: sorted(map(Path, found)); "
        "discovery._excluded = lambda patterns: discovery._exclusion(patterns).match"
    ),
}


def measure_warm_mechanisms(
    report: Report, trees: dict[str, tuple[Path, str]], repeat: int
) -> None:
    """A warm `check` with each mechanism turned off against the same launcher with it on, in
    pairs, on each tree (its directory and the path given)."""
    # A file of a tree may have been edited a moment ago (the staged file's last row): a run
    # stores its result only once the files it depends on are old enough to trust.
    time.sleep(2)

    def ratio(patch: str, tree_and_path: tuple[Path, str]) -> float:
        tree, path = tree_and_path
        with tempfile.TemporaryDirectory() as off, tempfile.TemporaryDirectory() as on:
            commands = (
                _patched_check(patch, "--cache-dir", off, "--exit-zero", path),
                _patched_check("pass", "--cache-dir", on, "--exit-zero", path),
            )
            # Twice each first: the first parses, the second stores the result once every
            # file's timestamps are old enough to trust.
            for command in commands * 2:
                run(command, tree)
            return paired_runs(*commands, tree, repeat)[2]

    _mechanism_table(
        report,
        "Speed mechanisms of a warm check: each one off, against it on",
        WARM_MECHANISMS,
        trees,
        ratio,
        "Each cell: the median of ratios (off ÷ on) of warm `check` runs (answered by the run "
        "cache) interleaved pair by pair. A mechanism stays where it saves at least 5 % (1.050×) "
        "on one tree.",
    )


def measure_language_server(report: Report) -> None:
    try:
        import lsp  # bench/lsp.py, beside this script
    except ImportError as error:  # pygls (the lsp extra) is not installed
        report.note(f"Language server not measured: {error}.")
        return
    import asyncio

    lines = lsp.section(*asyncio.run(lsp.measurements()))
    print("\n".join(lines))
    report.lines += ["", *lines]


def measure_start_up(report: Report, repeat: int) -> None:
    python, _ = median_run([sys.executable, "-c", "pass"], REPO, repeat)
    version, _ = median_run([*codemod_command(), "--version"], REPO, repeat)
    report.heading("Start-up")
    report.table(
        ["command", "wall s"],
        [["python -c pass", f"{python:.3f}"], ["mcp-codemod --version", f"{version:.3f}"]],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--note", default="", help="a line for the results (what was measured)")
    options = parser.parse_args()
    servers = build_tree(options.cache, "servers", SERVERS)
    build_tree(options.cache, "libraries", LIBRARIES)
    # Beside the corpus's tree, which is measured as a whole.
    heavy = build_tree(options.cache / "mcp-heavy", "servers", MCP_HEAVY)
    report = Report()
    if options.note:
        report.note(options.note)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    report.note(
        f"{date.today()}, {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, load average {load:.2f} at the start; medians of "
        f"{options.repeat} runs. Corpus in {options.cache}."
    )
    import mcp_codemod

    # What `pip install` does for a regular install: every start then reads bytecode instead of
    # compiling the package, even where PYTHONDONTWRITEBYTECODE keeps Python from writing it.
    compileall.compile_dir(Path(mcp_codemod.__file__).parent, quiet=1)
    report.note(
        "mcp-codemod's bytecode is compiled before the runs, as a regular install compiles it. "
        "A peak of \"≤ N\" MB is a command's that read no higher than this script's own peak "
        "(N), below which Linux reports no child's."
    )
    measure_start_up(report, options.repeat)
    measure_tree(report, "Corpus", options.cache / "tree", options.repeat)
    measure_tree(report, "MCP servers only", servers, options.repeat)
    measure_tree(
        report, "MCP-heavy: the ecosystem corpus's server distributions", heavy, options.repeat
    )
    trees = {"corpus": options.cache / "tree", "servers": servers, "MCP-heavy": heavy}
    with tempfile.TemporaryDirectory() as scratch:
        monorepo_tree = monorepo(Path(scratch) / "monorepo", heavy, MONOREPO_FILES)
        measure_staged_file(report, monorepo_tree, options.repeat)
        measure_warm_mechanisms(
            report,
            {
                **{name: (tree, ".") for name, tree in trees.items()},
                "staged file": (monorepo_tree, STAGED),
            },
            options.repeat,
        )
        measure_big_file(report, Path(scratch), options.repeat)
        measure_generated_shapes(report, Path(scratch), options.repeat)
        measure_fixtures(report, options.repeat)
        measure_speed_mechanisms(report, trees, options.repeat)
        # In this process, last: what it parses here raises the floor of every later command's
        # peak memory (`Peak`).
        measure_pool_threshold(report, Path(scratch), options.repeat)
        measure_every_file_holds_tools(report, Path(scratch), options.repeat)
    measure_language_server(report)
    options.results.write_text(
        "# Benchmark results\n\nWritten by `python bench/run.py`; see docs/speed.md.\n"
        + "\n".join(report.lines)
        + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
