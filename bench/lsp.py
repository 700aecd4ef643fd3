"""The language server's answer after an edit: diagnostics of a 2,000-line server module, warm.

A real LSP client (pygls's) starts `mcp-codemod server` over stdio, opens the module, waits
for its first diagnostics (cold), then makes 20 edits one after the other, each a one-line
incremental change, and times each from the `didChange` sent to the `publishDiagnostics` of
that version received. `python bench/lsp.py` measures it alone and replaces its section of
bench/RESULTS.md; `bench/run.py` includes it in a full run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
HEADING = "## Language server: diagnostics after an edit"
TARGET_MS = 150
LINES = 2_000
EDITS = 20


def server_module(lines: int) -> str:
    """An mcp 1.x server module of `lines` lines: tools of ten lines, each with one parameter
    that MCP001 reports, one MCP002 reports and one that is fine."""
    head = (
        '"""Generated for the language server benchmark."""\n\n'
        "from mcp.server.fastmcp import FastMCP\nfrom pydantic import StrictInt\n\n"
        'mcp = FastMCP("bench")\n'
    )
    tools = []
    index = 0
    while head.count("\n") + 10 * len(tools) < lines:
        tools.append(
            f"\n\n@mcp.tool()\ndef tool_{index}(\n    query: str | None = None,\n"
            f'    page: StrictInt = 1,\n    name: str = "",\n) -> str:\n'
            f'    """Tool {index}."""\n    return repr((query, page, name))\n'
        )
        index += 1
    return head + "".join(tools)


def shapes_module(lines: int, size: int = 20) -> str:
    """The server module of `lines` lines, with the single-module trees of each kind of
    resolution (tests/analysis/link/generated_trees.py) at `size` appended: the shapes that once
    made the analysis hang (methods that store their parameter and retry with it), in the file
    being edited."""
    spec = importlib.util.spec_from_file_location(
        "generated_trees", HERE.parent / "tests" / "analysis" / "link" / "generated_trees.py"
    )
    assert spec is not None and spec.loader is not None
    trees = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trees)
    bodies = []
    for make in trees.TREES.values():
        tree = make(size)
        if list(tree) == ["server.py"]:
            bodies.append(tree["server.py"].removeprefix(trees.SERVER))
    return server_module(lines) + "\n\n" + "\n\n".join(bodies)


async def measure(edits: int = EDITS, lines: int = LINES, shapes: bool = False) -> dict:
    # The time each version's diagnostics arrived, and their count: set by the client's handler,
    # awaited (not polled: a polling client would take the cores the server needs).
    arrivals: dict[int, asyncio.Future[tuple[float, int]]] = {}
    client = LanguageClient("bench", "1")

    def arrival(version: int) -> asyncio.Future[tuple[float, int]]:
        return arrivals.setdefault(version, asyncio.get_running_loop().create_future())

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        future = arrival(params.version)
        if not future.done():
            future.set_result((time.perf_counter(), len(params.diagnostics)))

    async def diagnostics_of(version: int) -> tuple[float, int]:
        return await arrival(version)

    def server_cpu() -> float:
        """The server process's CPU seconds so far (user and system), from /proc: on a shared
        machine the wall time also counts the other processes' turns."""
        fields = Path(f"/proc/{client._server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "pyproject.toml").write_text("[tool.mcp-codemod]\n", encoding="utf-8")
        module = root / "server.py"
        text = shapes_module(lines) if shapes else server_module(lines)
        module.write_text(text, encoding="utf-8")
        command = Path(sys.executable).parent / "mcp-codemod"
        await client.start_io(str(command), "server")
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
            )
        )
        client.initialized(types.InitializedParams())
        uri = module.as_uri()
        sent = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        at, findings = await diagnostics_of(1)
        cold = at - sent
        times, cpu = [], []
        # Each edit changes the default of one tool's `name`, spread over the module.
        defaults = [n for n, line in enumerate(text.split("\n")) if line == '    name: str = "",']
        for version in range(2, edits + 2):
            line = defaults[(version * 7) % len(defaults)]
            change = types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(line, 16), types.Position(line, 18)),
                text=f'"{version}"',
            )
            sent, used = time.perf_counter(), server_cpu()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[change],
                )
            )
            at, _ = await diagnostics_of(version)
            times.append(at - sent)
            cpu.append(server_cpu() - used)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return {
        "lines": text.count("\n"),
        "findings": findings,
        "cold": cold,
        "median": statistics.median(times),
        "worst": max(times),
        "times": times,
        "cpu": cpu,
    }


