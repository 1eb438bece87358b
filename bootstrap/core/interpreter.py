"""The target Python environment: the one tritondev inspects or installs into.

Never tritondev's own interpreter unless the user points at it. Chosen as: --python / TRITONDEV_PYTHON
(an interpreter or an environment folder) > the active virtualenv ($VIRTUAL_ENV) > the active conda
environment ($CONDA_PREFIX) > the workspace's own venv (<workspace>/venv, created by setup).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bootstrap import inside
from bootstrap.core.errors import CommandFailed, ConfigError, ToolMissing
from bootstrap.core.runner import Runner
from bootstrap.inside import answers

WORKSPACE_VENV = "workspace venv"  # the origin of the default target



@dataclass(frozen=True)
class TargetPython:
    executable: Path
    origin: str  # how it was chosen, e.g. "--python", "$VIRTUAL_ENV", "workspace venv"
    version: str
    prefix: Path
    base_prefix: Path
    purelib: Path
    platlib: Path
    include: Path
    scripts: Path

    @property
    def is_venv(self) -> bool:
        return self.prefix != self.base_prefix or (self.prefix / "conda-meta").is_dir()

    @property
    def site_packages(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys((self.purelib, self.platlib)))

    def to_json(self) -> dict[str, object]:
        return {
            "executable": str(self.executable),
            "origin": self.origin,
            "version": self.version,
            "prefix": str(self.prefix),
            "is_venv": self.is_venv,
            "site_packages": [str(p) for p in self.site_packages],
        }


def interpreter_in(env_dir: Path) -> Path:
    """The python of an environment folder (venv or conda)."""
    for candidate in ("bin/python3", "bin/python", "python.exe"):
        path = env_dir / candidate
        if path.exists():
            return path
    return env_dir / "bin" / "python"


def choose_interpreter(
    python: Path | None, workspace_venv: Path, environ: dict[str, str] | None = None
) -> tuple[Path, str]:
    """Which interpreter the settings point at, without running it. Pure: unit-testable."""
    environ = dict(os.environ) if environ is None else environ
    if python is not None:
        return (interpreter_in(python) if python.is_dir() else python), "--python"
    if environ.get("VIRTUAL_ENV"):
        return interpreter_in(Path(environ["VIRTUAL_ENV"])), "$VIRTUAL_ENV"
    if environ.get("CONDA_PREFIX"):
        return interpreter_in(Path(environ["CONDA_PREFIX"])), "$CONDA_PREFIX"
    return interpreter_in(workspace_venv), WORKSPACE_VENV


def inspect_interpreter(executable: Path, origin: str, runner: Runner) -> TargetPython:
    """Run the interpreter once to read where it installs packages; clear errors when it is not one."""
    if not executable.exists():
        raise ConfigError(
            f"target Python {executable} does not exist ({origin})",
            fix="pass --python with a Python interpreter or an environment folder, or run `tritondev setup`"
            " to create the workspace venv",
        )
    if not os.access(executable, os.X_OK) or executable.is_dir():
        raise ConfigError(
            f"target Python {executable} is not an executable interpreter ({origin})",
            fix="pass --python with a Python interpreter (e.g. /path/to/venv/bin/python)",
        )
    try:
        _, data = inside.run_json(runner, executable, "tritondev_interpreter.py", step="probe-python", timeout=60,
                                  isolated=True)
        facts = answers.interpreter(data)  # types checked: the answer is outside input
    except (CommandFailed, ToolMissing, inside.BadAnswer):
        raise ConfigError(
            f"{executable} is not a working Python interpreter ({origin})",
            fix="pass --python with a Python interpreter (e.g. /path/to/venv/bin/python)",
        ) from None
    return TargetPython(
        executable=executable,
        origin=origin,
        version=facts.version,
        prefix=Path(facts.prefix),
        base_prefix=Path(facts.base_prefix),
        purelib=Path(facts.purelib),
        platlib=Path(facts.platlib),
        include=Path(facts.include),
        scripts=Path(facts.scripts),
    )
