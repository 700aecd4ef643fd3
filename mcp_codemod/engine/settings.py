"""`[tool.mcp-codemod]` in pyproject.toml and the command line, merged into one frozen Settings."""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from mcp_codemod.analysis.frameworks import Framework, framework_named

OUTPUT_FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit")
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


# Larger files are not parsed (each is reported as not checked): a parse holds about a hundred
# times the file's size, and the largest hand-written or generated modules stay well below this.
DEFAULT_MAX_FILE_SIZE = 10 * 2**20

_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
CONFIG_TABLE = "[tool.mcp-codemod]"
# The command-line options that override a setting, for messages that blame the option.
_OPTIONS = {
    "select": "--select",
    "extend_select": "--extend-select",
    "ignore": "--ignore",
    "extend_exclude": "--extend-exclude",
    "framework": "--framework",
    "output_format": "--output-format",
    "force_exclude": "--force-exclude",
    "max_file_size": "--max-file-size",
}


class ConfigError(Exception):
    """A configuration or option the user has to correct; the message is one line that names
    the file or the option it comes from."""


@dataclass(frozen=True)
class RuleSelection:
    """One layer of rule selection, as ruff layers them: the configuration file, then the
    command line. `select` (when given) replaces what the layers before chose; `extend_select`
    adds; `ignore` removes."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@dataclass(frozen=True)
class PerFileIgnore:
    """`"pattern" = ["CODE", ...]` of `per-file-ignores`, as ruff matches it: the glob against
    the file's name, or, made absolute against the configuration file's directory, against the
    file's absolute path; `!pattern` applies to the files that do not match."""

    pattern: str
    codes: tuple[str, ...]
    root: Path

    @property
    def negated(self) -> bool:
        return self.pattern.startswith("!")

    @cached_property
    def _matchers(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        glob = self.pattern[1:] if self.negated else self.pattern
        absolute = os.path.join(os.path.abspath(self.root), glob)
        return re.compile(fnmatch.translate(glob)), re.compile(fnmatch.translate(absolute))

    def applies_to(self, absolute_path: str) -> bool:
        by_name, by_path = self._matchers
        matched = bool(
            by_name.match(os.path.basename(absolute_path)) or by_path.match(absolute_path)
        )
        return matched != self.negated

    def ignores(self, code: str) -> bool:
        return any(c == "ALL" or code.startswith(c) for c in self.codes)


@dataclass(frozen=True)
class Settings:
    rule_layers: tuple[RuleSelection, ...] = ()  # the configuration's, then the command line's
    per_file_ignores: tuple[PerFileIgnore, ...] = ()  # per-file-ignores + extend-per-file-ignores
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    output_format: str = "text"
    framework: Framework | None = None  # for servers whose framework cannot be resolved
    respect_gitignore: bool = True
    force_exclude: bool = False  # excludes and .gitignore apply to paths given explicitly too
    cache_dir: Path | None = None
    runtime_module: str | None = None  # the project's own copy of mcp_codemod.runtime
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # bytes; a larger file is reported, not parsed
    config_file: Path | None = None
    # The project root: the configuration file's directory (or the working directory without
    # one). Relative excludes and per-file-ignores patterns are resolved against it, as ruff's.
    root: Path = field(default_factory=Path.cwd)

    @property
    def excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude

    @property
    def rule_codes(self) -> tuple[str, ...]:
        from mcp_codemod.rules import layered_rules

        layers = [(layer.select, layer.extend_select, layer.ignore) for layer in self.rule_layers]
        return tuple(rule.code for rule in layered_rules(layers))

    def ignored_in(self, absolute_path: str) -> frozenset[str] | None:
        """The codes `per-file-ignores` turns off in a file (None: none)."""
        matching = [entry for entry in self.per_file_ignores if entry.applies_to(absolute_path)]
        if not matching:
            return None
        return frozenset(code for entry in matching for code in entry.codes)


_KEYS = {
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "extend-per-file-ignores",
    "exclude",
    "extend-exclude",
    "output-format",
    "framework",
    "respect-gitignore",
    "force-exclude",
    "cache-dir",
    "runtime-module",
    "max-file-size",
}


def has_table(path: Path) -> bool:
    """Whether `path` is a pyproject.toml with a `[tool.mcp-codemod]` table."""
    return path.is_file() and _table(path) is not None


def find_config(start: Path) -> Path | None:
    """The closest pyproject.toml at or above `start` that has a `[tool.mcp-codemod]` table."""
    for directory in (start.resolve(), *start.resolve().parents):
        candidate = directory / "pyproject.toml"
        if has_table(candidate):
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
    except (RecursionError, MemoryError):
        # tomllib reads nested arrays and inline tables recursively.
        raise ConfigError(f"{path}: cannot read: nested too deeply") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, not {type(tool).__name__}")
    table = tool.get("mcp-codemod")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: `tool.mcp-codemod` must be a table")
    return table


class SettingsResolver:
    """The settings of each file, as ruff resolves hierarchical settings: the closest
    pyproject.toml with a `[tool.mcp-codemod]` table at or above the file's directory (not the
    working directory's), or the one `--config` names for every file; then the command line's
    options. A file with no configuration above it gets the defaults, with the working
    directory as its project root."""

    def __init__(self, config_file: Path | None, overrides: dict) -> None:
        self.config_file = config_file
        if config_file is not None and not config_file.is_file():
            raise ConfigError(f"--config {config_file}: no such configuration file")
        self.overrides = _validate_options(
            {key: value for key, value in overrides.items() if value is not None}
        )
        self._by_config: dict[Path | None, Settings] = {}
        self._config_in: dict[str, Path | None] = {}  # the configuration of each directory

    def settings_at(self, directory: str | Path) -> Settings:
        """The settings of the files in `directory`."""
        if self.config_file is not None:
            return self._settings_of(self.config_file)
        return self._settings_of(self._nearest(os.path.abspath(directory)))

    def settings_of_file(self, path: str | Path) -> Settings:
        # As text: asked of every file of a run, where a `Path` for the file and its directory
        # cost more than finding the settings.
        return self.settings_at(os.path.dirname(os.path.abspath(path)))

    def run_settings(self) -> Settings:
        """The settings of the run itself (its output format): the working directory's, as
        ruff takes them."""
        return self.settings_at(Path.cwd())

    def _nearest(self, directory: str) -> Path | None:
        walked = []
        found: Path | None = None
        here = directory
        while True:
            if here in self._config_in:
                found = self._config_in[here]
                break
            walked.append(here)
            candidate = Path(here, "pyproject.toml")
            if has_table(candidate):
                found = candidate
                break
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
        for seen in walked:
            self._config_in[seen] = found
        return found

    def _settings_of(self, path: Path | None) -> Settings:
        if path not in self._by_config:
            self._by_config[path] = _settings(path, self.overrides)
        return self._by_config[path]


def load_settings(config_file: Path | None, overrides: dict) -> Settings:
    """Settings from the config file (found from the working directory when not given), then
    the command-line options in `overrides` (None values are left out)."""
    return SettingsResolver(config_file, overrides).run_settings()


def _settings(path: Path | None, overrides: dict) -> Settings:
    values: dict = {}
    if path is not None:
        table = _table(path) or {}
        unknown = sorted(set(table) - _KEYS)
        if unknown:
            raise ConfigError(f"{path}: unknown option(s) in {CONFIG_TABLE}: {', '.join(unknown)}")
        values = _validate(
            {key.replace("-", "_"): value for key, value in table.items()},
            lambda _key: f"{path}: ",
            path.parent,
        )
    root = path.parent.resolve() if path is not None else Path.cwd()
    configured = RuleSelection(
        values.pop("select", None), values.pop("extend_select", ()), values.pop("ignore", ())
    )
    command_line = RuleSelection(
        overrides.get("select"), overrides.get("extend_select", ()), overrides.get("ignore", ())
    )
    per_file = values.pop("per_file_ignores", {}) | values.pop("extend_per_file_ignores", {})
    settings = Settings(
        rule_layers=(configured, command_line),
        per_file_ignores=tuple(
            PerFileIgnore(pattern, codes, root) for pattern, codes in per_file.items()
        ),
        config_file=path,
        root=root,
    )
    options = {
        key: value
        for key, value in overrides.items()
        if key not in ("select", "extend_select", "ignore")
    }
    return replace(settings, **{**values, **options})


def _validate_options(values: dict) -> dict:
    """The command line's overrides, checked; an error names the option."""
    return _validate(values, lambda key: f"option {_OPTIONS.get(key, key)}: ", Path.cwd())


def _validate(values: dict, where: Callable[[str], str], base: Path) -> dict:
    """The fields of Settings that `values` set, checked. `where(key)`: the prefix of an error
    message, naming the file or the option; `base`: what relative paths are relative to."""
    from mcp_codemod.rules import unknown_codes

    checked: dict = {}
    for key in ("select", "extend_select", "ignore", "exclude", "extend_exclude"):
        if key in values:
            value = values[key]
            name = key.replace("_", "-")
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where(key)}`{name}` must be a list of strings")
            if key in ("select", "extend_select", "ignore"):
                value = [v.strip().upper() for v in value if v.strip()]
                bad = unknown_codes(value)
                if bad:
                    raise ConfigError(
                        f"{where(key)}unknown rule code(s) in `{name}`: {', '.join(bad)}"
                    )
            checked[key] = tuple(value)
    for key in ("per_file_ignores", "extend_per_file_ignores"):
        if key in values:
            table = values[key]
            name = key.replace("_", "-")
            if not isinstance(table, dict) or not all(
                isinstance(codes, list) and all(isinstance(c, str) for c in codes)
                for codes in table.values()
            ):
                raise ConfigError(f"{where(key)}`{name}` must be a table of glob = [rule codes]")
            entries = {}
            for pattern, codes in table.items():
                codes = [c.strip().upper() for c in codes if c.strip()]
                bad = unknown_codes(codes)
                if bad:
                    raise ConfigError(
                        f"{where(key)}unknown rule code(s) in `{name}` {pattern!r}: {', '.join(bad)}"
                    )
                entries[pattern] = tuple(codes)
            checked[key] = entries
    if "output_format" in values:
        if values["output_format"] not in OUTPUT_FORMATS:
            raise ConfigError(
                f"{where('output_format')}`output-format` must be one of "
                f"{', '.join(OUTPUT_FORMATS)}, not {values['output_format']!r}"
            )
        checked["output_format"] = values["output_format"]
    if "framework" in values:
        framework = framework_named(str(values["framework"]))
        if framework not in (Framework.MCP1, Framework.MCP2, Framework.FASTMCP):
            raise ConfigError(
                f"{where('framework')}`framework` must be one of mcp1, mcp2, fastmcp, "
                f"not {values['framework']!r}"
            )
        checked["framework"] = framework
    for key in ("respect_gitignore", "force_exclude"):
        if key in values:
            if not isinstance(values[key], bool):
                raise ConfigError(f"{where(key)}`{key.replace('_', '-')}` must be true or false")
            checked[key] = values[key]
    if "cache_dir" in values:
        if not isinstance(values["cache_dir"], str | Path) or not str(values["cache_dir"]):
            raise ConfigError(f"{where('cache_dir')}`cache-dir` must be a path")
        # Relative to the configuration file, as ruff's `cache-dir` is.
        checked["cache_dir"] = base / values["cache_dir"]
    if "runtime_module" in values:
        module = values["runtime_module"]
        if not isinstance(module, str) or not _DOTTED.fullmatch(module):
            raise ConfigError(
                f"{where('runtime_module')}`runtime-module` must be a dotted module name"
            )
        if module.split(".")[0] == "mcp_codemod":
            raise ConfigError(
                f"{where('runtime_module')}`runtime-module` names the project's own copy, "
                f"not {module}"
            )
        checked["runtime_module"] = module
    if "max_file_size" in values:
        size = values["max_file_size"]
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ConfigError(
                f"{where('max_file_size')}`max-file-size` must be a positive number of bytes"
            )
        checked["max_file_size"] = size
    return checked
