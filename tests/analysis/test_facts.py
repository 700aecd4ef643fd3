"""The facts as plain, picklable data: what crosses processes and caches stays right there."""

import pickle
import subprocess
import sys

from mcp_codemod.analysis.facts import Position, ServerKind, ServerRef, Span


def _reference() -> ServerRef:
    span = Span(Position(3, 6), Position(3, 13))
    return ServerRef(ServerKind.CONSTRUCT, "mcp.server.fastmcp.FastMCP", class_span=span, line=3)


def test_a_server_reference_hashes_as_its_fields():
    reference = _reference()
    assert hash(reference) == hash(reference) == hash(_reference())
    assert {reference: 1}[_reference()] == 1
    assert hash(_reference()) != hash(ServerRef(ServerKind.CONSTRUCT, "x.FastMCP", line=3))


def test_the_hash_kept_by_a_server_reference_is_not_pickled():
    reference = _reference()
    hash(reference)
    data = pickle.dumps(reference, protocol=pickle.HIGHEST_PROTOCOL)
    assert b"_hash" not in data
    assert pickle.loads(data) == reference


def test_a_reference_pickled_here_hashes_as_a_fresh_one_in_a_process_hashing_strings_otherwise():
    reference = _reference()
    hash(reference)
    data = pickle.dumps(reference, protocol=pickle.HIGHEST_PROTOCOL)
    program = (
        "import pickle, sys\n"
        "from tests.analysis.test_facts import _reference\n"
        "loaded = pickle.loads(sys.stdin.buffer.read())\n"
        "print(hash(loaded) == hash(_reference()), {_reference(): 1}.get(loaded))\n"
    )
    for seed in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-c", program],
            input=data,
            capture_output=True,
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": "."},
            check=True,
        )
        assert run.stdout.decode().split() == ["True", "1"]
