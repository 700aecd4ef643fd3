"""Run as `python record_arrivals.py ROOT`: import every module under ROOT, probe every server it
holds at module level, and print as JSON what each probe value arrives as.

A separate process, so that the fixture modules (`probe`, `unchecked`, ...) are imported under their
own names without meeting the test suite's packages, and the trees before and after a fix never
share a module.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from mcp_codemod.probe.argument_handling import NotProbed, inspect_server, is_server
from mcp_codemod.probe.results import same
from mcp_codemod.probe.server_probe import probe_server

# Values a parameter that takes anything validates unchanged.
_ANYTHING = (None, 5, True, ["a"], {"a": 1}, "hello", "[1]")


def module_names(root: Path) -> list[str]:
    names = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def outcome(arrival: Any) -> list[str]:
    if arrival.error is not None:
        return ["error"]
    return [type(arrival.received).__qualname__, repr(arrival.received)]


def takes_anything(parameter: Any) -> bool:
    """Whether the parameter's own validator takes every JSON value as it is (`Any`, `object`,
    no annotation, `**kwargs`), measured on the validator, not read from the annotation."""
    for value in _ANYTHING:
        try:
            if not same(parameter.validate(value), value):
                return False
        except Exception:
            return False
    return True


def record(root: Path) -> dict[str, Any]:
    sys.path.insert(0, str(root))
    imported: dict[str, str | None] = {}
    arrivals = []
    for name in module_names(root):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(name)
        except BaseException as error:  # a fixture for the other SDK, or a missing library
            imported[name] = f"{type(error).__name__}: {error}"
            continue
        imported[name] = None
        for attribute, value in sorted(vars(module).items()):
            if not is_server(value):
                continue
            _, tools, parameters_of = inspect_server(value)
            anything = set()
            for tool_name, tool in tools:
                try:
                    parameters = parameters_of(tool)
                except NotProbed:
                    continue
                anything |= {(tool_name, p.key) for p in parameters if takes_anything(p)}
            for arrival in probe_server(value).arrivals:
                arrivals.append(
                    {
                        "key": [
                            name,
                            attribute,
                            arrival.tool,
                            arrival.parameter,
                            repr(arrival.sent),
                        ],
                        "outcome": outcome(arrival),
                        "as_sent": arrival.as_sent,
                        "takes_anything": (arrival.tool, arrival.parameter) in anything,
                    }
                )
    return {"imported": imported, "arrivals": arrivals}


if __name__ == "__main__":
    json.dump(record(Path(sys.argv[1])), sys.stdout)
