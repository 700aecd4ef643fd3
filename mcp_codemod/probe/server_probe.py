"""`mcp-codemod probe`: a live server's own argument handling, run on values it is known to mangle.

Static analysis cannot see tools registered at run time or shipped by other packages. The probe
imports the server and, for every registered tool and parameter, runs what the framework does to
a tools/call argument before the tool is called: the mcp SDK's JSON pre-parse as the server has it
(so `guard()`, the guarded classes and `install()` count), then the validator pydantic compiled
for that parameter. Each parameter is validated alone, so required parameters need no filler
values, and the tool body is never called. Each rule's probe check (`Rule.schema_check`) runs on
every tool's listed input schema. See docs/probe.md for what counts as a problem.

The command line (`mcp_codemod.cli`) imports this module, so at import time it needs only the
standard library: the frameworks and pydantic are imported when a server is probed (a pre-commit
hook's environment has neither). The frameworks' handling is in `argument_handling`, loading a
target in `targets`, the results in `results`, the formatters in `mcp_codemod.report`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from functools import partial
from typing import Any

from mcp_codemod.probe import client_behaviours as forms
from mcp_codemod.probe.argument_handling import (
    NotProbed,
    ProbedParameter,
    SchemaRefused,
    inspect_server,
)
from mcp_codemod.probe.client_behaviours import CLIENT_BEHAVIOURS
from mcp_codemod.probe.results import (
    JSON_TEXT,
    TEXT,
    WHOLE_FLOAT,
    Arrival,
    ClientFormProblem,
    ProbeReport,
    Problem,
    SchemaNode,
    StrictModeProblem,
    same,
    schema_checks,
)
from mcp_codemod.probe.strict_mode import strict_mode_problems
from mcp_codemod.rules.schema_nodes import types

TEXT_PROBES = ("null", "[1]", '{"a": 1}')
"""Sent to every parameter that takes them as text: the mcp SDK decodes each into None/list/dict."""

WHOLE_NUMBER = 5
"""Sent as `5.0` to every integer parameter, as clients that hold numbers as float64 do."""

ARRIVAL_PROBES = (*TEXT_PROBES, "[1, 2]", "true", "5", "hello", None, 5, ["a"], {"a": 1})
"""Sent to every parameter to record what it arrives as (`ProbeReport.arrivals`), whatever the
parameter takes: texts the pre-parse decodes or keeps, and JSON values that are not text."""


def probe_server(server: Any) -> ProbeReport:
    """Probe every registered tool of an mcp `FastMCP` / `MCPServer` or a `fastmcp.FastMCP`."""
    framework, tools, parameters_of = inspect_server(server)
    probed: list[str] = []
    problems: list[Problem] = []
    not_probed: list[tuple[str, str]] = []
    arrivals: list[Arrival] = []
    strict: list[StrictModeProblem] = []
    client_forms: list[ClientFormProblem] = []
    # Each rule's probe check over every tool: the schema is what clients judge, whether or not
    # the arguments can be probed.
    found = [
        SchemaNode(rule.code, name, parameter, path)
        for rule, check in schema_checks()
        for name, tool in tools
        for parameter, path in check.find(tool.parameters)
    ]
    for name, tool in tools:
        strict.extend(strict_mode_problems(name, tool.parameters))
        try:
            parameters = parameters_of(tool)
        except NotProbed as reason:
            not_probed.append((name, str(reason)))
            continue
        probed.append(name)
        for parameter in parameters:
            probes = _probes(parameter)
            problems.extend(_probe(name, parameter, probes))
            client_forms.extend(_replay_clients(name, parameter))
            sent = [*ARRIVAL_PROBES]
            sent += [s for _, s, _ in probes if not any(same(s, a) for a in ARRIVAL_PROBES)]
            arrivals.extend(_arrival(name, parameter, value) for value in sent)
    return ProbeReport(
        str(getattr(server, "name", type(server).__name__)),
        framework,
        tuple(probed),
        tuple(problems),
        tuple(not_probed),
        tuple(arrivals),
        tuple(found),
        tuple(strict),
        tuple(client_forms),
    )


def _probes(parameter: ProbedParameter) -> list[tuple[str, Any, Any]]:
    """(kind, sent, intended) for each probe: what the client sends, and the value it means."""
    probes: list[tuple[str, Any, Any]] = [(TEXT, text, text) for text in TEXT_PROBES]
    integer = _integer_schema(parameter.schema)
    if integer is not None:
        number = _whole_number(integer)
        probes.append((WHOLE_FLOAT, float(number), number))
    structured = _structured_example(parameter)
    if structured is not None:
        probes.append((JSON_TEXT, json.dumps(structured), structured))
    return probes


def _arrival(tool: str, parameter: ProbedParameter, sent: Any) -> Arrival:
    try:
        return Arrival(
            tool, parameter.key, sent, received=parameter.validate(parameter.prepare(sent))
        )
    except Exception as error:
        return Arrival(tool, parameter.key, sent, error=_error_message(error))


def _probe(
    tool: str, parameter: ProbedParameter, probes: list[tuple[str, Any, Any]]
) -> Iterator[Problem]:
    # The tool should get what the parameter's own validator makes of the intended value; a
    # value the validator refuses anyway (a string for list[str], text outside a Literal) is
    # not probed.
    from mcp_codemod.runtime.declared_text import TEXT_CLASSES  # pydantic: imported when probing

    for kind, sent, intended in probes:
        try:
            expected = parameter.validate(intended)
        except Exception:
            continue
        if kind == TEXT and not isinstance(expected, TEXT_CLASSES):
            # Text the parameter decodes (DecodeJsonText) is not text it takes; a text the
            # parameter takes as bytes, a path or a pattern is.
            continue
        received, error = _received(parameter, sent)
        if error is not None:
            yield Problem(tool, parameter.key, kind, sent, error=error)
        elif not same(received, expected):
            yield Problem(tool, parameter.key, kind, sent, received=received)


def _received(parameter: ProbedParameter, sent: object) -> tuple[object, str | None]:
    """What the framework's path makes of a value sent: what the tool receives, or why it is
    rejected (with what the validator got where the pre-parse changed it)."""
    prepared = sent
    try:
        prepared = parameter.prepare(sent)
        return parameter.validate(prepared), None
    except Exception as error:
        message = _error_message(error)
        if not same(prepared, sent):
            message += f" (the validator got {prepared!r})"
        return None, message


def _replay_clients(tool: str, parameter: ProbedParameter) -> Iterator[ClientFormProblem]:
    """Each documented client behaviour that applies to the parameter, sent through the
    framework's path; a problem where the tool would not get what its own validator makes of
    the value the client meant."""
    for behaviour in CLIENT_BEHAVIOURS:
        for sent, intended in _form_cases(behaviour.form, parameter):
            try:
                expected = parameter.validate(intended)
            except Exception:
                continue  # the parameter refuses the meant value anyway
            if behaviour.form == forms.TEXT_AS_SENT and not isinstance(expected, str):
                continue
            if _takes_as_another(parameter, sent, expected):
                continue  # the declared type takes what was sent as a value of its own
            report = partial(ClientFormProblem, tool, parameter.key, behaviour.name, sent, expected)
            received, error = _received(parameter, sent)
            if error is not None:
                yield report(error=error)
            elif not same(received, expected):
                yield report(received=received)


DIGITS = "12345"
"""The digit-only text a client sends as the number 12345."""


def _form_cases(form: str, parameter: ProbedParameter) -> list[tuple[Any, Any]]:
    """(sent, meant) for each argument of `form` that applies to the parameter, by its schema
    and validator: what a client sends, and the value it means."""
    branches = _branches(parameter)
    kinds = {kind for branch in branches for kind in types(branch)}
    if form in (forms.ARRAY_TEXT, forms.OBJECT_TEXT):
        wanted = "array" if form == forms.ARRAY_TEXT else "object"
        for branch in branches:
            if wanted in types(branch):
                value = _example(branch, parameter.definitions, depth=0)
                text = json.dumps(value)
                return [] if _takes_as_text(parameter, text) else [(text, value)]
        return []
    if form == forms.NULL_TEXT:
        applies = "null" in kinds and not _takes_as_text(parameter, "null")
        return [("null", None)] if applies else []
    if form in (forms.WHOLE_FLOAT, forms.NUMBER_TEXT):
        integer = _integer_schema(parameter.schema)
        if integer is None:
            return []
        number = _whole_number(integer)
        if form == forms.WHOLE_FLOAT:
            return [(float(number), number)]
        return [] if "string" in kinds else [(str(number), number)]
    if form == forms.DIGITS_AS_NUMBER:
        union = len(branches) > 1 and "string" in kinds
        return [(int(DIGITS), DIGITS)] if union and not {"integer", "number"} & kinds else []
    if form == forms.TEXT_AS_SENT:
        return [(text, text) for text in ("null", "[1]")]
    raise ValueError(f"unknown client form {form!r}")


def _branches(parameter: ProbedParameter) -> list[dict[str, Any]]:
    """The parameter's schema and its union members, through local `$ref`s."""
    resolved = _resolve(parameter.schema, parameter.definitions)
    members = [*resolved.get("anyOf", ()), *resolved.get("oneOf", ())]
    return [resolved, *(_resolve(member, parameter.definitions) for member in members)]


