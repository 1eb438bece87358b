"""`tritondev test NAME [ARGS]`: upstream's test target, run in the workspace's build and environment.

    plan_tests (the checkout's Makefile, the build, the machine) -> run each command -> counts

The commands come from the checkout's Makefile (bootstrap.pipeline.testing.targets); they run with the
target environment first on PATH (so `python`, `pytest` and `lit` are the target's) and the
variables of `tritondev env`, and each one's own summary gives its counts (testcounts). The
requirements of the tests (python/test-requirements.txt, the Makefile's dev-install-requires; read by
pip-api in the target, bootstrap.pipeline.testing.requirements) are installed into the target environment
only when asked (--install-requirements); missing, they stop the run before anything else with the
command that installs them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.core.inside_answers import FileRequirement
from bootstrap.env.exports import collect_variables
from bootstrap.kernels.gpus import local_gpu_targets
from bootstrap.pipeline.setup.built import find_build
from bootstrap.pipeline.setup.state import read_state
from bootstrap.pipeline.testing.counts import COUNTERS, Counts
from bootstrap.pipeline.testing.requirements import TEST_REQUIREMENTS, describe_missing, read_requirements
from bootstrap.pipeline.testing.targets import (
    LIT_TARGET,
    NEEDS_GPU,
    UNIT_TARGET,
    TestStep,
    Variables,
    ctest_steps,
    parse_makefile,
    split_args,
    target_steps,
    with_user_args,
)

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

MAKEFILE = "Makefile"


@dataclass(frozen=True)
class TestRequest:
    name: str  # one of maketargets.TEST_NAMES
    args: tuple[str, ...]
    install_requirements: bool
    cwd: Path  # where the user's test paths are relative to


@dataclass(frozen=True)
class TestPlan:
    name: str
    makefile_target: str | None  # None: tritondev's own command (no Makefile at this commit)
    steps: tuple[TestStep, ...]
    needs_requirements: bool  # a pytest step needs python/test-requirements.txt in the target
    checkout: Path
    build_dir: Path
    python: Path


@dataclass(frozen=True)
class StepOutcome:
    step: TestStep
    returncode: int
    counts: Counts | None

    def to_json(self) -> dict[str, object]:
        return {**self.step.to_json(), "returncode": self.returncode,
                "counts": self.counts.to_json() if self.counts is not None else None}


@dataclass(frozen=True)
class TestReport:
    plan: TestPlan
    outcomes: tuple[StepOutcome, ...]
    installed_requirements: bool = False

    @property
    def counts(self) -> Counts:
        total = Counts()
        for outcome in self.outcomes:
            if outcome.counts is not None:
                total = total + outcome.counts
        return total

    @property
    def failed_step(self) -> StepOutcome | None:
        """The first command that failed without a test failing (a build error, a usage error)."""
        return next((o for o in self.outcomes if o.returncode != 0 and not _tests_failed(o.counts)), None)

    def to_json(self) -> dict[str, object]:
        return {"target": self.plan.name, "makefile_target": self.plan.makefile_target,
                "checkout": str(self.plan.checkout), "build_dir": str(self.plan.build_dir),
                "python": str(self.plan.python), "installed_requirements": self.installed_requirements,
                "counts": self.counts.to_json(), "steps": [o.to_json() for o in self.outcomes]}


def _tests_failed(counts: Counts | None) -> bool:
    return counts is not None and counts.failed + counts.errors > 0


def plan_tests(request: TestRequest, checkout: Path, build_dir: Path, python: Path, jobs: int,
               locate: Callable[[str], str]) -> TestPlan:
    """The commands of `request.name` at this checkout. Reads the Makefile; starts nothing."""
    variables = Variables(python, build_dir, checkout, jobs)
    try:
        text = read_regular_text(checkout / MAKEFILE, limit=1 << 20)
    except OSError:
        text = None
    target = f"test-{request.name}"
    if text is None:
        steps = _without_makefile(request, build_dir, checkout)
        return TestPlan(request.name, None, steps, False, checkout, build_dir, python)
    rules = parse_makefile(text)
    if target not in rules:
        known = ", ".join(sorted(r.removeprefix("test-") for r in rules if r.startswith("test-"))) or "none"
        raise UsageError(f"the Makefile of {checkout} has no {target} target at this commit (its test targets:"
                         f" {known})", fix=f"run one of them: tritondev test {known.split(', ')[0]}")
    steps = target_steps(rules, target, variables)
    if request.name == "cpp" and request.args:
        steps = ctest_steps(build_dir, request.args)
    elif request.args:
        paths = split_args(request.args)[1]
        steps = with_user_args(steps, request.args, python, {p: locate(p) for p in paths})
    needs = any(s.kind == "pytest" for s in steps)
    return TestPlan(request.name, target, steps, needs, checkout, build_dir, python)


def _without_makefile(request: TestRequest, build_dir: Path, checkout: Path) -> tuple[TestStep, ...]:
    """Before the Makefile (Triton <= 3.2) only the build's own check targets exist."""
    checks = {"lit": (LIT_TARGET,), "cpp": (UNIT_TARGET,), "nogpu": (LIT_TARGET, UNIT_TARGET)}
    if request.name not in checks:
        raise UsageError(f"{checkout} has no Makefile at this commit (Triton added it in 3.3), so there is no"
                         f" test-{request.name} target to run",
                         fix="run its pytest yourself: tritondev run -- python -m pytest python/test/unit")
    if request.name == "cpp" and request.args:
        return ctest_steps(build_dir, request.args)
    return tuple(TestStep("ninja", ("ninja", "-C", str(build_dir), t), build_dir) for t in checks[request.name])


