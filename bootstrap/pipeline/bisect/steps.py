"""One bisect step: put a commit in place, build and install it, run the command, judge its exit.

`bisect triton`: the Triton checkout moves to the commit, then setup's own pipeline runs for it
(facts -> plan -> execute, with the commit as --triton-commit): it reads that commit's LLVM pin,
reuses the LLVM build kept for that pin (this workspace's, or another's through the registry) or
builds it, and rebuilds Triton incrementally through pip and ninja. Setup's plan is where the LLVM
comes from, so a bisect gets whatever setup would get (a kept build, a fresh build, or what a
`--llvm` choice of setup's plan obtains), through that one call.

`bisect llvm`: Triton stays; the LLVM checkout moves to the commit and is built incrementally in a
build folder kept for bisects (`build/llvm-bisect/<key>`: configured once for these flags, then
ninja rebuilds what the commit changed, through ccache), and Triton is reinstalled against it.

The verdict follows `git bisect run`: exit 0 good, 125 skip, 1-127 bad, and a crash (a signal that
means the program broke: SIGSEGV, SIGABRT from a failed assertion, SIGBUS, SIGFPE, SIGILL) bad;
130 (Ctrl-C) stops the bisect; any other exit of 128 or more aborts it, as `git bisect run` does.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import CheckFailed, CommandFailed, MismatchError, ToolMissing
from bootstrap.core.process.runner import Runner
from bootstrap.core.redact import redact
from bootstrap.env.exports import collect_variables
from bootstrap.git.moves import guarded_move
from bootstrap.pipeline.bisect.builds import BuildFolders
from bootstrap.pipeline.bisect.search import Verdict
from bootstrap.pipeline.built.long_commands import run_streamed
from bootstrap.pipeline.built.records import Records
from bootstrap.pipeline.built.state import read_state
from bootstrap.pipeline.ccache.stats import ccache_counted
from bootstrap.pipeline.host.buildtree import setup_py_build_folder
from bootstrap.pipeline.host.fresh_cache import fresh_for_llvm, start_fresh
from bootstrap.pipeline.host.triton_configure import fresh_for_install
from bootstrap.pipeline.llvm import builds as llvm_builds
from bootstrap.pipeline.recipe.era import BACKENDS_BUILT
from bootstrap.pipeline.recipe.inputs import Command
from bootstrap.pipeline.setup import api as setup

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext

GOOD, SKIP, INTERRUPTED = 0, 125, 128 + signal.SIGINT
CRASHES = frozenset({signal.SIGILL, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGSEGV})
# Setup's steps whose failure means "this commit does not build"; any other failure stops the bisect.
BUILD_STEPS = ("llvm-configure", "llvm-build", "triton-install")


def verdict_of(exit_code: int) -> Verdict | None:
    """The verdict of the command's exit status; None: the bisect must stop (abort). Pure."""
    if exit_code == GOOD:
        return Verdict.GOOD
    if exit_code == SKIP:
        return Verdict.SKIP
    if 0 < exit_code < 128 or exit_code - 128 in CRASHES:
        return Verdict.BAD
    return None


class BuildFailed(Exception):
    """The commit does not build (or install): skipped, or bad with --build-failure bad."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Built:
    llvm_rebuilt: bool
    note: str = ""  # what the build said that the verdict should not hide (a failed provenance check)


def checkout(runner: Runner, repo: Path, commit: str, branch: str | None = None) -> None:
    """Move `repo` to `commit` (detached), or onto `branch` when it points there, through the git layer's one
    guarded move (never over local work or ignored files the commit tracks); nothing when it is there."""
    guarded_move(repo.name, repo, commit, runner, "bisect-checkout", branch)


def llvm_built(runner: Runner) -> bool:
    """Did this step's runner run an LLVM build (ninja in an LLVM build folder)?"""
    return any(c.step == "llvm-build" and not c.probe for c in runner.history)


def failed_build(exc: CommandFailed, what: str, root: Path) -> BuildFailed:
    """Why a commit does not build, in one line: the compiler's first error (paths from `root`), and the log."""
    errors = [line.strip() for line in exc.tail if re.search(r"\berror\b", line, re.IGNORECASE)]
    why = errors[0].replace(f"{root}/", "") if errors else f"`{redact(exc.argv[0])} ...` exited {exc.returncode}"
    where = f" (log: {exc.log_path})" if exc.log_path else ""
    return BuildFailed(f"{what}: {redact(why)}{where}")


