"""What each setting left to its default comes to on this machine, as `config show` shows it: the
interpreter chosen, the job counts sized here, what "not set" means."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bootstrap.core.settings.settings import SettingRow, describe
from bootstrap.core.settings.settings_table import BY_NAME
from bootstrap.core.target.interpreter import WORKSPACE_VENV, path_python
from bootstrap.pipeline.host.jobs import size_for_settings

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext


@dataclass(frozen=True)
class SettingInUse:
    """A setting (core.settings.describe) with what it comes to here and a note on why."""

    row: SettingRow
    effective: str | int | bool | None  # None: nothing is used (not set, no default)
    note: str

    @property
    def shown(self) -> str:
        """The value as a line shows it: the setting's own, else what it comes to here."""
        if self.row.value is not None:
            return str(self.row.value)
        return "" if self.effective is None else str(self.effective)

    def to_json(self) -> dict[str, object]:
        return {
            "value": self.row.value,
            "source": str(self.row.source),
            "env": self.row.env,
            "effective": self.effective,
            "note": self.note,
        }


def settings_in_use(ctx: AppContext) -> list[SettingInUse]:
    """Every setting, its value and source, and what a default comes to for this workspace and machine."""
    return [_in_use(ctx, row) for row in describe(ctx.settings)]


def _in_use(ctx: AppContext, row: SettingRow) -> SettingInUse:
    if row.name == "python":
        return _python_in_use(ctx, row)
    if row.name in ("jobs", "link_jobs") and row.value is None:
        jobs = size_for_settings(ctx.settings)
        return SettingInUse(row, jobs.compile if row.name == "jobs" else jobs.link, f"sized here: {jobs.reason}")
    if row.value is None:
        default = BY_NAME[row.name].shown_default
        return SettingInUse(row, None, f"not set: {default}" if default else "not set")
    return SettingInUse(row, row.value, "")


def _python_in_use(ctx: AppContext, row: SettingRow) -> SettingInUse:
    """The interpreter setup installs into, and the one the reading commands would read when that differs."""
    executable, origin = ctx.target_choice()
    if origin != WORKSPACE_VENV:
        return SettingInUse(row, str(executable), f"chosen by {origin}")
    if executable.exists():
        return SettingInUse(row, str(executable), "the workspace venv")
    on_path = path_python()
    readers = (
        f"doctor, verify, compile, cache, env and run read {on_path} (the first python3 on PATH) until then"
        if on_path
        else "no python3 on PATH for doctor, verify and compile until then"
    )
    return SettingInUse(row, str(executable), f"the workspace venv setup creates; {readers}")
