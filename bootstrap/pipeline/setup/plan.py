"""The setup plan: from facts to the steps, in order, each with its inputs, fingerprint, dependencies,
commands and decision (up to date, or would run and why). Pure: no process, no file.

    venv -> checkout-triton -> checkout-llvm-project -> llvm-configure -> llvm-build
         -> purge -> triton-requirements -> triton-install -> verify

With `--llvm prebuilt` the LLVM checkout and build are one step, llvm-download; with `--llvm PATH`
they are llvm-use (bootstrap.pipeline.llvm.plan).

The LLVM steps' fingerprints hold no path and no parent: a build made by another workspace with the
same inputs is the same build (llvm-build carries llvm-configure's fingerprint among its inputs).
The others hash the fingerprints of the steps named in `after`, so a changed input re-runs that
step and the steps after it that depend on it, and nothing else.

What the steps are made from (the recipe's inputs, the jobs, the inputs each build step is fingerprinted
by) is bootstrap.pipeline.setup.plan_inputs.

Which inputs of triton-install mean "pip must install again" and which mean "ninja rebuilds" is
decided here too (`reinstall_reasons`), for setup and for `tritondev build` alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.pipeline.built.records import StepRecord, StepStatus, changed_keys, decide, fingerprint
from bootstrap.pipeline.host.fresh_cache import FreshStart, fresh_argument, llvm_expectations
from bootstrap.pipeline.host.fresh_cache import decide as decide_cache
from bootstrap.pipeline.host.jobs import Jobs
from bootstrap.pipeline.host.triton_configure import triton_configure_of, triton_expectations
from bootstrap.pipeline.llvm.auto import Learnt
from bootstrap.pipeline.llvm.builds import LlvmLocation, locate
from bootstrap.pipeline.llvm.plan import LLVM_STEPS, prebuilt_or_tree_location, prebuilt_or_tree_step
from bootstrap.pipeline.recipe.era import BACKENDS_BUILT
from bootstrap.pipeline.recipe.inputs import Command
from bootstrap.pipeline.recipe.presets import Presets, make_presets
from bootstrap.pipeline.setup.checkout_facts import CheckoutFacts
from bootstrap.pipeline.setup.facts import LlvmCheckout, SetupFacts
from bootstrap.pipeline.setup.plan_inputs import VOLATILE, install_inputs, llvm_inputs, preset_inputs, size_for
from bootstrap.pipeline.setup.plan_notices import plan_notes, plan_notices

# Inputs of triton-install that only ninja needs to see (an editable install picks up what it
# rebuilds); every other input changed means pip must install again.
REBUILD_ONLY = ("edits",)


class Record:
    """Where a step's record lives."""

    STEPS = "steps"  # <workspace>/state/steps/<name>.json
    LLVM_STAMP = "llvm-stamp"  # .tritondev-llvm.json in the LLVM build folder
    OBSERVED = "observed"  # none: the step's result is looked at (a venv, a checkout)


@dataclass(frozen=True)
class PlannedStep:
    name: str
    inputs: Mapping[str, Any]
    after: tuple[str, ...]  # steps whose fingerprints are part of this one's
    fingerprint: str
    status: StepStatus  # UP_TO_DATE or WOULD_RUN
    reason: str
    commands: tuple[Command, ...] = ()  # what it runs (the purge's are found by its scan)
    record: str = Record.STEPS
    fresh: FreshStart | None = None  # its build folder starts from a fresh CMake cache (fresh_cache)

    @property
    def runs(self) -> bool:
        return self.status == StepStatus.WOULD_RUN


@dataclass(frozen=True)
class SetupPlan:
    steps: tuple[PlannedStep, ...]
    presets: Presets
    jobs: Jobs
    llvm: LlvmLocation
    python: Path  # the target interpreter the commands use
    notices: tuple[str, ...]  # what the user should look at (shown as warnings)
    notes: tuple[str, ...] = ()  # good news worth a line (shown dim)
    remember: Learnt | None = None  # what observing learnt from the package host, recorded before the steps
    # The plan as it would be without distcc: what later builds without it (by hand, `tritondev build`)
    # are sized by. None: no distcc, this plan is that plan.
    without_distcc: SetupPlan | None = None

    def step(self, name: str) -> PlannedStep:
        return next(s for s in self.steps if s.name == name)

    def for_this_machine(self) -> SetupPlan:
        return self.without_distcc or self

    def commands(self) -> list[Command]:
        """The commands of the steps that would run, in order."""
        return [c for s in self.steps if s.runs for c in s.commands]


