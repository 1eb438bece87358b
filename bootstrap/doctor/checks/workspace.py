"""Workspace: the checkouts against their pins, the LLVM build against the LLVM pin, local changes."""

from __future__ import annotations

from pathlib import Path

from bootstrap.core.errors import TritondevError
from bootstrap.core.fsutil import read_regular_text
from bootstrap.doctor.checks.toolchain import tool_on_path
from bootstrap.doctor.facts import Facts, ProbeFailed, Skip
from bootstrap.doctor.model import CheckOutcome, error, ok, warn
from bootstrap.doctor.registry import check
from bootstrap.doctor.versions import TRITON_DISTS, git_hash, triton_requirement
from bootstrap.git.layout import llvm_pin
from bootstrap.git.setup_py import read_setup_py_args
from bootstrap.pipeline.built.attempt import read_last_setup
from bootstrap.pipeline.built.state import SetupState, read_state
from bootstrap.pipeline.built.triton_build import llvm_pin_moved
from bootstrap.pipeline.host.buildtree import read_vcs_revision

GIT_TIMEOUT = 30.0


def llvm_builds(build_root: Path) -> list[Path]:
    """LLVM build folders under <workspace>/build (those with bin/llvm-config), one to three levels down."""
    if not build_root.is_dir():
        return []
    found: list[Path] = []
    for pattern in ("*/bin/llvm-config", "*/*/bin/llvm-config", "*/*/*/bin/llvm-config"):
        found.extend(p.parent.parent for p in build_root.glob(pattern))
    return sorted(set(found))


def _git(facts: Facts, repo: Path, *args: str) -> str | None:
    if not (repo / ".git").exists():
        return None
    git = tool_on_path(facts, "git")
    if git is None:
        raise Skip("git is not installed (see toolchain.git)")
    try:
        result = facts.ctx.runner.capture(
            [git.path, "-C", str(repo), *args], step="doctor-git", check=False, timeout=GIT_TIMEOUT
        )
    except Exception as exc:
        raise ProbeFailed(f"git {' '.join(args)} in {repo} failed: {exc}") from None
    return result.stdout.strip() if result.ok else None


def _checkouts(facts: Facts) -> dict[str, Path]:
    src = facts.ctx.workspace.src
    found = {name: src / name for name in ("triton", "llvm-project") if (src / name / ".git").exists()}
    if not found:
        raise Skip(f"no checkouts in {src} yet", "tritondev setup")
    return found


def triton_pin(facts: Facts) -> tuple[str | None, str]:
    """The Triton commit the workspace should have: the triton_commit setting, else torch's +git pin."""
    settings = facts.ctx.settings
    if settings.triton_commit:
        return settings.triton_commit, f"triton_commit ({settings.source_of('triton_commit')})"
    try:
        requires = facts.environment().torch_requires
    except (Skip, ProbeFailed):
        requires = None
    if requires:
        req = triton_requirement(list(requires))
        if req is not None and req.name.lower() in TRITON_DISTS:
            for spec in req.specifier:
                pinned = git_hash(spec.version)
                if pinned:
                    return pinned, f"the installed torch's requirement {req}"
    return None, "no pin known locally (a release torch pins a version, not a commit; `tritondev pins` resolves it)"


@check("workspace.location", "the workspace is not a git checkout of something else")
def location(facts: Facts) -> CheckOutcome:
    workspace = facts.ctx.workspace
    what = workspace.not_a_workspace()
    if what is None:
        return ok(f"{workspace.root}" + ("" if workspace.root.is_dir() else " (setup creates it)"))
    return error(
        f"the workspace {workspace.root} is {what}: setup would put src/, venv/, build/ and state/ inside it",
        f"use another folder: --workspace {workspace.root.parent / 'tritondev-work'} or TRITONDEV_WORKSPACE; or "
        f"create {workspace.root / 'tritondev.toml'} to make this one a workspace on purpose",
    )


@check("workspace.checkouts", "checkouts against their pins")
def checkouts(facts: Facts) -> CheckOutcome:
    found = _checkouts(facts)
    details = []
    problems = []
    heads = {}
    for name, repo in found.items():
        head = _git(facts, repo, "rev-parse", "HEAD")
        heads[name] = head
        details.append(f"{name}: {repo} at {head or 'unknown'}")
    if "triton" in found:
        pin, source = triton_pin(facts)
        head = heads.get("triton")
        if pin and head and not head.startswith(pin):
            problems.append(f"Triton checkout is at {head[:12]}, but {source} pins {pin}")
        elif pin:
            details.append(f"Triton pin {pin} from {source}: matches")
        else:
            details.append(source)
    if "llvm-project" in found and "triton" in found:
        try:
            llvm_pin = _llvm_pin(found["triton"])
        except TritondevError as exc:
            problems.append(f"Triton's LLVM pin cannot be read: {exc.message}")
            llvm_pin = None
        head = heads.get("llvm-project")
        if llvm_pin and head and not head.startswith(llvm_pin[1][:12]):
            problems.append(f"llvm-project is at {head[:12]}, but Triton's {llvm_pin[0]} pins {llvm_pin[1][:12]}")
    if problems:
        return warn(problems[0], "tritondev setup (checks out the pinned commits)", *problems[1:], *details)
    return ok(", ".join(f"{n} {(h or '?')[:12]}" for n, h in heads.items()), *details)


def _llvm_pin(triton: Path) -> tuple[str, str] | None:
    """(pin file, LLVM commit) of the Triton checkout; None without a checkout; raises on a bad pin."""

    if not triton.is_dir():
        return None

    def read(rel: str) -> str | None:
        try:
            return read_regular_text(triton / rel)
        except OSError:
            return None

    return llvm_pin(read)