class TritonStepper:
    """`bisect triton`: each commit through setup's pipeline."""

    def __init__(
        self,
        ctx: AppContext,
        urls: Mapping[str, str],
        console: Console | None,
        said: set[str] | None = None,
        pin_of: Callable[[str], str | None] | None = None,
    ) -> None:
        self.ctx, self.urls, self.console = ctx, dict(urls), console
        self.said: set[str] = set() if said is None else said  # setup's first lines, said once per bisect
        self.pin_of = pin_of or (lambda commit: None)  # the LLVM pin of a commit of the range
        self.folders = BuildFolders(ctx.workspace.state)  # setup.py's build folder, kept per LLVM

    def build(self, commit: str, runner: Runner) -> Built:
        checkout(runner, self.ctx.workspace.triton_src, commit)
        prepare_build_folder(self.ctx, self.folders, self.pin_of(commit))
        note = ""
        try:
            setup.rebuild(
                self.ctx,
                runner,
                self.console,
                self.said,
                triton_commit=commit,
                allow_dirty=True,
                skip_verify=True,
                **self.urls,
            )
        except CommandFailed as exc:
            step = runner.history[-1].step if runner.history else ""
            if step not in BUILD_STEPS:
                raise
            raise failed_build(exc, "does not build", self.ctx.workspace.src) from None
        except MismatchError as exc:
            raise BuildFailed(f"cannot be built: {exc.message}") from None
        except CheckFailed as exc:  # the command judges a build whose `import triton` is broken
            note = exc.message
        state = read_state(self.ctx.workspace.state)
        self.folders.learn(self.pin_of(commit), state.llvm_build if state is not None else None)
        return Built(llvm_built(runner), note)


def prepare_build_folder(ctx: AppContext, folders: BuildFolders, pin: str | None) -> None:
    """setup.py's build folder of the checkout, as the LLVM of `pin` needs it (bisect.builds)."""
    state, target = read_state(ctx.workspace.state), ctx.probed_target()
    if state is not None and target is not None:
        folders.prepare(state.setup_dir, target.version, pin)


class LlvmStepper:
    """`bisect llvm`: Triton fixed at `triton_commit`; each LLVM commit built incrementally in one folder."""

    def __init__(self, ctx: AppContext, triton_commit: str, urls: Mapping[str, str], console: Console | None) -> None:
        self.ctx, self.console = ctx, console
        # Bisecting LLVM means building it from source, whatever `llvm` the workspace otherwise uses.
        self.llvm = setup.llvm_bisect_build(ctx, triton_commit, dict(urls), console)
        self.source, self.folder, self.presets = self.llvm.source, self.llvm.folder, self.llvm.presets

    def build(self, commit: str, runner: Runner) -> Built:
        checkout(runner, self.source, commit)
        site = llvm_builds.read_site(self.folder, self.source)
        configured = self.llvm.configure_fingerprint
        stamp = {"source": str(self.source), "key": self.folder.name, "configure_fingerprint": configured}
        if not site.configured or site.stamp.get("configure_fingerprint") != configured:
            self.folder.mkdir(parents=True, exist_ok=True)
            llvm_builds.write_stamp(self.folder, {**stamp, "configure_fingerprint": None})
            command = self._llvm_configure()
            try:
                runner.run(command.argv, step=command.step, env=command.runner_env())
            except CommandFailed as exc:
                raise failed_build(exc, "LLVM does not configure", self.ctx.workspace.src) from None
            llvm_builds.write_stamp(self.folder, stamp)
        try:
            counts = ccache_counted(
                runner, self.llvm.ccache, lambda: self._streamed(runner, self.presets.llvm_build, "LLVM/MLIR")
            )
        except CommandFailed as exc:
            raise failed_build(exc, "LLVM does not build", self.ctx.workspace.src) from None
        if counts is not None and self.console is not None:
            self.console.print(f"LLVM build: {counts.describe()}")
        llvm_builds.write_stamp(self.folder, {**stamp, "commit": commit})
        # Triton is now built against another LLVM than setup's record says: a later `setup` or
        # `build` installs again (and so does the restore at the end of the bisect).
        Records(self.ctx.workspace.state).started("triton-install")
        self._fresh_triton_cache()
        try:
            self._streamed(runner, self.presets.pip_install, "Triton")
        except CommandFailed as exc:
            raise failed_build(exc, "Triton does not build against it", self.ctx.workspace.src) from None
        return Built(True)

    def _llvm_configure(self) -> Command:
        """The LLVM folder's configure, from a fresh cache when its cache differs.

        The rule is bootstrap.pipeline.host.fresh_cache's."""

        command = self.presets.llvm_configure
        fresh = fresh_for_llvm(
            self.folder, self.source, self.presets.llvm_cache, self.llvm.cmake_version, setup.VOLATILE
        )
        if fresh is None:
            return command
        if not fresh.by_argument:
            start_fresh(self.folder)
            return command
        return dataclasses.replace(command, argv=(command.argv[0], "--fresh", *command.argv[1:]))

    def _fresh_triton_cache(self) -> None:
        """The rule of bootstrap.pipeline.host.fresh_cache for setup.py's build folder: this LLVM folder is not
        the one the workspace was set up with (nor, for a prebuilt or given LLVM, in the same place)."""

        llvm = self.llvm
        folder = setup_py_build_folder(llvm.setup_dir, llvm.python_version) if llvm.python_version else None
        install = self.presets.pip_install
        fresh = fresh_for_install(
            dict(install.env),
            install.unset,
            folder,
            llvm.triton_src,
            llvm.ccache.path if llvm.ccache else None,
            ";".join(BACKENDS_BUILT),
        )
        if fresh is not None:
            if self.console is not None and not self.ctx.json:
                self.console.print(f"fresh CMake cache for {fresh.notice()}", highlight=False, markup=False)
            start_fresh(fresh.folder)

    def _streamed(self, runner: Runner, command: Command, label: str) -> None:
        env: dict[str, str | None] = {**self.llvm.remote_env}
        if self.llvm.distcc is not None:
            env.update(self.llvm.distcc.env(command.step))
        run_streamed(runner, command, label, self.console, show_progress=not self.ctx.json, extra_env=env)