def _step(
    name: str,
    inputs: Mapping[str, Any],
    parents: Mapping[str, str],
    record: StepRecord | None,
    missing: str | None = None,
    commands: Sequence[Command] = (),
) -> PlannedStep:
    fp = fingerprint(inputs, parents)
    status, reason = decide(record, fp, inputs, parents, missing)
    return PlannedStep(name, dict(inputs), tuple(parents), fp, status, reason, tuple(commands))


def _observed(
    name: str, inputs: Mapping[str, Any], up_to_date: bool, reason: str, commands: Sequence[Command] = ()
) -> PlannedStep:
    status = StepStatus.UP_TO_DATE if up_to_date else StepStatus.WOULD_RUN
    return PlannedStep(
        name, dict(inputs), (), fingerprint(inputs, {}), status, reason, tuple(commands), Record.OBSERVED
    )


def venv_step(facts: SetupFacts) -> PlannedStep | None:
    target = facts.target
    if target.venv is None:
        return None
    argv = (target.base_python, "-m", "venv", *(["--clear"] if target.clear_venv else []), str(target.venv))
    command = Command("venv", argv)
    if target.clear_venv:
        return _observed("venv", {"path": str(target.venv)}, False, "its creation was cut short: made again", [command])
    if target.create_venv:
        return _observed("venv", {"path": str(target.venv)}, False, f"no venv at {target.venv} yet", [command])
    return _observed("venv", {"path": str(target.venv)}, True, "the workspace venv is there")


_CHECKOUT_WORK = {"cloned": "not cloned yet", "fetched": "moves to the pin", "up-to-date": "records the pin"}


def checkout_step(checkout: CheckoutFacts) -> PlannedStep:
    commands = [Command(c.step, c.argv, c.cwd, c.env) for c in checkout.commands]
    inputs = {"commit": checkout.commit, "head": checkout.head}
    if commands:
        reason = f"{_CHECKOUT_WORK.get(checkout.report.action, 'updates it')} ({checkout.commit[:12]})"
        return _observed(f"checkout-{checkout.name}", inputs, False, reason, commands)
    if checkout.adopted:
        return _observed(f"checkout-{checkout.name}", inputs, True, f"your clone as it stands: {checkout.summary}")
    if checkout.kept:
        return _observed(f"checkout-{checkout.name}", inputs, True, "local work kept as it stands (--allow-dirty)")
    return _observed(f"checkout-{checkout.name}", inputs, True, f"at the pin {checkout.commit[:12]}")


def plan_llvm_steps(
    facts: SetupFacts, presets: Presets, where: LlvmLocation, configure: Mapping[str, Any], build: Mapping[str, Any]
) -> tuple[PlannedStep, PlannedStep]:
    """Decided by the record in the build folder itself, so any workspace that uses it agrees."""
    configure_fp, build_fp = fingerprint(configure, {}), fingerprint(build, {})
    stamp = where.stamp
    if where.reused_from:
        done, why = True, f"reused {where.reused_from}"
    elif stamp.get("configure_fingerprint") == configure_fp and where.configured:
        done, why = True, "flags and toolchain unchanged"
    else:
        done, why = False, "never configured here" if not stamp else "flags or toolchain changed"
    command, fresh = presets.llvm_configure, None
    if not where.reused_from:
        fresh = llvm_fresh_start(facts, presets, where.build, where.source)
    if fresh is not None:
        done, why = False, fresh.decision.reason if done else f"{fresh.decision.reason}; {why}"
        if fresh.by_argument:
            command = dataclasses.replace(command, argv=(command.argv[0], "--fresh", *command.argv[1:]))
    status = StepStatus.UP_TO_DATE if done else StepStatus.WOULD_RUN
    configure_step = PlannedStep(
        "llvm-configure", dict(configure), (), configure_fp, status, why, (command,), Record.LLVM_STAMP, fresh
    )
    built = stamp.get("build_fingerprint") == build_fp and where.configured
    build_step = PlannedStep(
        "llvm-build",
        dict(build),
        (),
        build_fp,
        StepStatus.UP_TO_DATE if built else StepStatus.WOULD_RUN,
        "LLVM commit and flags unchanged"
        if built
        else "never built here"
        if not stamp.get("build_fingerprint")
        else "LLVM commit, flags or sources changed",
        (presets.llvm_build,),
        Record.LLVM_STAMP,
    )
    return configure_step, build_step


