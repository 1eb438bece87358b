"""What upstream's tests need in the target environment: python/test-requirements.txt, read by pip-api.

pip-api's `parse_requirements` reads a requirements file the way pip does (comments, options, line
continuations, `-r` includes, URLs, editables, markers) through its public API. Importing pip-api runs
`python -m pip --version` in a process of its own (0.0.35 sets `pip_api.PIP_VERSION` at import), and
only bootstrap/core/process/runner.py starts processes in tritondev: so tritondev's own process never imports
it. The runner starts bootstrap/core/target/scripts/tritondev_requirements.py in the target interpreter and hands it
the folder pip-api is installed in beside tritondev (found by `importlib.util.find_spec`, which imports
nothing); there pip-api reads the file and evaluates each marker for the target's Python and platform,
and `importlib.metadata` says which requirements the target lacks or has in a version the specifier
does not allow. Those are what `tritondev test --install-requirements` installs (`pip install -r FILE`,
as the Makefile's dev-install-requires does), and what stops a run without it.
"""

from __future__ import annotations

import importlib.util
import os
import stat
from pathlib import Path

from bootstrap.core.errors import ConfigError, ExternalError, ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.core.target import inside
from bootstrap.pipeline.testing.answers import FileRequirement, RequirementsFile, requirements_file

TEST_REQUIREMENTS = "python/test-requirements.txt"
PIP_API = "pip-api>=0.0.35,<0.1"  # as pyproject.toml declares it


def pip_api_root() -> Path:
    """The folder holding the `pip_api` package installed with tritondev. Imports nothing."""
    spec = importlib.util.find_spec("pip_api")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ToolMissing(
            "pip-api, which reads requirements files for tritondev, is not installed with it",
            fix=f"install it where tritondev runs: python -m pip install '{PIP_API}' (shell/tritondev's"
            " own venv has it)",
        )
    return Path(locations[0]).parent


def read_requirements(runner: Runner, python: Path, checkout: Path) -> RequirementsFile:
    """The test requirements of `checkout` as the target `python` reads them (markers evaluated there).

    Without python/test-requirements.txt the Makefile's targets still need pytest. A file that is not a
    regular file is exit 2 before anything reads it (a FIFO would block pip-api's read)."""
    path = checkout / TEST_REQUIREMENTS
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise ConfigError(
            f"{path} is not a regular file; nothing reads it",
            fix=f"restore it: git -C {checkout} checkout -- {TEST_REQUIREMENTS}",
        )
    argument = str(path) if mode is not None else "-"
    try:
        _, data = inside.run_json(
            runner,
            python,
            "tritondev_requirements.py",
            str(pip_api_root()),
            argument,
            step="test-requirements",
            timeout=300,
            isolated=True,
        )
        read = requirements_file(data)
    except inside.BadAnswer as exc:
        raise ExternalError(
            f"the test requirements could not be read in {python}: {exc}",
            fix="see the log of the step test-requirements",
        ) from None
    if read.error is not None:
        raise ExternalError(
            f"pip-api could not read {path} in {python}: {read.error}",
            fix=f"check {TEST_REQUIREMENTS} (pip would refuse it too), and that pip runs in {python}",
        )
    if read.invalid:
        file, line, text, why = read.invalid[0]
        raise ConfigError(
            f"{file}, line {line}: {text!r} is not a requirement pip reads ({why})",
            fix=f"correct it (pip install -r {path} refuses it too)",
        )
    return read


def describe_missing(missing: tuple[FileRequirement, ...]) -> str:
    """`pytest, pandas<3.0 (3.0.1 installed)`: what the target lacks, as a list for one line."""
    return ", ".join(r.text if r.installed is None else f"{r.text} ({r.installed} installed)" for r in missing)
