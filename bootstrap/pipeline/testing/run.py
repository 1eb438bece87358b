"""`tritondev test NAME [ARGS]`: upstream's test target, run in the workspace's build and environment.

    plan_tests (the checkout's Makefile, the build, the machine) -> run each command -> counts

The commands come from the checkout's Makefile (bootstrap.pipeline.testing.targets); they run with the
target environment first on PATH (so `python`, `pytest` and `lit` are the target's) and the
variables of `tritondev env`, and each one's own report gives its counts (reports, counts). The
requirements of the tests (python/test-requirements.txt, the Makefile's dev-install-requires; read by
pip-api in the target, bootstrap.pipeline.testing.requirements) are installed into the target environment
only when asked (--install-requirements); missing, they stop the run before anything else with the
command that installs them.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.env.exports import collect_variables
from bootstrap.kernels.gpus import local_gpu_targets
from bootstrap.pipeline.built.state import read_state
from bootstrap.pipeline.built.triton_build import find_build
from bootstrap.pipeline.host.jobs import detect
from bootstrap.pipeline.testing import makevars
from bootstrap.pipeline.testing.answers import FileRequirement
from bootstrap.pipeline.testing.counts import Counts, parse_summary
from bootstrap.pipeline.testing.reports import Verdict, read_counts, report_env, verdict
from bootstrap.pipeline.testing.requirements import TEST_REQUIREMENTS, describe_missing, read_requirements
from bootstrap.pipeline.testing.targets import (
    LIT_TARGET,
    NEEDS_GPU,
    TestStep,
    Variables,
    ctest_steps,
    parse_makefile,
    split_args,
    target_steps,
    with_user_args,
    workers,
)

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

MAKEFILE = "Makefile"
# Targets that only read the build folder: run under the workspace lock taken shared (two at once, never
# during a setup, build or bisect); any other target (all, dev-install, install, ...) takes it exclusive.
_READERS = re.compile(r"^(test(-.*)?|golden-samples)$")


@dataclass(frozen=True)
class TestRequest:
    name: str  # `unit` (the Makefile's test-unit) or any target's own name (`golden-samples`)
    args: tuple[str, ...]
    install_requirements: bool
    cwd: Path  # where the user's test paths are relative to


@dataclass(frozen=True)
class TestPlan:
    name: str
    makefile_target: str | None  # None: tritondev's own commands (no Makefile at this commit)
    steps: tuple[TestStep, ...]
    needs_requirements: bool  # a pytest step needs python/test-requirements.txt in the target
    checkout: Path
    build_dir: Path
    python: Path
    notes: tuple[str, ...] = ()  # said before anything runs (the machine is smaller than NUM_PROCS)

    @property
    def reads_only(self) -> bool:
        """A test target: it only reads the build folder (the lock taken shared)."""
        return self.makefile_target is None or bool(_READERS.match(self.makefile_target))


@dataclass(frozen=True)
class StepOutcome:
    step: TestStep
    returncode: int
    counts: Counts | None  # None: its runner wrote no report (unknown), or it is no test command
    verdict: Verdict
    failed_tests: tuple[str, ...] = ()  # lit's own list ("TRITON :: Triton/reproducer.mlir")

    def to_json(self) -> dict[str, object]:
        return {
            **self.step.to_json(),
            "returncode": self.returncode,
            "verdict": self.verdict,
            "counts": self.counts.to_json() if self.counts is not None else None,
            "failed_tests": list(self.failed_tests),
        }


@dataclass(frozen=True)
class TestReport:
    plan: TestPlan
    outcomes: tuple[StepOutcome, ...]
    installed_requirements: bool = False
    dry_run: bool = False

    @property
    def counts(self) -> Counts | None:
        """The counts of every test command added up; None when one of them has none (unknown)."""
        total = Counts()
        for outcome in self.outcomes:
            if outcome.step.counter == "none":
                continue
            if outcome.counts is None:
                return None
            total = total + outcome.counts
        return total

    def first(self, *verdicts: Verdict) -> StepOutcome | None:
        return next((o for o in self.outcomes if o.verdict in verdicts), None)

    def to_json(self) -> dict[str, object]:
        counts = self.counts
        return {
            "target": self.plan.name,
            "makefile_target": self.plan.makefile_target,
            "checkout": str(self.plan.checkout),
            "build_dir": str(self.plan.build_dir),
            "python": str(self.plan.python),
            "installed_requirements": self.installed_requirements,
            "counts": counts.to_json() if counts is not None and not self.dry_run else None,
            "notes": list(self.plan.notes),
            "steps": [o.to_json() for o in self.outcomes],
        }


def plan_tests(
    request: TestRequest,
    checkout: Path,
    build_dir: Path,
    python: Path,
    environ: Mapping[str, str],
    cores: int,
    locate: Callable[[str], str],
) -> TestPlan:
    """The commands of `request.name` at this checkout. Reads the Makefile; starts nothing."""
    try:
        text = read_regular_text(checkout / MAKEFILE, limit=1 << 20)
    except OSError:
        text = None
    if text is None:
        steps = _without_makefile(request, build_dir, checkout)
        return TestPlan(request.name, None, steps, False, checkout, build_dir, python)
    rules = parse_makefile(text)
    target = resolve_target(rules, request.name, checkout)
    asked = workers(request.args)
    overrides = (("NUM_PROCS", asked),) if asked is not None and asked.isdigit() else ()
    variables = Variables(
        python, build_dir, checkout, makevars.parse_assignments(text), overrides, tuple(environ.items())
    )
    steps = target_steps(rules, target, variables)
    if request.name == "cpp" and request.args:
        steps = ctest_steps(build_dir, request.args)
    elif request.args:
        paths = split_args(request.args)[1]
        steps = with_user_args(steps, request.args, python, {p: locate(p) for p in paths})
    needs = any(s.kind in ("pytest", "runner") for s in steps)
    notes = () if asked is not None else _worker_notes(request.name, steps, cores)
    return TestPlan(request.name, target, steps, needs, checkout, build_dir, python, notes)


def resolve_target(rules: Mapping[str, object], name: str, checkout: Path) -> str:
    """`unit` is the Makefile's test-unit; any other target by its own name (`golden-samples`)."""
    for candidate in (f"test-{name}", name):
        if candidate in rules:
            return candidate
    tests = sorted(r.removeprefix("test-") for r in rules if r.startswith("test-"))
    raise UsageError(
        f"the Makefile of {checkout} has no target test-{name} or {name} at this commit (its test"
        f" targets: {', '.join(tests) or 'none'})",
        fix=f"run one of them: tritondev test {tests[0] if tests else 'NAME'}",
    )