def purge_step(facts: SetupFacts) -> PlannedStep:
    """Decided from a cheap listing of the environment; when it changed, the executor's scan decides
    whether anything is to be removed (its commands are the scan's findings)."""
    target = facts.target
    inputs = {"env": target.listing, "python": str(target.executable)}
    record = facts.records.get("purge")
    if target.create_venv or target.fresh:
        return _observed("purge", inputs, True, "a new environment has no other triton")
    if record is not None and record.fingerprint == fingerprint(inputs, {}):
        return _observed("purge", inputs, True, "environment unchanged since the last setup")
    why = "never scanned here" if record is None else "the environment changed since the last setup"
    return _observed("purge", inputs, False, why)


def requirements_step(facts: SetupFacts, presets: Presets) -> PlannedStep | None:
    command = presets.pip_requirements
    if command is None:
        return None
    record = facts.records.get("triton-requirements")
    if record is not None and not record.finished:
        # pip killed mid-install leaves packages whose metadata says "installed" and whose files
        # are half there; only a forced reinstall repairs them.
        argv = command.argv
        command = Command(
            command.step, (*argv[:5], "--force-reinstall", *argv[5:]), command.cwd, command.env, command.unset
        )
    target = facts.target
    inputs = {
        "python": str(target.executable),
        "version": target.python.version if target.python else None,
        "requires": list(facts.pins.layout.build_requires),
    }
    # A recreated venv (or a user's pip uninstall) needs them again.
    missing = None if target.requirements_present else "the build requirements are not installed"
    return _step("triton-requirements", inputs, {}, record, missing, [command])


def install_step(facts: SetupFacts, presets: Presets, parents: Mapping[str, str]) -> PlannedStep:
    missing = None
    if not facts.target.own_install_present:
        missing = "triton is not installed from this checkout"
    elif not facts.triton_built:  # an editable install needs setup.py's build folder too
        missing = "setup.py's build folder is gone"
    step = _step(
        "triton-install",
        install_inputs(facts, presets),
        parents,
        facts.records.get("triton-install"),
        missing,
        [presets.pip_install],
    )
    fresh = triton_fresh_start(facts, presets)
    if fresh is None:
        return step
    why = fresh.decision.reason if not step.runs else f"{fresh.decision.reason}; {step.reason}"
    return dataclasses.replace(step, status=StepStatus.WOULD_RUN, reason=why, fresh=fresh)


def triton_fresh_start(facts: SetupFacts, presets: Presets) -> FreshStart | None:
    """setup.py's build folder, when its CMake cache differs from what this install configures it with."""
    if (cache := facts.triton_cache) is None:
        return None
    # What setup.py sees: the user's variables it inherits (less those the install removes), then ours.
    inherited = {**facts.tool_env, **facts.environment}
    kept = {k: v for k, v in inherited.items() if k not in presets.pip_install.unset}
    env = {**kept, **dict(presets.pip_install.env)}
    ccache = facts.toolchain.ccache.path if facts.toolchain.ccache else None
    args = facts.pins.layout.setup_args
    wanted = triton_configure_of(
        env,
        facts.triton.path,
        ccache,
        ";".join(BACKENDS_BUILT),
        facts.resolve,
        tools_cached=args.downloads_in_cmake,
        cxx_launcher_only=args.cxx_launcher_only,
        appends=args.append_cmake_args,
    )
    decision = decide_cache(triton_expectations(wanted), cache)
    return FreshStart(cache.folder, decision) if decision.fresh else None


