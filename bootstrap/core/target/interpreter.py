"""The target Python environment: the one tritondev inspects or installs into.

Never tritondev's own interpreter unless the user points at it. Chosen as: --python / TRITONDEV_PYTHON
(an interpreter or an environment folder) > the active virtualenv ($VIRTUAL_ENV) > the active conda
environment ($CONDA_PREFIX) > the workspace's own venv (<workspace>/venv, created by setup).

Commands that only read the target (doctor, verify, compile, cache, env, run) go one step further
when that venv does not exist: the first `python3` on PATH, as in CUDA containers and clusters where
torch and Triton live in the system's interpreter and no environment is activated. Commands that
install (setup) keep to the workspace venv, so that they never write into a system interpreter
unasked.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import CommandFailed, ConfigError, ToolMissing
from bootstrap.core.process import live_children
from bootstrap.core.process.runner import Runner
from bootstrap.core.target import inside
from bootstrap.core.target import inside_answers as answers

WORKSPACE_VENV = "workspace venv"  # the origin of the default target
PATH_PYTHON = "first python3 on PATH"  # the origin of the reading commands' last resort
# How the python setting was given (Settings.source_of) -> the origin shown to the user.
_ORIGIN_OF_SOURCE = {
    "cli": "--python",
    "env": "$TRITONDEV_PYTHON",
    "file": "python in {where}",
    "workspace": "python remembered from setup ({where})",
}


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


def origin_of_setting(source: str) -> str:
    """How a python setting from `source` (Settings.source_of: "cli:--python", "file:<path>", ...) is named."""
    kind, _, where = source.partition(":")
    return _ORIGIN_OF_SOURCE.get(kind, "--python").format(where=where)


def choose_interpreter(
    python: Path | None,
    workspace_venv: Path,
    environ: dict[str, str] | None = None,
    *,
    python_source: str = "cli:--python",
    path_python: Path | None = None,
) -> tuple[Path, str]:
    """Which interpreter the settings point at, without running it. Pure but for two existence checks.

    path_python: the reading commands' last resort (first_python_on_path), taken when nothing else
    is given and the workspace venv does not exist; None (installing commands) keeps the venv.
    """
    environ = dict(os.environ) if environ is None else environ
    if python is not None:
        return (interpreter_in(python) if python.is_dir() else python), origin_of_setting(python_source)
    if environ.get("VIRTUAL_ENV"):
        return interpreter_in(Path(environ["VIRTUAL_ENV"])), "$VIRTUAL_ENV"
    if environ.get("CONDA_PREFIX"):
        return interpreter_in(Path(environ["CONDA_PREFIX"])), "$CONDA_PREFIX"
    venv_python = interpreter_in(workspace_venv)
    if path_python is not None and not venv_python.exists():
        return path_python, PATH_PYTHON
    return venv_python, WORKSPACE_VENV


# Distributions whose presence makes an environment a user's (dist-info names, normalized).
USER_PACKAGES = ("torch", "triton", "pytorch_triton")


def own_interpreter_dirs() -> tuple[Path, ...]:
    """The bin folder of the virtualenv tritondev itself runs in (its private .venv-tool), if any.

    A python3 there is tritondev's, not the user's. When tritondev runs in a plain (non-venv)
    interpreter, or in a venv holding torch or Triton, it was installed into the user's own Python,
    which then is a fair target.
    """
    import sys
    import sysconfig

    if sys.prefix == sys.base_prefix:
        return ()
    # A venv that holds torch or Triton is the user's, even when tritondev runs in it too (installed
    # into the user's environment, as in CUDA containers whose venv is on PATH but not activated).
    site = Path(sysconfig.get_paths()["purelib"])
    if any(any(site.glob(f"{name}-*.dist-info")) for name in USER_PACKAGES):
        return ()
    return tuple(dict.fromkeys((Path(sys.executable).parent, Path(sys.prefix) / "bin")))


def first_python_on_path(path: str, skip_dirs: tuple[Path, ...] = ()) -> Path | None:
    """The first executable `python3` in the folders of `path` (a PATH value), not in `skip_dirs`.

    Folders are compared resolved (the same folder reached through a link), interpreters are not:
    a venv's python3 is a link to the system's, and both must stay distinguishable.
    """
    skipped = {os.path.realpath(d) for d in skip_dirs}
    for entry in path.split(os.pathsep):
        if not entry:
            continue
        candidate = Path(entry) / "python3"
        if os.path.realpath(entry) in skipped:
            continue
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate if candidate.is_absolute() else candidate.absolute()
    return None


def path_python() -> Path | None:
    """The first python3 on this process's PATH that is not tritondev's own: what a reading command
    falls back to, and what `config show` and setup name."""
    return first_python_on_path(os.environ.get("PATH", ""), own_interpreter_dirs())


def why_chosen(origin: str, workspace_venv: Path) -> str:
    """One sentence saying why the target is the one it is (for notes and --json)."""
    if origin == PATH_PYTHON:
        return (
            f"no --python, no active virtualenv or conda env, and no workspace venv at {workspace_venv}: "
            "the first python3 on PATH (not tritondev's own)"
        )
    if origin == WORKSPACE_VENV:
        return "no --python and no active virtualenv or conda env: the workspace venv"
    if origin in ("$VIRTUAL_ENV", "$CONDA_PREFIX"):
        return f"the active environment ({origin})"
    return f"given by {origin}"


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
        _, data = inside.run_json(
            runner, executable, "tritondev_interpreter.py", step="probe-python", timeout=60, isolated=True
        )
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


@dataclass
class Target:
    """The target interpreter one command chose: where it is and how it was chosen, and what it is, probed
    at most once (again only after `forget`: setup created it). Shared by every part of the command that
    asks, so that none probes it a second time."""

    executable: Path
    origin: str
    _probed: TargetPython | None = field(default=None, repr=False, compare=False)
    _ahead: Future[TargetPython] | None = field(default=None, repr=False, compare=False)

    @property
    def probed(self) -> TargetPython | None:
        """What the probe found, if it already ran (never probes)."""
        return self._probed

    def is_missing_venv(self) -> bool:
        """The target is the workspace venv and it does not exist yet (setup creates it)."""
        return self.origin == WORKSPACE_VENV and not self.executable.exists()

    def python(self, runner: Runner) -> TargetPython:
        """The target inspected (ConfigError when it is not usable); the probe keeps no log: judging an
        input must not create the workspace's log folder."""
        if self._probed is None:
            ahead, self._ahead = self._ahead, None
            # A probe started ahead is awaited, and its error raised here, where a probe of its own would raise it.
            probed = ahead.result() if ahead is not None else self._probe(runner)
            self._probed = probed
        return self._probed

    def probe_ahead(self, runner: Runner) -> None:
        """Start the probe now, beside what the caller does next (setup reads its pins and checkout with git
        meanwhile); `python` awaits it. Nothing happens when the probe ran or was started already."""
        if self._probed is None and self._ahead is None:
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="probe-python")
            # Bound to this command: if it ends first (bad pins, a Ctrl-C), the probe is killed, not awaited.
            self._ahead = pool.submit(live_children.in_background_of_this_command(self._probe), runner)
            pool.shutdown(wait=False)  # its one thread ends with the probe

    def _probe(self, runner: Runner) -> TargetPython:
        return inspect_interpreter(self.executable, self.origin, runner.logging_to(None))

    def python_if_present(self, runner: Runner) -> TargetPython | None:
        """As `python`, but None when the target is a workspace venv that does not exist yet."""
        return None if self.is_missing_venv() else self.python(runner)

    def forget(self) -> None:
        """The target changed on disk (setup created the venv): probe it again when asked."""
        self._probed = self._ahead = None