def _worker_notes(name: str, steps: Sequence[TestStep], cores: int) -> tuple[str, ...]:
    """What to say when the Makefile starts more pytest workers than the machine has cores."""
    counts = [
        int(w)
        for s in steps
        if s.kind in ("pytest", "runner")
        for w in [workers(s.argv[3:]) if s.kind == "pytest" else _after(s.argv, "--num-procs")]
        if w is not None and w.isdigit()
    ]
    if not counts or max(counts) <= cores:
        return ()
    return (
        f"test {name} starts {max(counts)} pytest workers (the Makefile's -n/NUM_PROCS) on a machine with"
        f" {cores} cores; fewer: tritondev test {name} -- -n {max(1, cores)}",
    )


def _after(argv: Sequence[str], option: str) -> str | None:
    return argv[argv.index(option) + 1] if option in argv[:-1] else None


def _without_makefile(request: TestRequest, build_dir: Path, checkout: Path) -> tuple[TestStep, ...]:
    """Before the Makefile (Triton <= 3.2) only the build's own targets exist: check-triton-lit-tests,
    and the unit tests as plain add_test (check-triton-unit-tests came with #5150, in 3.3): built by
    `ninja`, run by `ctest --output-on-failure` in the build folder."""
    lit = (TestStep("ninja", ("ninja", "-C", str(build_dir), LIT_TARGET), build_dir),)
    if request.name == "lit":
        return lit
    if request.name == "cpp":
        return ctest_steps(build_dir, request.args)
    if request.name == "nogpu":
        return (*lit, *ctest_steps(build_dir, ()))
    raise UsageError(
        f"{checkout} has no Makefile at this commit (Triton added it in 3.3), so there is no"
        f" test-{request.name} target to run",
        fix="run its pytest yourself: tritondev run -- python -m pytest python/test/unit",
    )


def locate_path(path: str, cwd: Path, checkout: Path) -> str:
    """A test path (or node id FILE::TEST) as an absolute path: from where the user is, else from the
    checkout's root. UsageError when it is in neither."""
    file, sep, rest = path.partition("::")
    for base in (cwd, checkout):
        candidate = (base / file).resolve()
        if candidate.exists():
            return f"{candidate}{sep}{rest}"
    raise UsageError(
        f"no test file or folder {file} (looked in {cwd} and {checkout})",
        fix="give a path under python/test/ (or a node id such as FILE::TEST)",
    )


def run_plan(
    ctx: AppContext, plan: TestPlan, env: dict[str, str], show: Callable[[str], None]
) -> tuple[StepOutcome, ...]:
    """Each command in order, its output shown as it comes, its report read; stops at a command that
    failed without a test failing (the build broke: the tests after it would only test the old build).
    Reports go to a folder of their own, removed afterwards."""
    outcomes: list[StepOutcome] = []
    with tempfile.TemporaryDirectory(prefix="tritondev-test-") as scratch:
        for index, step in enumerate(plan.steps):
            folder = Path(scratch) / f"step-{index}"
            folder.mkdir()
            outcome = _run_step(ctx, step, env, show, folder)
            outcomes.append(outcome)
            if outcome.verdict == "failed":
                break
    return tuple(outcomes)


