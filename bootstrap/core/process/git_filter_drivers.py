"""The filter drivers defined by the config git reads where a command runs, listed once per place and run.

Every git command tritondev runs turns these drivers off (command_env's `git_hardening`), so each needs
the names first. Listing them takes a git command of its own; the runner, the one module that starts
processes, hands over how to run it. A config the user edits between two runs in one process is read
afresh (bootstrap.core.run_state).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core import run_state
from bootstrap.core.process import command_env

# Runs a git command (argv, cwd, env) and returns its exit status and stdout.
ListConfig = Callable[[Sequence[str], Path | str | None, dict[str, str]], tuple[int, str]]


@dataclass
class _GitDrivers:
    """The filter drivers git listed this run, by place (bootstrap.core.run_state): a config the user edits
    between two runs in one process is read afresh."""

    listed: dict[tuple[str | None, ...], tuple[str, ...]] = field(default_factory=dict)


_DRIVERS_LOCK = threading.Lock()


def filter_drivers_where(
    args: tuple[str, ...], cwd: Path | str | None, env: dict[str, str], list_config: ListConfig
) -> tuple[str, ...]:
    """The filter drivers defined by the config git reads where `args` runs (the repository's, the user's),
    listed by git once per place and process; where no repository is yet (a clone's), the user's."""
    key = (
        os.path.abspath(cwd or os.getcwd()),
        *command_env.git_global_options(args),
        env.get("HOME"),
        env.get("XDG_CONFIG_HOME"),
    )
    known = run_state.part(_GitDrivers).listed
    with _DRIVERS_LOCK:
        if key in known:
            return known[key]
    quiet = command_env.hardened(env, ())
    returncode, listing = list_config(command_env.driver_listing(args), cwd, quiet)
    if returncode not in (0, 1):  # not a repository (yet): the user's own config
        _, listing = list_config(command_env.driver_listing(args, global_only=True), None, quiet)
    with _DRIVERS_LOCK:
        return known.setdefault(key, command_env.filter_drivers(listing))