def llvm_fresh_start(facts: SetupFacts, presets: Presets, build: Path, source: Path) -> FreshStart | None:
    """This workspace's LLVM build folder, when its CMake cache differs from what its configure passes."""
    cache = facts.llvm_cache
    if cache is None or facts.resolve(str(cache.folder)) != facts.resolve(str(build)):
        return None
    args = [(name, facts.resolve(value) if value.startswith("/") else value) for name, value in presets.llvm_cache]
    expected = llvm_expectations(Path(facts.resolve(str(source / "llvm"))), args, VOLATILE)
    decision = decide_cache(expected, cache)
    if not decision.fresh:
        return None
    return FreshStart(cache.folder, decision, by_argument=fresh_argument(facts.toolchain.cmake.version))


def plan_setup(facts: SetupFacts) -> SetupPlan:
    jobs = size_for(facts)
    llvm: list[PlannedStep]
    match facts.llvm:
        case LlvmCheckout(checkout=checkout):
            mine = facts.llvm_folders.mine
            configure, build = llvm_inputs(
                facts, make_presets(preset_inputs(facts, jobs, mine, checkout.path)), checkout
            )
            where = locate(facts.llvm_folders, checkout.path, fingerprint(build, {}), facts.pins.llvm_commit)
            presets = make_presets(preset_inputs(facts, jobs, where.build, where.source))
            llvm = [checkout_step(checkout), *plan_llvm_steps(facts, presets, where, configure, build)]
        case given:  # --llvm prebuilt or PATH (or auto's package): no LLVM checkout, no LLVM build
            where = prebuilt_or_tree_location(given, facts.llvm_folders)
            presets = make_presets(preset_inputs(facts, jobs, where.build, where.source))
            decision = prebuilt_or_tree_step(given, where)
            llvm = [_observed(decision.name, decision.inputs, decision.done, decision.reason)]
    steps: list[PlannedStep] = [s for s in (venv_step(facts),) if s is not None]
    steps += [checkout_step(facts.triton), *llvm]
    steps.append(purge_step(facts))
    requirements = requirements_step(facts, presets)
    if requirements is not None:
        steps.append(requirements)
    fps = {s.name: s.fingerprint for s in steps}
    install = install_step(facts, presets, {d: fps[d] for d in (*LLVM_STEPS, "triton-requirements") if d in fps})
    verify = _step(
        "verify",
        {"skip_verify": facts.settings.skip_verify, "env": facts.target.listing},
        {"triton-install": install.fingerprint},
        facts.records.get("verify"),
    )
    return SetupPlan(
        (*steps, install, verify),
        presets,
        jobs,
        where,
        facts.target.executable,
        plan_notices(facts, where),
        plan_notes(facts.llvm, where),
        facts.learnt,
        plan_setup(dataclasses.replace(facts, distcc=None)) if facts.distcc is not None else None,
    )


_REINSTALL_TEXT = {
    "setup_files": "setup.py or pyproject.toml changed",
    "python": "the target interpreter changed",
    "version": "the target interpreter changed",
    "environment": "the build environment changed",
    "env": "the build environment changed",
    "toolchain": "the compilers or build tools changed",
}


def reinstall_reasons(record: StepRecord | None, current: Mapping[str, Any], installed: bool) -> list[str]:
    """Why pip must install Triton again, given triton-install's record and its inputs now: an input
    other than the edits changed (ninja rebuilds those, and an editable install picks them up), the
    last install did not finish, or triton is no longer installed from the checkout."""
    reasons: list[str] = []
    if record is None or not record.finished:
        reasons.append("the last install did not finish" if record else "no finished install is recorded")
    else:
        for key in changed_keys(record.inputs, current):
            if key in REBUILD_ONLY:
                continue
            if key == "head":
                reasons.insert(0, f"HEAD moved to {str(current.get('head'))[:12]} (the version names the commit)")
            else:
                reasons.append(_REINSTALL_TEXT.get(key, f"{key} changed"))
    if not installed:
        reasons.append("triton is no longer installed from this checkout")
    return list(dict.fromkeys(reasons))
