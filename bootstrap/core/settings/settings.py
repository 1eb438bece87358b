"""One frozen settings model, loaded with a fixed precedence.

defaults < how the workspace was set up (<workspace>/state/settings.json, core.remembered)
         < tritondev.toml (or [tool.tritondev] in pyproject.toml) in the workspace
         < TRITONDEV_* environment variables < command-line options.

Each setting is declared once, as a field of `Settings`: its type, default, help, choices, whether
it is secret and whether tritondev.toml may hold it. The table `SETTINGS` (read by `config show`,
the loader and the command-line options of bootstrap/commands/options.py) is derived from those
fields. Every value remembers where it came from, so `tritondev config show` can say so. Unknown
keys are errors with a "did you mean" suggestion: a typo in a config file must never be ignored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.core.errors import ConfigError
from bootstrap.core.redact import redact
from bootstrap.core.settings import remembered
from bootstrap.core.settings.settings_file import read_workspace_file
from bootstrap.core.settings.settings_table import (
    BY_NAME,
    CONFIG_FILE,
    DEFAULT_SOURCE,
    ENV_PREFIX,
    SETTINGS,
    WORKSPACE_ENV,
    Settings,
    SettingSource,
    SourceKind,
)
from bootstrap.core.settings.settings_values import coerce
from bootstrap.core.suggest import did_you_mean

# Variables of tritondev's own scripts, not settings. The CLI starts with the environment they were
# given (shell/tritondev execs it), so it accepts them and leaves them alone.
SCRIPT_VARIABLES = {
    "TRITONDEV_TOOL_VENV": "shell/tritondev: where its private venv lives (default: <checkout>/.venv-tool)",
    "TRITONDEV_BOOTSTRAP_PYTHON": "shell/tritondev: the Python >= 3.10 its venv is built with (default: the one it"
    " was built with, at first python3)",
    "TRITONDEV_TEST_PYTHON": "shell/test: the Python its test venv is built with (default: python3)",
    "TRITONDEV_TEST_SCRATCH": "shell/test: where the tests' temporary files go, memory (a tmpfs of the run's"
    " own, the default) or disk (TMPDIR as it is)",
    "TRITONDEV_GPU_OUT": "shell/test-gpu: where the GPU tier writes its figures",
    "TRITONDEV_CAPTURE": "tritondev repro capture: what the capture hook in the captured command records",
}


def _default_workspace() -> Path:
    """The nearest folder upward from the current directory holding a tritondev.toml, else ~/tritondev."""
    here = Path.cwd()
    for folder in (here, *here.parents):
        # Anything by that name (a broken link, a FIFO) marks the folder: loading it then says what is wrong.
        if os.path.lexists(folder / CONFIG_FILE):
            return folder
    return Path.home() / "tritondev"


def load_settings(
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Resolve every setting. `cli` holds only options the user actually gave (None = not given)."""
    cli = {k: v for k, v in (cli or {}).items() if v is not None}
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    sources: dict[str, SettingSource] = {}

    for key in cli:
        if key not in BY_NAME:
            raise ConfigError(f"unknown setting '{key}'{did_you_mean(key, list(BY_NAME))}")

    # The workspace decides where the file is, so it is resolved first and cannot come from the file.
    if "workspace" in cli:
        workspace = coerce(BY_NAME["workspace"], cli["workspace"], "--workspace")
        sources["workspace"] = SettingSource.of(SourceKind.CLI, "--workspace")
    elif environ.get(WORKSPACE_ENV):
        workspace = coerce(BY_NAME["workspace"], environ[WORKSPACE_ENV], WORKSPACE_ENV)
        sources["workspace"] = SettingSource.of(SourceKind.ENV, WORKSPACE_ENV)
    else:
        workspace = _default_workspace()
    values["workspace"] = workspace

    # How the workspace was set up (core.remembered): above the defaults, below everything else.

    kept, kept_source = remembered.read(workspace)
    for key, raw in kept.items():
        if key in BY_NAME and key not in remembered.NOT_REMEMBERED:  # another version's keys are left alone
            values[key] = coerce(BY_NAME[key], raw, kept_source)
            sources[key] = kept_source

    file_values, file_path = read_workspace_file(workspace)
    file_keys = [s.name for s in SETTINGS if s.in_file]
    for key, raw in file_values.items():
        norm = key.replace("-", "_")
        if norm not in BY_NAME or not BY_NAME[norm].in_file:
            hint = " (the workspace is chosen by --workspace or TRITONDEV_WORKSPACE)" if norm == "workspace" else ""
            raise ConfigError(
                f"unknown key '{key}' in {file_path}{did_you_mean(norm, file_keys)}{hint}",
                fix=f"remove or rename '{key}'; valid keys: {', '.join(file_keys)}",
            )
        values[norm] = coerce(BY_NAME[norm], raw, str(file_path))
        sources[norm] = SettingSource.of(SourceKind.FILE, str(file_path))

    _environment_and_options(values, sources, cli, environ)
    remembered.drop_replaced(values, sources)
    both_given = all(sources.get(n, DEFAULT_SOURCE).kind is SourceKind.CLI for n in ("torch_ref", "triton_commit"))
    if values.get("torch_ref") and values.get("triton_commit") and both_given:
        raise ConfigError("--torch-ref and --triton-commit exclude each other", fix="give only one of them")
    _refuse_a_commit_with_a_clone(values, sources)
    return Settings(**values, sources=sources)


