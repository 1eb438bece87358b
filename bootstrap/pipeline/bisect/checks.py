"""The checks a bisect makes before it changes anything (all read only): a finished setup, the command
found, checkouts without local changes, where missing commits come from, and settings that rebuild the
current setup as it is (each step builds with them, and the end reinstalls with them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core.errors import DirtyCheckout, UsageError
from bootstrap.core.process.runner import Runner
from bootstrap.git.checkouts import URL_SETTINGS, repository_url
from bootstrap.git.commit_range import pin_refs
from bootstrap.git.history import checked_out_commit, current_branch, origin_url
from bootstrap.git.moves import inspect_checkout
from bootstrap.pipeline.bisect.journal import Start
from bootstrap.pipeline.bisect.steps import check_environment, resolve_command
from bootstrap.pipeline.bisect.worktree import adopted_clone
from bootstrap.pipeline.built.records import Records, changed_keys
from bootstrap.pipeline.built.records import StepRecord as SetupRecord
from bootstrap.pipeline.built.state import SetupState, read_state
from bootstrap.pipeline.setup import api as setup

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext

STEP = "bisect"  # the logs folder and the step name of its probes


@dataclass(frozen=True)
class Check:
    """The command as it runs at every step: program found, working folder, environment."""

    command: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str | None]

    @staticmethod
    def of(ctx: AppContext, command: tuple[str, ...], cwd: Path) -> Check:
        """Also points the context at setup's interpreter, probed once for every step."""
        state = setup_state(ctx)
        ctx.use_interpreter(state.python, state.python_origin)
        ctx.target_python()
        env = check_environment(ctx, state.python)
        return Check(resolve_command(command, cwd, env), cwd, env)


def setup_state(ctx: AppContext) -> SetupState:
    state = read_state(ctx.workspace.state) if ctx.workspace.state.is_dir() else None
    if state is None:
        raise UsageError(
            f"no finished `tritondev setup` in workspace {ctx.workspace.root}",
            fix="run `tritondev setup` first: a bisect rebuilds that setup at other commits",
        )
    return state


def head_of(runner: Runner, repo: Path) -> Start:
    commit = checked_out_commit(repo, runner, STEP)
    if not commit:
        raise UsageError(f"{repo} is not a checkout with a commit", fix="run `tritondev setup` first")
    return Start(commit, current_branch(repo, runner, STEP), pin_refs(runner, repo))


def refuse_dirty(ctx: AppContext, kind: str) -> None:
    """Stop (exit 6) when a checkout the bisect moves has local changes. `bisect triton` moves both (the
    LLVM one to each commit's pin); `bisect llvm` builds the Triton checkout as it stands, edits included."""

    runner = ctx.runner.logging_to(None)
    for name in ("triton", "llvm-project") if kind == "triton" else ("llvm-project",):
        repo = ctx.workspace.src / name
        if name == "triton" and adopted_clone(ctx) is not None:
            continue  # your clone is never moved: the bisect works in a worktree of it
        if name == "llvm-project" and not (repo / ".git").exists():
            continue  # a prebuilt LLVM (or --llvm PATH): no LLVM checkout to move
        _refuse_changes(runner, repo, head_of(runner, repo).commit)


def _refuse_changes(runner: Runner, repo: Path, commit: str) -> None:
    _, dirty, _ = inspect_checkout(repo, commit, runner, STEP)
    if dirty:
        shown = ", ".join(dirty[:10]) + (f" and {len(dirty) - 10} more" if len(dirty) > 10 else "")
        raise DirtyCheckout(
            f"{repo} has local changes ({shown}); a bisect checks out other commits there, so nothing was changed",
            fix="commit or stash them (git stash -u), then run again",
        )


def urls(ctx: AppContext) -> dict[str, str]:
    """Where missing commits come from: what the user gave, else each checkout's origin (setup cloned it)."""
    s, found = ctx.settings, {}
    for name in ("triton", "llvm-project"):
        field = URL_SETTINGS[name]
        if s.source_of(field).given or s.source_of("mirror").given:
            found[field] = repository_url(s, name, str(getattr(s, field) or ""))
            continue
        origin = origin_url(ctx.workspace.src / name, ctx.runner.logging_to(None), STEP)
        if origin:
            found[field] = origin
    return found


def inconsistencies(ctx: AppContext, triton_commit: str, links: Mapping[str, str]) -> list[str]:
    """How setup's plan at the starting commit differs from what is built: each step would build with
    these settings and the end would reinstall with them, so they must be setup's own."""

    plan = setup.plan_at(ctx, triton_commit=triton_commit, allow_dirty=True, **links)
    problems = [
        f"{s.name}: {s.reason}"
        for s in plan.steps
        if s.runs and s.name in ("checkout-llvm-project", "llvm-configure", "llvm-build")
    ]
    install = plan.step("triton-install")
    record = plan_record(ctx, "triton-install")
    if record is None or not record.finished:
        problems.append("triton-install: no finished install is recorded")
    else:
        changed = [
            _detail(k, record.inputs.get(k), install.inputs.get(k))
            for k in changed_keys(record.inputs, install.inputs)
            if k not in ("head", "edits", "setup_files")
        ]
        if changed:
            problems.append("triton-install: would build differently (changed: " + ", ".join(changed) + ")")
    return problems


def _detail(key: str, old: object, new: object) -> str:
    """`key`, with the names inside it that differ when it is a mapping (env (DEBUG, REL_WITH_DEB_INFO))."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        return f"{key} ({', '.join(changed_keys(old, new))})"
    return key


def plan_record(ctx: AppContext, name: str) -> SetupRecord | None:
    return Records(ctx.workspace.state).load(name)
