"""`check --show-settings`: the settings a file is checked with, and the file they come from."""

from __future__ import annotations

from pathlib import Path

from mcp_codemod.engine.settings import Settings


def describe_settings(path: Path, settings: Settings) -> str:
    lines = [
        f"Resolved settings for: {path}",
        f"Settings path: {settings.config_file or '(none: the defaults)'}",
        f"Project root: {settings.root}",
        "",
        f"rules = {list(settings.rule_codes)}",
    ]
    for number, layer in enumerate(settings.rule_layers):
        source = "configuration" if number == 0 else "command line"
        lines.append(
            f"  {source}: select = {None if layer.select is None else list(layer.select)}, "
            f"extend-select = {list(layer.extend_select)}, ignore = {list(layer.ignore)}"
        )
    lines.append("per-file-ignores = {")
    lines.extend(
        f"  {entry.pattern!r} = {list(entry.codes)}," for entry in settings.per_file_ignores
    )
    lines.append("}")
    framework = None if settings.framework is None else settings.framework.value
    lines += [
        f"exclude = {list(settings.exclude)}",
        f"extend-exclude = {list(settings.extend_exclude)}",
        f"respect-gitignore = {str(settings.respect_gitignore).lower()}",
        f"force-exclude = {str(settings.force_exclude).lower()}",
        f"framework = {framework}",
        f"output-format = {settings.output_format}",
        f"cache-dir = {settings.cache_dir}",
        f"runtime-module = {settings.runtime_module}",
    ]
    return "\n".join(lines) + "\n"
