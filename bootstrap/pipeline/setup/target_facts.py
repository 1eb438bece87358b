"""The target environment as setup plans with it (`TargetFacts`): read through the command's Target (one
probe per command, shared), never written.

Whether the workspace venv is still to be made (or made again, its creation cut short), what is installed
in it, and whether the checkout's setup.py accepts its Python (a target outside python_requires stops
setup here, before anything is built).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import MismatchError
from bootstrap.core.io.state_files import StateFiles
from bootstrap.core.io.workspace import Workspace
from bootstrap.core.process.runner import Runner
from bootstrap.core.target.interpreter import WORKSPACE_VENV, Target, TargetPython
from bootstrap.git.pinned import Pins
from bootstrap.pipeline.setup import target_env as install


@dataclass(frozen=True)
class TargetFacts:
    """The environment Triton is installed into."""

    executable: Path
    origin: str
    venv: Path | None  # the workspace venv, when it is the target
    create_venv: bool  # ... and it is missing, or our creation of it was cut short
    clear_venv: bool  # ... cut short: made again with --clear
    base_python: str  # the interpreter that creates the venv
    python: TargetPython | None  # inspected; None while the venv is still to be created
    listing: str = ""  # install.environment_listing of its site-packages
    requirements_present: bool = False
    own_install_present: bool = False  # triton installed (editable) from this workspace's checkout
    fresh: bool = False  # created by this run: nothing but pip and setuptools in it


def find_python3() -> str:
    return shutil.which("python3") or os.environ.get("PYTHON", "python3")


def will_probe(workspace: Workspace, target: Target) -> bool:
    """Is the target there to probe? Not the workspace venv before setup created it, nor one whose creation
    was cut short (setup creates it again)."""
    if target.origin != WORKSPACE_VENV:
        return True
    return target.executable.exists() and not StateFiles(workspace.state).venv_marker.exists()


def observe_target(
    workspace: Workspace, target: Target, runner: Runner, setup_dir: Path, requires: Sequence[str]
) -> TargetFacts:
    """The target environment; inspected through `target` (one probe per command, shared)."""
    executable, origin = target.executable, target.origin
    venv = workspace.venv if origin == WORKSPACE_VENV else None
    if not will_probe(workspace, target):
        cut_short = StateFiles(workspace.state).venv_marker.exists()
        return TargetFacts(executable, origin, venv, True, cut_short, find_python3(), None)
    python = target.python(runner)
    site = python.site_packages
    return TargetFacts(
        executable,
        origin,
        venv,
        False,
        False,
        find_python3(),
        python,
        listing=install.environment_listing(site),
        requirements_present=install.requirements_present(site, requires),
        own_install_present=install.own_install_present(site, setup_dir),
    )


def check_python_bounds(pins: Pins, target: TargetFacts) -> None:
    """The checkout's setup.py names the Pythons it installs into (python_requires; newest main has an
    upper bound too): a target outside them stops setup here, not in pip after the builds."""
    args = pins.layout.setup_args
    if target.python is not None and args.refuses(target.python.version):
        raise MismatchError(
            f"Triton {pins.triton_commit[:12]} requires Python {args.python_requires}"
            f" (its setup.py); the target {target.executable} is Python {target.python.version}",
            fix=f"pass --python with a Python {args.python_requires}, or another --triton-commit",
        )