def triton_checkout(facts: Facts) -> Path:
    """The Triton the workspace builds: your clone (--triton-src, given or remembered), else the one its
    last setup built, else <workspace>/src/triton."""
    if facts.ctx.settings.triton_src is not None:
        return facts.ctx.settings.triton_src
    state = _setup_state(facts)
    return state.triton_src if state is not None else facts.ctx.workspace.triton_src


def _setup_state(facts: Facts) -> SetupState | None:
    try:
        return read_state(facts.ctx.workspace.state)
    except TritondevError:
        return None


@check("workspace.llvm-build", "the LLVM build against Triton's LLVM pin")
def llvm_build(facts: Facts) -> CheckOutcome:
    workspace = facts.ctx.workspace
    triton = triton_checkout(facts)
    state = _setup_state(facts)
    if state is not None and state.triton_src.resolve() == triton.resolve():
        moved = llvm_pin_moved(state)  # the build in use, whether under build/ or a --llvm PATH
        if moved is not None:
            return error(moved.message(), moved.fix.replace("run `tritondev setup`", "tritondev setup"))
    builds = llvm_builds(workspace.build)
    if state is not None and (state.llvm_build / "bin" / "llvm-config").is_file():
        builds = sorted({*builds, state.llvm_build})  # a --llvm PATH is the build too
    if not builds:
        raise Skip(f"no LLVM build under {workspace.build} yet", "tritondev setup")
    try:
        pin = _llvm_pin(triton)
    except TritondevError as exc:
        return warn(f"Triton's LLVM pin cannot be read: {exc.message}", exc.fix or "check the Triton checkout")
    revisions = {build: read_vcs_revision(build) for build in builds}
    details = [f"{b}: LLVM {r or 'revision unknown'}" for b, r in revisions.items()]
    if pin is None:
        return ok(f"{len(builds)} LLVM build(s); no Triton checkout to read the LLVM pin from", *details)
    matching = [b for b, r in revisions.items() if r and (r.startswith(pin[1][:12]) or pin[1].startswith(r))]
    if not matching:
        return warn(
            f"no LLVM build matches Triton's pin {pin[1][:12]} ({pin[0]}): Triton would fail with undefined symbols",
            "tritondev setup (builds LLVM at the pin; other builds are kept for reuse)",
            *details,
        )
    return ok(f"{matching[0]} is at the pin {pin[1][:12]} ({pin[0]})", *details)


@check("workspace.dirty", "no uncommitted changes in the checkouts")
def dirty(facts: Facts) -> CheckOutcome:
    found = _checkouts(facts)
    changed = {}
    for name, repo in found.items():
        status = _git(facts, repo, "status", "--porcelain", "--untracked-files=no")
        if status:
            changed[name] = status.splitlines()
    if changed:
        first = next(iter(changed))
        return warn(
            f"{first} has {len(changed[first])} changed file(s): setup will not move it to the pin",
            f"commit or stash them in {found[first]}, or build as it stands: tritondev setup --allow-dirty",
            *[f"{n}: {line}" for n, lines in changed.items() for line in lines[:10]],
        )
    return ok("no local changes in " + ", ".join(found))


@check("workspace.python-bounds", "the target Python within the Triton checkout's python_requires")
def python_bounds(facts: Facts) -> CheckOutcome:
    """Newest setup.py names the newest Python it installs into (MAX_PYTHON, #6649 era on): pip refuses
    the others only after the whole build; say it before."""

    triton = triton_checkout(facts)
    if not triton.is_dir():
        raise Skip(f"no Triton checkout at {triton}", "tritondev setup")

    def read(rel: str) -> str | None:
        try:
            return read_regular_text(triton / rel)
        except OSError:
            return None

    where = "." if (triton / "setup.py").is_file() else "python"
    args = read_setup_py_args(read, where)
    if args.python_requires is None:
        return ok(f"{triton} names no Python bound")
    target = facts.target()  # Skip with its fix when there is none
    if args.refuses(target.version):
        return error(
            f"the checkout's setup.py requires Python {args.python_requires}; the target"
            f" {target.executable} is {target.version}: pip would refuse the install after the build",
            f"tritondev setup --python <a Python {args.python_requires}>",
        )
    return ok(f"Python {target.version} is within {args.python_requires}")


@check("workspace.last-setup", "the last `tritondev setup` finished, and left nothing half made")
def last_setup(facts: Facts) -> CheckOutcome:
    """A setup that failed leaves no settings of its own: without this, doctor right after it would find
    nothing to say. Leftovers: a clone cut short (`src/<name>.partial`), which the next setup starts again."""
    workspace = facts.ctx.workspace
    last = read_last_setup(workspace.state)
    partial = sorted(p for p in workspace.src.glob("*.partial") if p.is_dir()) if workspace.src.is_dir() else []
    left = [
        f"{p}: a clone that did not finish (the next `tritondev setup` starts it again; or remove it)" for p in partial
    ]
    if last is None and not left:
        raise Skip(f"no `tritondev setup` has run in {workspace.root} yet", "tritondev setup")
    if last is not None and last.outcome == "failed":
        details = [*([f"log: {last.log}"] if last.log else []), *left]
        return error(
            last.describe(), last.fix or "tritondev setup (after fixing the cause; the steps done stay done)", *details
        )
    if last is not None and last.outcome != "done":
        return warn(last.describe(), "tritondev setup (it goes on where it stopped)", *left)
    if left:
        return warn(left[0], "tritondev setup", *left[1:])
    return ok("the last `tritondev setup` finished")
