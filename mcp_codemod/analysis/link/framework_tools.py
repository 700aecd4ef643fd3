"""The tools a framework registers by itself on the server of each of its application objects
(mcp-agent's `workflows-*` tools on an `MCPApp`'s server, analysis/facades.py): code outside the
project, so one unchecked registration of that server, which the unguarded-server rule reports until it is guarded.
When the framework's module that registers them is among the checked modules (mcp-agent's own
sources), its registrations are checked there like any others, and nothing is added here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath

from mcp_codemod.analysis.facades import FACADE_CLASSES
from mcp_codemod.analysis.facts import ModuleFacts, ServerRef
from mcp_codemod.analysis.subjects import ResolvedServer, UncheckedRegistration
from mcp_codemod.analysis.unchecked import Unchecked


def framework_tools(
    modules: list[ModuleFacts], resolve: Callable[[ModuleFacts, ServerRef], ResolvedServer]
) -> list[UncheckedRegistration]:
    """One unchecked registration per server that application objects of the modules are served
    on, at the first construction of an application object for it."""
    checked: dict[str, bool] = {}
    found: dict[object, UncheckedRegistration] = {}
    for module in modules:
        for line, ref in module.facade_servers:
            facade = FACADE_CLASSES[ref.facade]
            own = facade.own_tools_module
            if own not in checked:
                checked[own] = any(_is_module(other, own) for other in modules)
            if checked[own]:
                continue
            server = resolve(module, ref)
            key = server.origin or (server.description, server.swap)
            if key not in found:
                reason = f"{facade.title} registers {facade.own_tools} on this server"
                found[key] = UncheckedRegistration(
                    module.path, line, reason, Unchecked.FRAMEWORK_TOOLS, server
                )
    return list(found.values())


def _is_module(module: ModuleFacts, name: str) -> bool:
    """Whether the module is `name`: by its dotted name, or by its path, for a module in a folder
    without `__init__.py` (mcp-agent 0.2.6 ships `mcp_agent/server/` so), whose dotted name
    starts at that folder."""
    path = "/" + PurePath(module.path).as_posix()  # relative to the working directory, perhaps
    return module.module == name or path.endswith("/" + name.replace(".", "/") + ".py")