def _takes_as_another(parameter: ProbedParameter, sent: Any, expected: Any) -> bool:
    """Whether the parameter's own validator takes `sent` as it is, as a value other than the
    one meant (`str | datetime` takes 12345 as a date): the fix leaves such a value alone."""
    try:
        return not same(parameter.validate(sent), expected)
    except Exception:
        return False


def _takes_as_text(parameter: ProbedParameter, text: str) -> bool:
    try:
        return isinstance(parameter.validate(text), str)
    except Exception:
        return False


def _structured_example(parameter: ProbedParameter) -> Any:
    """A small array or object the parameter takes, unless it takes text: then its JSON text
    is text, and the TEXT probes cover it."""
    try:
        taken = parameter.validate("[]")
    except Exception:
        taken = None
    if isinstance(taken, str):
        return None
    resolved = _resolve(parameter.schema, parameter.definitions)
    for branch in [resolved, *resolved.get("anyOf", ()), *resolved.get("oneOf", ())]:
        branch = _resolve(branch, parameter.definitions)
        if {"array", "object"} & set(types(branch)):
            return _example(branch, parameter.definitions, depth=0)
    return None


def _resolve(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return definitions.get(ref.removeprefix("#/$defs/"), {})
    return schema


_EXAMPLE_DEPTH = 8
"""Recursive models end in None here; the validator then refuses the example, and it is skipped."""


def _example(schema: dict[str, Any], definitions: dict[str, Any], depth: int) -> Any:
    schema = _resolve(schema, definitions)
    if depth > _EXAMPLE_DEPTH:
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    branches = [b for b in (*schema.get("anyOf", ()), *schema.get("oneOf", ())) if b]
    non_null = [b for b in branches if types(_resolve(b, definitions)) != ["null"]]
    if non_null:
        return _example(non_null[0], definitions, depth + 1)
    kinds = [kind for kind in types(schema) if kind != "null"]
    kind = kinds[0] if kinds else None
    if kind == "array":
        if "prefixItems" in schema:
            return [_example(item, definitions, depth + 1) for item in schema["prefixItems"]]
        count = min(max(schema.get("minItems", 1), 1), schema.get("maxItems", 1))
        return [_example(schema.get("items", {}), definitions, depth + 1)] * count
    if kind == "object":
        properties = schema.get("properties", {})
        if not properties and isinstance(schema.get("additionalProperties"), dict):
            return {"a": _example(schema["additionalProperties"], definitions, depth + 1)}
        return {
            name: _example(properties[name], definitions, depth + 1)
            for name in schema.get("required", ())
            if name in properties
        }
    if kind in ("integer", "number"):
        return _whole_number(schema)
    if kind == "string":
        return "a" * max(schema.get("minLength", 1), 1)
    if kind == "boolean":
        return True
    return None


def _error_message(error: Exception) -> str:
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        first = error.errors(include_url=False)[0]
        return f"{first['msg']} [{first['type']}]"
    if isinstance(error, SchemaRefused):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _integer_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The branch of a property's schema that takes integers, unless it takes any number."""
    branches = [schema, *schema.get("anyOf", ()), *schema.get("oneOf", ())]
    typed = [(branch, kind) for branch in branches for kind in types(branch)]
    if any(kind == "number" for _, kind in typed):
        return None
    return next((branch for branch, kind in typed if kind == "integer"), None)


def _whole_number(schema: dict[str, Any]) -> int:
    # Within the parameter's bounds, so that `Field(ge=10)` is probed with 10.0, not refused 5.0.
    number = WHOLE_NUMBER
    if "minimum" in schema:
        number = max(number, math.ceil(schema["minimum"]))
    if "exclusiveMinimum" in schema:
        number = max(number, math.floor(schema["exclusiveMinimum"]) + 1)
    if "maximum" in schema:
        number = min(number, math.floor(schema["maximum"]))
    if "exclusiveMaximum" in schema:
        number = min(number, math.ceil(schema["exclusiveMaximum"]) - 1)
    return number