def _run_step(
    ctx: AppContext, step: TestStep, env: dict[str, str], show: Callable[[str], None], folder: Path
) -> StepOutcome:
    lines: list[str] = []

    def collect(line: str) -> None:
        lines.append(line)
        show(line)

    variables = {**env, **dict(step.env)}
    # Under --dry-run no report is asked for: the command shown is the Makefile's, with nothing temporary.
    reporting, report = ({}, None) if ctx.dry_run else report_env(step, {**os.environ, **variables}, folder)
    result = ctx.runner.stream(
        list(step.argv),
        step="test",
        cwd=step.cwd,
        env={**variables, **reporting},
        check=False,
        on_line=collect,
        timeout=24 * 3600,
    )
    if result.dry_run:
        return StepOutcome(step, 0, None, "not-run")
    counts = read_counts(step, report, lines)
    failed = tuple(parse_summary(lines).failed) if step.counter == "lit" else ()
    return StepOutcome(step, result.returncode, counts, verdict(step, result.returncode, counts), failed)


def environment(ctx: AppContext, python: Path) -> dict[str, str]:
    """What the commands run with: `tritondev env`'s variables and the target environment first on PATH."""

    values = {
        k: v
        for k, v in collect_variables(ctx.workspace.env_file, dump_ir=False, backend=ctx.settings.backend).items()
        if v is not None
    }
    folder = python.parent
    values["PATH"] = f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"
    if (folder.parent / "pyvenv.cfg").is_file():
        values["VIRTUAL_ENV"] = str(folder.parent)
    return values


def stream_to(json_mode: bool) -> Callable[[str], None]:
    """Where the tests' own output goes as it comes: stdout, or stderr beside a --json document."""
    return ui.ChildOutput("stderr" if json_mode else "stdout").line


def refuse_without_gpu(plan: TestPlan, gpus: Sequence[str]) -> None:
    name = plan.name
    if not gpus:
        raise UsageError(
            f"test {name} runs on a GPU, and this machine has none (nvidia-smi and rocminfo list no GPU)",
            fix="here: tritondev test interpret (the interpreter, on the CPU), tritondev test nogpu"
            f" (lit and C++); test {name} on a machine with a GPU",
        )


def requirements_fix(request: TestRequest) -> str:
    args = " ".join(request.args)
    return f"tritondev test {request.name} --install-requirements{' ' + args if args else ''}"


def check_requirements(missing: tuple[FileRequirement, ...], request: TestRequest, python: Path) -> None:
    if missing:
        raise ToolMissing(
            f"{describe_missing(missing)} ({TEST_REQUIREMENTS}) not installed in {python}",
            fix=f"{requirements_fix(request)} (installs {TEST_REQUIREMENTS} there, as the Makefile's"
            " dev-install-requires does)",
        )


def install_requirements(ctx: AppContext, python: Path, checkout: Path) -> bool:
    """What the target lacks of the tests' requirements, installed as the Makefile's dev-install-requires
    does; False when nothing was missing. Raises (before anything runs) when the file cannot be read."""
    read = read_requirements(ctx.runner, python, checkout)
    if not read.missing:
        return False
    requirements = checkout / TEST_REQUIREMENTS
    wanted = ["-r", str(requirements)] if requirements.is_file() else [r.text for r in read.missing]
    ctx.runner.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", *wanted],
        step="test-requirements",
        fix="check that the package index is reachable (pip's own output is in the log)",
    )
    return True


def run_tests(ctx: AppContext, request: TestRequest) -> TestReport:
    """Plan from the checkout's Makefile and the workspace's build, check the machine and the
    requirements, then run under the workspace lock (shared for a test target); raises (before
    anything runs) what stops it."""
    build = find_build(ctx.workspace.root, ctx.workspace.state)
    state = read_state(ctx.workspace.state)
    assert state is not None  # find_build said so
    env = environment(ctx, state.python)
    plan = plan_tests(
        request,
        build.triton_src,
        build.build_dir,
        state.python,
        {**os.environ, **env},
        detect().cpus,
        lambda path: locate_path(path, request.cwd, build.triton_src),
    )
    if plan.makefile_target in NEEDS_GPU and not ctx.dry_run:  # a dry run shows the plan on any machine
        refuse_without_gpu(plan, local_gpu_targets(ctx.runner.logging_to(None)))
    installed = False
    if plan.needs_requirements:
        if request.install_requirements:
            installed = install_requirements(ctx, state.python, build.triton_src)
        else:
            missing = read_requirements(ctx.runner, state.python, build.triton_src).missing
            if ctx.dry_run and missing:
                ui.note(
                    f"the run would stop here: {describe_missing(missing)} not installed in {state.python}"
                    f" ({requirements_fix(request)})"
                )
            else:
                check_requirements(missing, request, state.python)
    for note in plan.notes:
        ui.note(note)
    with ctx.locked(builds=not plan.reads_only):
        outcomes = run_plan(ctx, plan, env, stream_to(ctx.json))
    return TestReport(plan, outcomes, installed, ctx.dry_run)
