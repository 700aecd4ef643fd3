"""The OpenAI Agents SDK's own MCP path on the tools of the JSON list read from stdin.

Run by the Python of a virtual environment holding `openai-agents` (it pins its own `mcp`, so
it cannot share the project's environments). The tools are served together by fake_server.mjs
(a connection costs seconds); the SDK's `MCPServerStdio` lists them (its mcp client validates
the listing) and
`MCPUtil.get_function_tools(..., convert_schemas_to_strict=True, ...)` converts it. Prints one
verdict per tool: `strict` (the SDK sends it as a strict function), `fallback` (strict
conversion failed: the SDK logs it and sends the tool non-strict) or `refused` (listing failed:
the server's every tool is lost). A strict tool comes with what the OpenAI API's documented
rules say of its schema, which the SDK does not check and the API cannot be reached to show:
`untyped`, the nodes without a type ("schema must have a 'type' key"); `formats`, the nodes
whose `format` strict mode does not support ("'uri' is not a valid format"); and from the SDK's
own conversion, `defaults`: the arguments the listing left optional, with a default, that the
strict schema requires, where the model cannot send null for a `None` default.
"""

import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
from importlib.metadata import version

# The SDK leaves the strict conversion's message out of its log unless tool data may be logged.
os.environ.setdefault("OPENAI_AGENTS_DONT_LOG_TOOL_DATA", "0")

from agents import Agent
from agents.mcp import MCPServerStdio, MCPUtil
from agents.run_context import RunContextWrapper

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_server.mjs")


class Messages(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def untyped(schema, path=()):
    if not isinstance(schema, dict):
        return []
    found = []
    if path and not {"type", "anyOf", "$ref", "enum", "const"} & schema.keys():
        found.append("/".join(path))
    for name, child in (schema.get("properties") or {}).items():
        found += untyped(child, (*path, "properties", name))
    if isinstance(schema.get("items"), dict):
        found += untyped(schema["items"], (*path, "items"))
    for index, child in enumerate(schema.get("anyOf") or ()):
        found += untyped(child, (*path, "anyOf", str(index)))
    for name, child in (schema.get("$defs") or {}).items():
        found += untyped(child, (*path, "$defs", name))
    return found


# The formats OpenAI strict mode supports (its Structured Outputs guide, "Supported properties").
STRICT_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}


def unsupported_formats(schema, path=()):
    if isinstance(schema, list):
        return [
            found
            for index, item in enumerate(schema)
            for found in unsupported_formats(item, (*path, str(index)))
        ]
    if not isinstance(schema, dict):
        return []
    found = []
    if isinstance(schema.get("format"), str) and schema["format"] not in STRICT_FORMATS:
        found.append("/".join(path) or "/")
    for key, value in schema.items():
        if key not in ("default", "const", "enum", "examples"):
            found += unsupported_formats(value, (*path, key))
    return found


def admits_null(schema):
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return "null" in kinds or any(admits_null(member) for member in schema.get("anyOf") or ())


def lost_defaults(listed, strict):
    """The arguments optional in the listing whose default strict mode never gives."""
    required = set(listed.get("required") or ())
    lost = []
    for name, schema in (listed.get("properties") or {}).items():
        if name in required or name not in (strict.get("required") or ()):
            continue
        if schema.get("default") is None and admits_null(strict["properties"][name]):
            continue  # no default, or None: the model sends null for it
        lost.append(name)
    return lost


async def verdicts(tools, messages):
    path = os.path.join(tempfile.mkdtemp(prefix="openai-"), "tools.json")
    with open(path, "w") as file:
        json.dump([{k: v for k, v in tool.items() if k != "_args"} for tool in tools], file)
    server = MCPServerStdio(
        params={"command": shutil.which("node"), "args": [SERVER, path]},
        name="srv",
        client_session_timeout_seconds=10,
    )
    try:
        await server.connect()
        functions = []
        for tool in tools:
            # One conversion at a time, so that each failure's message is the tool's own.
            messages.lines.clear()
            server.tool_filter = {"allowed_tool_names": [tool["name"]]}
            converted = await MCPUtil.get_function_tools(
                server, True, RunContextWrapper(None), Agent(name="a")
            )
            functions.append((tool["name"], converted[0], list(messages.lines)))
    except Exception as error:
        return [(tool["name"], error, []) for tool in tools]
    finally:
        await server.cleanup()
    return functions


async def main():
    messages = Messages()
    log = logging.getLogger("openai.agents")
    log.addHandler(messages)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    results = []
    tools = json.load(sys.stdin)
    listed = {tool["name"]: tool["inputSchema"] for tool in tools}
    for name, function, lines in await verdicts(tools, messages):
        if isinstance(function, Exception):
            message = f"{type(function).__name__}: {function}"
            results.append({"name": name, "verdict": "refused", "message": message})
        elif function.strict_json_schema:
            schema = function.params_json_schema
            results.append(
                {
                    "name": name,
                    "verdict": "strict",
                    "untyped": untyped(schema),
                    "formats": unsupported_formats(schema),
                    "defaults": lost_defaults(listed[name], schema),
                }
            )
        else:
            failed = "\n".join(line for line in lines if "strict mode" in line)
            results.append({"name": name, "verdict": "fallback", "message": failed})
    client = f"openai-agents@{version('openai-agents')} (mcp@{version('mcp')})"
    json.dump({"client": client, "results": results}, sys.stdout)


asyncio.run(main())
