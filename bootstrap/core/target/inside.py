"""Code that runs inside the target interpreter: one mechanism, script files beside this module.

The target is another Python (maybe older, maybe broken, with triton/torch that tritondev never
imports), so tritondev starts `<target python> <script> ARGS` and reads what the script prints.
The scripts are the `tritondev_*.py` files of this folder, stdlib-only at import time; they are
never imported by tritondev itself. Their names carry a `tritondev_` prefix because this folder is
sys.path[0] while one runs and must not shadow a module of the user's code.

Two ways a script answers:
- one JSON document on its last line of stdout (`run_json`), for probes that gather facts;
- marker lines `@@tritondev <json>` among whatever else the kernels print (`events`), for scripts
  that report progress (compiles, verification kernels).

`as_user_runs=True` starts the script the way `python -c` would run user code: the current folder
first on sys.path, so that what a `triton/` folder there does is what the probe sees.

Scripts run with -B: no bytecode is written, neither here nor into an environment being examined.
What each JSON answer holds, and the parsers that check it, are in bootstrap.core.target.inside_answers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import ToolMissing
from bootstrap.core.fsutil import parse_json

if TYPE_CHECKING:
    from bootstrap.core.process.runner import Result, Runner

SCRIPTS = Path(__file__).resolve().parent / "scripts"
MARKER = "@@tritondev "  # keep in sync with tritondev_protocol.py

# Runs a script file with sys.argv shifted, keeping `-c`'s sys.path (cwd first).
_AS_USER_LOADER = "import sys; p = sys.argv[1]; sys.argv = sys.argv[1:]; exec(compile(open(p).read(), p, 'exec'))"


# pip names of the modules the scripts need, for the fix line of a "missing" error.
PIP_NAMES = {"triton": "triton", "torch": "torch", "numpy": "numpy"}


class BadAnswer(Exception):
    """A script ran but did not answer as agreed: no JSON object, or one of the wrong shape.

    result: the run, when the script gave no JSON object at all (its exit status and stderr tell why).
    """

    def __init__(self, message: str, result: Result | None = None) -> None:
        super().__init__(message)
        self.result = result


def script(name: str) -> Path:
    path = SCRIPTS / name
    if not name.startswith("tritondev_") or not path.is_file():
        raise ValueError(f"no in-target script {name!r}")
    return path


def argv(
    python: str | os.PathLike[str], name: str, *args: str, isolated: bool = False, as_user_runs: bool = False
) -> list[str]:
    """The command line that runs script `name` in `python` (-I: ignore the user's PYTHON* variables)."""
    path = str(script(name))
    flags = ["-I", "-B"] if isolated else ["-B"]
    if as_user_runs:
        return [os.fspath(python), *flags, "-c", _AS_USER_LOADER, path, *args]
    return [os.fspath(python), *flags, path, *args]


def json_answer(text: str) -> dict[str, Any]:
    """The JSON object on the last non-empty line of `text`."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        raise BadAnswer("no output")
    try:
        data = parse_json(lines[-1])
    except ValueError:
        raise BadAnswer(f"not JSON: {lines[-1][:200]}") from None
    if not isinstance(data, dict):
        raise BadAnswer(f"not a JSON object: {lines[-1][:200]}")
    return data


def run_json(
    runner: Runner,
    python: str | os.PathLike[str],
    name: str,
    *args: str,
    step: str,
    timeout: float,
    isolated: bool = False,
    as_user_runs: bool = False,
    env: Mapping[str, str | None] | None = None,
    cwd: Path | str | None = None,
) -> tuple[Result, dict[str, Any]]:
    """Run script `name` as a probe (it only reads) and parse its JSON answer; BadAnswer otherwise.

    CommandFailed (a timeout) and ToolMissing (no such interpreter) come from the runner as they are.
    """
    result = runner.capture(
        argv(python, name, *args, isolated=isolated, as_user_runs=as_user_runs),
        step=step,
        check=False,
        timeout=timeout,
        env=env,
        cwd=cwd,
    )
    try:
        return result, json_answer(result.stdout)
    except BadAnswer as exc:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise BadAnswer(
            f"{name} exited with status {result.returncode} without an answer ({exc}): " + " | ".join(tail),
            result,
        ) from None


@dataclass(frozen=True)
class InstallTarget:
    """What a fix line that installs a package must know about the environment it installs into."""

    python: Path
    is_venv: bool = True
    triton_version: str | None = None  # the Triton installed there, which the install must not replace
    workspace_venv: Path | None = None  # where `tritondev setup` builds Triton


def install_fix(package: str, into: InstallTarget) -> str:
    """The command that installs `package` into `into`, never one that replaces its Triton nor one that
    changes a system interpreter (doctor's python.venv warns against that)."""
    python = os.fspath(into.python)
    if not into.is_venv:
        venv = into.workspace_venv or Path("~/tritondev/venv")
        return (
            f"not into the system Python {python}: `tritondev setup` builds Triton into {venv}, which every "
            f"command uses once it exists; or make it yourself (python3 -m venv {venv}) and install {package} "
            "there"
        )
    if package == "triton":
        return f"{python} -m pip install triton  (or build it from source: tritondev setup)"
    if package == "torch" and into.triton_version:
        # torch requires triton==X: a plain `pip install torch` may replace this Triton (a source build) with a
        # wheel. Naming the installed one keeps it: pip takes a torch whose pin it satisfies, or stops.
        return (
            f"{python} -m pip install torch 'triton=={into.triton_version}'  (keeps the installed Triton "
            f"{into.triton_version}: pip takes a torch that pins it, or stops without changing anything)"
        )
    return f"{python} -m pip install {package}"


def missing_module_error(into: InstallTarget, event: Mapping[str, Any]) -> ToolMissing:
    """A script's "missing" event (tritondev_protocol) as 'X is not installed', with the exact install."""
    module = str(event.get("module") or "triton")
    package = PIP_NAMES.get(module, module)
    return ToolMissing(
        f"{event.get('message') or module + ' is not installed'} ({os.fspath(into.python)})",
        fix=install_fix(package, into),
    )


def parse_event(line: str) -> dict[str, Any] | None:
    """The event on a marker line, or None for any other output (kernels and Triton print freely)."""
    if not line.startswith(MARKER):
        return None
    try:
        data = parse_json(line[len(MARKER) :])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def events(text: str) -> list[dict[str, Any]]:
    return [e for e in (parse_event(line) for line in text.splitlines()) if e is not None]


# The capture hook of `tritondev repro capture`: the files of its private folder (first on the captured
# command's PYTHONPATH) and the scripts they are copies of. Python imports the folder's sitecustomize.py at
# start-up; it starts tritondev_capture (bootstrap/core/target/scripts/tritondev_capture_site.py).
CAPTURE_HOOK = {
    "sitecustomize.py": "tritondev_capture_site.py",
    "tritondev_capture.py": "tritondev_capture.py",
    "tritondev_capture_io.py": "tritondev_capture_io.py",
    "tritondev_capture_data.py": "tritondev_capture_data.py",
    "tritondev_capture_source.py": "tritondev_capture_source.py",
}
# The body every standalone repro.py carries (`tritondev repro make`).
REPRO_RUNNER = "tritondev_repro_runner.py"


def capture_hook_files() -> dict[str, Path]:
    """The capture hook's files: name in its folder -> the script to copy there."""
    return {name: script(source) for name, source in CAPTURE_HOOK.items()}


def script_text(name: str) -> str:
    return script(name).read_text(encoding="utf-8")