def locate_path(path: str, cwd: Path, checkout: Path) -> str:
    """A test path (or node id FILE::TEST) as an absolute path: from where the user is, else from the
    checkout's root. UsageError when it is in neither."""
    file, sep, rest = path.partition("::")
    for base in (cwd, checkout):
        candidate = (base / file).resolve()
        if candidate.exists():
            return f"{candidate}{sep}{rest}"
    raise UsageError(f"no test file or folder {file} (looked in {cwd} and {checkout})",
                     fix="give a path under python/test/ (or a node id such as FILE::TEST)")


def run_plan(ctx: AppContext, plan: TestPlan, env: dict[str, str], show: Callable[[str], None]
             ) -> tuple[StepOutcome, ...]:
    """Each command in order, its output shown as it comes; stops at a command that fails without a
    test failing (the build broke: the tests after it would only test the old build)."""
    outcomes: list[StepOutcome] = []
    for step in plan.steps:
        outcome = _run_step(ctx, step, env, show)
        outcomes.append(outcome)
        if outcome.returncode != 0 and not _tests_failed(outcome.counts):
            break
    return tuple(outcomes)


def _run_step(ctx: AppContext, step: TestStep, env: dict[str, str], show: Callable[[str], None]) -> StepOutcome:
    lines: list[str] = []

    def collect(line: str) -> None:
        lines.append(line)
        show(line)

    result = ctx.runner.stream(list(step.argv), step="test", cwd=step.cwd, env={**env, **dict(step.env)},
                               check=False, on_line=collect, timeout=24 * 3600)
    counter = COUNTERS.get(step.counter)
    return StepOutcome(step, result.returncode, counter(lines) if counter is not None else None)


def environment(ctx: AppContext, python: Path) -> dict[str, str]:
    """What the commands run with: `tritondev env`'s variables and the target environment first on PATH."""

    values = {k: v for k, v in collect_variables(ctx.workspace.env_file, dump_ir=False,
                                                 backend=ctx.settings.backend).items() if v is not None}
    folder = python.parent
    values["PATH"] = f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"
    if (folder.parent / "pyvenv.cfg").is_file():
        values["VIRTUAL_ENV"] = str(folder.parent)
    return values


def stream_to(json_mode: bool) -> Callable[[str], None]:
    return ui.ChildOutput("stderr" if json_mode else "stdout").line


def refuse_without_gpu(name: str, gpus: Sequence[str]) -> None:
    if name in NEEDS_GPU and not gpus:
        raise UsageError(f"test {name} runs on a GPU, and this machine has none (nvidia-smi and rocminfo list no GPU)",
                         fix="here: tritondev test interpret (the interpreter, on the CPU), tritondev test nogpu"
                             f" (lit and C++); test {name} on a machine with a GPU")


def requirements_fix(request: TestRequest) -> str:
    args = " ".join(request.args)
    return f"tritondev test {request.name} --install-requirements{' ' + args if args else ''}"


def check_requirements(missing: tuple[FileRequirement, ...], request: TestRequest, python: Path) -> None:
    if missing:
        raise ToolMissing(f"{describe_missing(missing)} ({TEST_REQUIREMENTS}) not installed in {python}",
                          fix=f"{requirements_fix(request)} (installs {TEST_REQUIREMENTS} there, as the Makefile's"
                              " dev-install-requires does)")


def install_requirements(ctx: AppContext, python: Path, checkout: Path) -> bool:
    """What the target lacks of the tests' requirements, installed as the Makefile's dev-install-requires
    does; False when nothing was missing. Raises (before anything runs) when the file cannot be read."""
    read = read_requirements(ctx.runner, python, checkout)
    if not read.missing:
        return False
    requirements = checkout / TEST_REQUIREMENTS
    wanted = ["-r", str(requirements)] if requirements.is_file() else [r.text for r in read.missing]
    ctx.runner.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", *wanted],
                   step="test-requirements",
                   fix="check that the package index is reachable (pip's own output is in the log)")
    return True


def run_tests(ctx: AppContext, request: TestRequest, show: Callable[[str], None]) -> TestReport:
    """Plan from the checkout's Makefile and the workspace's build, check the machine and the
    requirements, then run; raises (before anything runs) what stops it."""

    build = find_build(ctx.workspace.root, ctx.workspace.state)
    state = read_state(ctx.workspace.state)
    assert state is not None  # find_build said so
    jobs = int(dict(state.install.env).get("MAX_JOBS", "1") or 1)
    plan = plan_tests(request, build.triton_src, build.build_dir, state.python, jobs,
                      lambda path: locate_path(path, request.cwd, build.triton_src))
    if request.name in NEEDS_GPU:
        refuse_without_gpu(request.name, local_gpu_targets(ctx.runner.logging_to(None)))
    installed = False
    if plan.needs_requirements:
        if request.install_requirements:
            installed = install_requirements(ctx, state.python, build.triton_src)
        else:
            check_requirements(read_requirements(ctx.runner, state.python, build.triton_src).missing, request,
                               state.python)
    return TestReport(plan, run_plan(ctx, plan, environment(ctx, state.python), show), installed)