# -- the command --------------------------------------------------------------------------------


def check_environment(ctx: AppContext, python: Path) -> dict[str, str | None]:
    """What the command runs with: `tritondev env`'s variables, the target environment's bin folder
    first on PATH (so `python` is the one Triton is installed into), and TRITON_ALWAYS_COMPILE=1 unless
    set (the kernel cache must not answer for another commit's compiler)."""

    values: dict[str, str | None] = dict(
        collect_variables(ctx.workspace.env_file, dump_ir=False, backend=ctx.settings.backend)
    )
    folder = python.parent
    values["PATH"] = f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"
    if (folder.parent / "pyvenv.cfg").is_file():
        values["VIRTUAL_ENV"] = str(folder.parent)
    if "TRITON_ALWAYS_COMPILE" not in os.environ:
        values["TRITON_ALWAYS_COMPILE"] = "1"
    return values


def resolve_command(command: Sequence[str], cwd: Path, env: Mapping[str, str | None]) -> tuple[str, ...]:
    """The command with its program found (on the PATH it runs with); ToolMissing (exit 3) when it is not."""
    program = command[0]
    if os.sep in program:
        path = Path(program) if Path(program).is_absolute() else cwd / program
        if path.is_file() and os.access(path, os.X_OK):
            return (str(path), *command[1:])
        raise ToolMissing(
            f"{program} does not exist or is not executable (from {cwd})",
            fix="give the path of an executable script, or `python3 script.py`",
        )
    found = shutil.which(program, path=env.get("PATH") or None)
    if found is None:
        raise ToolMissing(f"command {program!r} is not on PATH", fix="install it, or give its full path")
    return (found, *command[1:])


COMMAND_STEP = "command"  # its log: <step folder>/command.log


def run_check(runner: Runner, command: Sequence[str], cwd: Path, env: Mapping[str, str | None]) -> int:
    """Run the command, its output (stdout and stderr, in order) shown on stderr and kept in the step's
    command.log; its exit status (128+N when signal N ended it).

    Run as a build step is (not attached): Ctrl-C then stops tritondev too, which stops the command and
    says "interrupted", whatever status the command would have chosen for itself (pytest exits 2)."""

    show = ui.ChildOutput("stderr")
    result = runner.stream(command, step=COMMAND_STEP, cwd=cwd, env=env, check=False, on_line=show.line)
    return result.returncode if result.returncode >= 0 else 128 - result.returncode
