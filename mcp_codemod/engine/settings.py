"""`[tool.mcp-codemod]` in pyproject.toml and the command line, merged into one frozen Settings."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from mcp_codemod.analysis.frameworks import Framework, framework_named

OUTPUT_FORMATS = ("text", "json", "github", "sarif")
DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pytest_cache",
    ".ruff_cache",
    ".mcp-codemod-cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "__pycache__",
    "_build",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class ConfigError(Exception):
    """A configuration or option the user has to correct; the message is one line."""


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None = None  # None: the rules enabled by default
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    output_format: str = "text"
    framework: Framework | None = None  # for servers whose framework cannot be resolved
    respect_gitignore: bool = True
    force_exclude: bool = False  # excludes and .gitignore apply to paths given explicitly too
    cache_dir: Path | None = None
    runtime_module: str | None = None  # the project's own copy of mcp_codemod.runtime
    config_file: Path | None = None

    @property
    def excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude


_KEYS = {
    "select",
    "ignore",
    "exclude",
    "extend-exclude",
    "output-format",
    "framework",
    "respect-gitignore",
    "force-exclude",
    "cache-dir",
    "runtime-module",
}


def find_config(start: Path) -> Path | None:
    """The closest pyproject.toml at or above `start` that has a `[tool.mcp-codemod]` table."""
    for directory in (start.resolve(), *start.resolve().parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and _table(candidate) is not None:
            return candidate
    return None


def _table(path: Path) -> dict | None:
    # Imported here, as the rules below: the command line reads OUTPUT_FORMATS at start-up.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, not {type(tool).__name__}")
    table = tool.get("mcp-codemod")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: `tool.mcp-codemod` must be a table")
    return table


def load_settings(
    config_file: Path | None, overrides: dict, search_from: Path | None = None
) -> Settings:
    """Settings from the config file (when not given, the closest one at or above `search_from`,
    by default the working directory), then the command-line options in `overrides` (None values
    are left out)."""
    path = config_file or find_config(search_from or Path.cwd())
    values: dict = {}
    if path is not None:
        if not path.is_file():
            raise ConfigError(f"{path}: no such configuration file")
        table = _table(path) or {}
        unknown = sorted(set(table) - _KEYS)
        if unknown:
            raise ConfigError(
                f"{path}: unknown option(s) in [tool.mcp-codemod]: {', '.join(unknown)}"
            )
        values = {key.replace("-", "_"): value for key, value in table.items()}
    values.update({key: value for key, value in overrides.items() if value is not None})
    return _validate(values, path)


def _validate(values: dict, path: Path | None) -> Settings:
    from mcp_codemod.rules import unknown_codes

    where = f"{path}: " if path else ""
    settings = Settings(config_file=path)
    for key in ("select", "ignore", "exclude", "extend_exclude"):
        if key in values:
            value = values[key]
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}`{key.replace('_', '-')}` must be a list of strings")
            if key in ("select", "ignore"):
                value = [v.strip().upper() for v in value if v.strip()]
                bad = unknown_codes(value)
                if bad:
                    raise ConfigError(f"{where}unknown rule code(s) in `{key}`: {', '.join(bad)}")
            settings = replace(settings, **{key: tuple(value)})
    if "output_format" in values:
        if values["output_format"] not in OUTPUT_FORMATS:
            raise ConfigError(
                f"{where}`output-format` must be one of {', '.join(OUTPUT_FORMATS)}, "
                f"not {values['output_format']!r}"
            )
        settings = replace(settings, output_format=values["output_format"])
    if "framework" in values:
        framework = framework_named(str(values["framework"]))
        if framework not in (Framework.MCP1, Framework.MCP2, Framework.FASTMCP):
            raise ConfigError(
                f"{where}`framework` must be one of mcp1, mcp2, fastmcp, not {values['framework']!r}"
            )
        settings = replace(settings, framework=framework)
    for key in ("respect_gitignore", "force_exclude"):
        if key in values:
            if not isinstance(values[key], bool):
                raise ConfigError(f"{where}`{key.replace('_', '-')}` must be true or false")
            settings = replace(settings, **{key: values[key]})
    if "cache_dir" in values:
        if not isinstance(values["cache_dir"], str | Path) or not str(values["cache_dir"]):
            raise ConfigError(f"{where}`cache-dir` must be a path")
        # Relative to the configuration file, as ruff's `cache-dir` is.
        base = path.parent if path is not None else Path.cwd()
        settings = replace(settings, cache_dir=base / values["cache_dir"])
    if "runtime_module" in values:
        module = values["runtime_module"]
        if not isinstance(module, str) or not _DOTTED.fullmatch(module):
            raise ConfigError(f"{where}`runtime-module` must be a dotted module name")
        if module.split(".")[0] == "mcp_codemod":
            raise ConfigError(f"{where}`runtime-module` names the project's own copy, not {module}")
        settings = replace(settings, runtime_module=module)
    return settings
