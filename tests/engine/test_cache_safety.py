"""Reading the caches never runs code: a planted cache file is data that does not validate."""

from __future__ import annotations

import dataclasses
import enum
import io
import os
import pickle
import sys
import typing
from pathlib import Path

import pytest
from conftest import run_cli
from demo_servers import EXPOSED as SERVER

import mcp_codemod
from mcp_codemod.analysis.facts import ModuleFacts
from mcp_codemod.engine import facts_cache
from mcp_codemod.engine.checker import CheckResult
from mcp_codemod.engine.facts_cache import FACTS_CLASSES, RestrictedUnpickler
from mcp_codemod.engine.run_cache import RESULT_CLASSES


def _global(module: str, name: str) -> bytes:
    """Protocol 4's STACK_GLOBAL of `module` and `name` (a dotted name is resolved attribute by
    attribute by an unrestricted unpickler)."""
    return (
        b"\x8c"
        + bytes([len(module)])
        + module.encode()
        + b"\x8c"
        + bytes([len(name)])
        + name.encode()
        + b"\x93"
    )


def _call(module: str, name: str, argument: str) -> bytes:
    """A protocol 4 pickle that calls `module`.`name`(argument)."""
    text = argument.encode()
    return b"\x80\x04" + _global(module, name) + b"\x8c" + bytes([len(text)]) + text + b"\x85R."


class _System:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


def gadgets(marker: Path) -> list[tuple[str, bytes]]:
    """Each payload of issue 24 and a plain `os.system` in every protocol: each would create
    `marker`."""
    create = f"open({str(marker)!r}, 'w').close()"
    shell = f"touch {marker}"
    return [
        # Issue 24 went through `analysis/types.py`'s `json`; `shape_questions` imports it now.
        (
            "questions-to-eval",
            _call("mcp_codemod.analysis.shape_questions", "json.codecs.builtins.eval", create),
        ),
        ("facts-to-eval", _call("mcp_codemod.analysis.facts", "dataclasses.sys.modules", "x")),
        ("checker-to-os", _call("mcp_codemod.engine.checker", "os.system", shell)),
        ("findings-to-os", _call("mcp_codemod.rules.findings", "os.system", shell)),
        ("builtins-eval", _call("builtins", "eval", create)),
        *(
            (f"os.system-protocol-{protocol}", pickle.dumps(_System(shell), protocol=protocol))
            for protocol in range(pickle.HIGHEST_PROTOCOL + 1)
        ),
    ]


GADGET_NAMES = [name for name, _ in gadgets(Path("x"))]


@pytest.mark.parametrize("name", GADGET_NAMES)
def test_the_unpicklers_refuse_every_gadget(tmp_path, name):
    marker = tmp_path / "ran"
    payload = dict(gadgets(marker))[name]
    for unpickler in (RestrictedUnpickler, _result_unpickler()):
        with pytest.raises(pickle.UnpicklingError):
            unpickler(io.BytesIO(payload)).load()
    assert not marker.exists()


def _result_unpickler():
    from mcp_codemod.engine import run_cache

    return run_cache._ResultUnpickler


def _checked(project: Path, cache: Path):
    return run_cli("check", "--cache-dir", str(cache), ".", cwd=project)


@pytest.fixture
def cached_project(tmp_path: Path, monkeypatch) -> tuple[Path, Path, str]:
    """A project checked twice with a cache: both cache files written; and the output."""
    # Trust what was just written (the caches skip files changed within the last 2 s).
    monkeypatch.setattr(facts_cache, "RACY_NS", 0)
    project = tmp_path / "project"
    project.mkdir()
    (project / "server.py").write_text(SERVER, encoding="utf-8")
    cache = tmp_path / "cache"
    first = _checked(project, cache)
    second = _checked(project, cache)
    assert first.output == second.output and "MCP001" in first.output
    return project, cache, first.output


def _cache_files(cache: Path) -> tuple[Path, Path]:
    version = cache / mcp_codemod.__version__
    facts = version / f"facts-{sys.implementation.cache_tag}"
    (run,) = (version / "runs").iterdir()
    return facts, run


@pytest.mark.parametrize("name", GADGET_NAMES)
@pytest.mark.parametrize("where", ["facts file", "facts entry", "run file", "run result"])
def test_a_planted_cache_payload_runs_nothing_and_the_run_is_normal(
    tmp_path, cached_project, name, where
):
    project, cache, expected = cached_project
    marker = tmp_path / "ran"
    payload = dict(gadgets(marker))[name]
    facts, run = _cache_files(cache)
    if where == "facts file":
        facts.write_bytes(payload)
        run.unlink()
    elif where == "facts entry":
        key, entries = pickle.loads(facts.read_bytes())
        entries = {
            path: (*raw[:3], (*raw[3][:3], payload, raw[3][4]) if raw[3] else None, *raw[4:])
            for path, raw in entries.items()
        }
        facts.write_bytes(pickle.dumps((key, entries)))
        run.unlink()
    elif where == "run file":
        run.write_bytes(payload)
    else:
        key, stamps, _result = pickle.loads(run.read_bytes())
        run.write_bytes(pickle.dumps((key, stamps, payload)))

    result = _checked(project, cache)

    assert not marker.exists()
    assert result.output == expected
    assert result.exit_code == 1


def _classes_reachable(root: type) -> set[tuple[str, str]]:
    """The package's classes a value of `root` may hold, following the dataclasses' fields.
    A field may name a class its module imports for type checkers only (a stored result is read
    without the analysis): such a name is looked up among the allowed classes, and one that is
    not there fails the test as a class not allowed would."""
    allowed = {
        name: pickle.Unpickler(io.BytesIO(b"")).find_class(module, name)
        for module, name in RESULT_CLASSES
        if module != "builtins"
    }
    seen: set[type] = set()
    pending: list[object] = [root]
    while pending:
        hint = pending.pop()
        pending.extend(typing.get_args(hint))
        origin = typing.get_origin(hint)
        if origin is not None:
            continue
        if not isinstance(hint, type) or hint in seen:
            continue
        if hint.__module__.startswith("mcp_codemod.") or hint in (set, frozenset, complex):
            seen.add(hint)
        if dataclasses.is_dataclass(hint):
            pending.extend(typing.get_type_hints(hint, localns=allowed).values())
    return {(cls.__module__, cls.__qualname__) for cls in seen}


def test_the_allowed_classes_are_those_the_cached_values_hold():
    assert _classes_reachable(ModuleFacts) <= FACTS_CLASSES
    assert _classes_reachable(CheckResult) <= RESULT_CLASSES


@pytest.mark.parametrize("allowed", sorted(RESULT_CLASSES))
def test_every_allowed_class_is_plain_data(allowed):
    """Building an allowed class runs none of its own code: a dataclass or an enum with the
    default pickling, or one of the few builtins constants need."""
    module, name = allowed
    assert "." not in name
    value = pickle.Unpickler(io.BytesIO(b"")).find_class(module, name)
    if module == "builtins":
        assert name in {"Ellipsis", "complex", "frozenset", "set"}
        return
    assert dataclasses.is_dataclass(value) or issubclass(value, enum.Enum)
    for method in ("__reduce__", "__reduce_ex__", "__setstate__", "__new__"):
        # An enum's class holds Enum's own `__new__`, copied there by the enum machinery.
        assert vars(value).get(method) in (None, getattr(enum.Enum, method, None))
