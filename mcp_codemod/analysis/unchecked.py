"""Why the analysis cannot check a registration's tool (`subjects.UncheckedRegistration.kind`)."""

from __future__ import annotations

from enum import Enum


class Unchecked(str, Enum):
    UNKNOWN_FRAMEWORK = "unknown-framework"  # the server's class cannot be resolved
    HELPER_PARAMETER = "helper-parameter"  # the tool is a parameter of a project helper
    LOOP_VARIABLE = "loop-variable"  # the tool comes from a loop over what cannot be resolved
    THIRD_PARTY = "third-party"  # imported from outside the project, source not found
    GENERATED_SIGNATURE = "generated-signature"  # `fn.__signature__ = ...` at run time
    EXEC_TEXT = "exec-text"  # in a file exec'd from a text that may not be the file's
    NOT_FOUND = "not-found"  # any other expression the analysis cannot follow
    # Tools the framework registers by itself on the server, from code outside the project
    # (mcp-agent's `workflows-*`, analysis/facades.py)
    FRAMEWORK_TOOLS = "framework-tools"
    # A parameter whose annotation names what the analysis cannot resolve (a third-party name
    # whose source is not found, a `TypeVar`, a string it cannot evaluate, a type made at run
    # time): what the SDK does with its text is unknown.
    UNRESOLVED_ANNOTATION = "unresolved-annotation"
    # The server, or its `tool`/`add_tool`, handed to code the analysis does not follow
    # (`tool = mcp.tool`, `getattr(mcp, "tool")`, `return mcp.tool(name=name)`): whatever is
    # registered through it is unchecked.
    UNKNOWN_USE = "unknown-use"
    # A registration on a server of unknown framework, counted against each pre-parsing server
    # the checked tree builds (it may be any of them).
    UNTIED = "untied"
    # A question that needed more work than its budget (analysis/link/work.py): what it would have
    # decided may be a registration on any server.
    OVER_BUDGET = "over-budget"