async def measurements(edits: int = EDITS) -> tuple[dict, dict, dict]:
    """The 2,000-line module, a 30-line one (the cost of the round trip itself), and a module
    holding the shapes that once made the analysis hang."""
    return await measure(edits), await measure(edits, 30), await measure(edits, 400, shapes=True)


def section(result: dict, small: dict, shaped: dict) -> list[str]:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    met = "meets" if result["worst"] * 1000 <= TARGET_MS else "misses"
    bound = ""
    if met == "misses" and max(result["cpu"]) * 1000 <= TARGET_MS:
        bound = (
            " The server's own work per edit stays within it (its CPU time, worst included): "
            f"the rest is waiting for a core, with a load average of {load:.1f} on "
            f"{os.cpu_count()} cores."
        )
    return [
        HEADING,
        "",
        f"{date.today()}, {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, load average {load:.2f} after the run. `python bench/lsp.py`: "
        f"a {result['lines']:,}-line mcp 1.x server module with {result['findings']:,} findings, "
        f"opened, then {len(result['times'])} one-line edits, each timed from `didChange` sent "
        "to its `publishDiagnostics` received, over stdio (pygls's client).",
        "",
        "| step | ms |",
        "|---|---|",
        f"| first diagnostics after `didOpen` (cold: server start-up, imports) | {result['cold'] * 1000:.0f} |",
        f"| after an edit, warm: median of {len(result['times'])} | {result['median'] * 1000:.0f} |",
        f"| after an edit, warm: worst of {len(result['times'])} | {result['worst'] * 1000:.0f} |",
        f"| the server's CPU time per edit: median | {statistics.median(result['cpu']) * 1000:.0f} |",
        f"| the server's CPU time per edit: worst | {max(result['cpu']) * 1000:.0f} |",
        f"| after an edit of a {small['lines']}-line module (the round trip itself): median | "
        f"{small['median'] * 1000:.0f} |",
        f"| after an edit of a {shaped['lines']:,}-line module holding the generated trees' "
        f"shapes (stores and self-calls that once hung): median | {shaped['median'] * 1000:.0f} |",
        f"| the same: worst of {len(shaped['times'])} | {shaped['worst'] * 1000:.0f} |",
        "",
        f"Target: ≤ {TARGET_MS} ms after an edit, worst included; this run {met} it.{bound}",
        "",
    ]


def replace_section(results: Path, lines: list[str]) -> None:
    """RESULTS.md with this benchmark's section replaced (or appended), the others kept."""
    text = results.read_text(encoding="utf-8") if results.exists() else "# Benchmark results\n"
    start = text.find(HEADING)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines)
    else:
        end = text.find("\n## ", start + len(HEADING))
        rest = text[end + 1 :] if end >= 0 else ""
        text = text[:start] + "\n".join(lines) + ("\n" + rest if rest else "")
    results.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=EDITS)
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    options = parser.parse_args()
    result, small, shaped = asyncio.run(measurements(options.edits))
    lines = section(result, small, shaped)
    print("\n".join(lines))
    print("each edit, ms:", " ".join(f"{t * 1000:.0f}" for t in result["times"]))
    print("server CPU, ms:", " ".join(f"{t * 1000:.0f}" for t in result["cpu"]))
    replace_section(options.results, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