def _environment_and_options(
    values: dict[str, Any], sources: dict[str, SettingSource], cli: Mapping[str, Any], environ: Mapping[str, str]
) -> None:
    """TRITONDEV_* variables, then command-line options, over what the lower levels set."""
    known_env = {s.env_var for s in SETTINGS} | set(SCRIPT_VARIABLES)
    for var in environ:
        if var.startswith(ENV_PREFIX) and var not in known_env:
            raise ConfigError(
                f"unknown environment variable {var}{did_you_mean(var, sorted(known_env))}",
                fix=f"unset {var}",
            )
    for setting in SETTINGS:
        if setting.name == "workspace":
            continue
        if setting.env_var in environ:
            values[setting.name] = coerce(setting, environ[setting.env_var], setting.env_var)
            sources[setting.name] = SettingSource.of(SourceKind.ENV, setting.env_var)
        if setting.name in cli:
            values[setting.name] = coerce(setting, cli[setting.name], setting.option)
            sources[setting.name] = SettingSource.of(SourceKind.CLI, setting.option)


def _refuse_a_commit_with_a_clone(values: dict[str, Any], sources: dict[str, SettingSource]) -> None:
    """An adopted clone is built at its own HEAD, so it and a Triton commit (or torch ref) are one
    choice: the one given at the higher level (option > variable > file > remembered) wins, and both
    at the same level ask for two things at once (exit 2)."""
    if not values.get("triton_src"):
        return
    rank = {SourceKind.CLI: 4, SourceKind.ENV: 3, SourceKind.FILE: 2, SourceKind.WORKSPACE: 1}
    mine = rank.get(sources.get("triton_src", DEFAULT_SOURCE).kind, 0)
    for name in ("triton_commit", "torch_ref"):
        if not values.get(name):
            continue
        theirs = rank.get(sources.get(name, DEFAULT_SOURCE).kind, 0)
        option = "--" + name.replace("_", "-")
        if theirs == mine:
            raise ConfigError(
                f"--triton-src builds your clone at its own HEAD; {option} chooses another commit",
                fix=f"give only one of them (check out that commit in your clone yourself, or drop"
                f" --triton-src to let tritondev make a checkout of {option}'s commit)",
            )
        loser = name if theirs < mine else "triton_src"
        del values[loser], sources[loser]
        if loser == "triton_src":
            return


@dataclass(frozen=True)
class SettingRow:
    """One setting as `config show` shows it: its value (secrets masked), where it came from, its variable."""

    name: str
    value: str | int | bool | None
    source: SettingSource
    env: str
    help: str


def describe(settings: Settings, redact_secrets: bool = True) -> list[SettingRow]:
    """Every setting with its value and where it came from (for `config show`)."""

    rows = []
    for setting in SETTINGS:
        value = getattr(settings, setting.name)
        shown: str | int | bool | None = str(value) if isinstance(value, Path) else value
        # Not only the secret settings: a repository URL may carry a token too.
        if redact_secrets and isinstance(shown, str):
            shown = redact(shown)
        rows.append(SettingRow(setting.name, shown, settings.source_of(setting.name), setting.env_var, setting.help))
    return rows
