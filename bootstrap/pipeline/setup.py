"""`tritondev setup`: purge -> pins -> sources -> LLVM configure/build -> Triton build/install -> verify.

Every step that changes the machine is fingerprinted (bootstrap.pipeline.fingerprints): a re-run with nothing
changed starts no cmake, ninja or pip and says so; a changed input re-runs only what depends on
it; an interrupted run (Ctrl-C, kill -9) resumes, because a step's record is written only once
the step finished. The commands come from bootstrap.pipeline.recipe, the one place that decides flags.

LLVM builds are kept by key (commit, build type, targets, projects, compiler, linker) under
<workspace>/build/llvm/<key>, with a record inside the build folder. Finished builds are also
listed in a small registry ($XDG_CACHE_HOME/tritondev/llvm-builds.json): a second workspace that
needs the same key links to that build instead of building again, as long as the build and the
LLVM checkout it was configured from are still there.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bootstrap.core.errors import CheckFailed
from bootstrap.core.fsutil import atomic_write_json, atomic_write_text, read_json
from bootstrap.core.interpreter import TargetPython, choose_interpreter, inspect_interpreter
from bootstrap.core.runner import PlannedCommand, Result, Runner
from bootstrap.pipeline import recipe as P
from bootstrap.pipeline.ccache_stats import CcacheDelta, delta, read_counters
from bootstrap.pipeline.fingerprints import RAN, UP_TO_DATE, WOULD_RUN, Outcome, Steps
from bootstrap.pipeline.jobs import Jobs, detect, size_jobs
from bootstrap.pipeline.toolchain import Toolchain, detect_toolchain, remember_versions

if TYPE_CHECKING:
    from rich.console import Console

    from bootstrap.core.context import AppContext
    from bootstrap.git.checkouts import CheckoutReport
    from bootstrap.git.pins import Pins

LLVM_STAMP = ".tritondev-llvm.json"
SETUP_STATE = "setup.json"
SHELL_VALUES = "triton-dev.sh"
REGISTRY_NAME = "llvm-builds.json"
# Written into each checkout (and listed in its .git/info/exclude, so the checkout stays clean),
# with the temporary names their atomic writes use.
LOCAL_FILES = ("CMakeUserPresets.json", "compile_commands.json")
TEMP_PATTERNS = (".CMakeUserPresets.json.*.tmp", ".compile_commands.json.tritondev")

# Variables whose value changes how fast a build runs, never what it produces: kept out of
# fingerprints so that a different --jobs (or a machine with less free memory) rebuilds nothing.
VOLATILE = {"MAX_JOBS", "TRITON_PARALLEL_LINK_JOBS", "LLVM_PARALLEL_LINK_JOBS"}

# The user's own variables that change what a build produces: inputs of the build steps, so that
# changing one (say CXXFLAGS, or TRITON_APPEND_CMAKE_ARGS) rebuilds what it affects.
COMPILER_ENV = ("CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS")
TRITON_USER_ENV = (
    "TRITON_APPEND_CMAKE_ARGS", "TRITON_BUILD_PROTON", "TRITON_BUILD_WITH_ASAN", "TRITON_EXT_ENABLED",
    "TRITON_PLUGIN_DIRS", "TRITON_WHEEL_NAME", "TRITON_WHEEL_VERSION_SUFFIX", "TRITON_STABLE_ABI",
    "TRITON_LLVM_SYSTEM_SUFFIX", "TRITON_BUILD_DIR",
)


def ambient(names: Sequence[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {name: environ[name] for name in names if name in environ}


class TrackingRunner(Runner):
    """A Runner that also remembers which commands change the machine (not probes): the plan."""

    changes: list[PlannedCommand]

    @classmethod
    def wrap(cls, runner: Runner) -> TrackingRunner:
        values = {f.name: getattr(runner, f.name) for f in dataclasses.fields(runner) if f.init}
        tracking = cls(**values)
        tracking.changes = []
        return tracking

    def run(
        self, argv: Sequence[str | os.PathLike[str]], *, step: str, probe: bool = False, **kwargs: Any
    ) -> Result:
        index = len(self.history)
        try:
            return super().run(argv, step=step, probe=probe, **kwargs)
        finally:
            if not probe and len(self.history) > index:
                self.changes.append(self.history[index])


@dataclass
class SetupReport:
    workspace: Path
    dry_run: bool
    pins: dict[str, object] = field(default_factory=dict)
    toolchain: dict[str, object] = field(default_factory=dict)
    jobs: dict[str, object] = field(default_factory=dict)
    presets: dict[str, object] = field(default_factory=dict)
    llvm_build: str = ""
    llvm_reused_from: str | None = None
    target_python: str = ""
    checkouts: list[dict[str, object]] = field(default_factory=list)
    steps: list[Outcome] = field(default_factory=list)
    commands: list[PlannedCommand] = field(default_factory=list)
    ccache: dict[str, CcacheDelta] = field(default_factory=dict)
    verify: dict[str, object] | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def up_to_date(self) -> bool:
        return all(o.status == UP_TO_DATE for o in self.steps)

    def to_json(self) -> dict[str, object]:
        return {
            "workspace": str(self.workspace),
            "dry_run": self.dry_run,
            "up_to_date": self.up_to_date,
            "pins": self.pins,
            "target_python": self.target_python,
            "toolchain": self.toolchain,
            "jobs": self.jobs,
            "llvm_build": self.llvm_build,
            "llvm_reused_from": self.llvm_reused_from,
            "checkouts": self.checkouts,
            "steps": [o.to_json() for o in self.steps],
            "commands": [c.to_json() for c in self.commands],
            "ccache": {k: v.to_json() for k, v in self.ccache.items()},
            "verify": self.verify,
            "notices": self.notices,
            "presets": self.presets,
        }


# ------------------------------------------------------------------------------------------------
# Small pure helpers


def stable(items: Sequence[tuple[str, str]]) -> dict[str, str]:
    """A preset's variables without the volatile ones (for fingerprints)."""
    return {k: v for k, v in items if k not in VOLATILE}


def registry_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME", str(Path.home()))) / ".cache")
    return Path(base) / "tritondev" / REGISTRY_NAME


def read_vcs_revision(llvm_build: Path) -> str | None:
    """LLVM_REVISION from the build's generated VCSRevision.h (what `llvm-config` reports too)."""
    try:
        text = (llvm_build / "include" / "llvm" / "Support" / "VCSRevision.h").read_text(errors="replace")
    except OSError:
        return None
    match = re.search(r'#define\s+LLVM_REVISION\s+"([0-9a-fA-F]{40})"', text)
    return match.group(1).lower() if match else None


def read_cmake_cache(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return values
    for line in text.splitlines():
        if not line or line.startswith(("#", "//")) or "=" not in line:
            continue
        name_type, value = line.split("=", 1)
        values[name_type.split(":", 1)[0]] = value
    return values


def triton_cmake_dirs(setup_dir: Path) -> list[Path]:
    """setup.py's cmake build folders (build/cmake.<platform>-<impl>-<pyver>), newest first."""
    found = [p for p in (setup_dir / "build").glob("cmake.*") if (p / "build.ninja").is_file()]
    return sorted(found, key=lambda p: (p / "build.ninja").stat().st_mtime, reverse=True)


def file_state(root: Path, files: Sequence[str]) -> str:
    """A digest of changed files' names, sizes and mtimes (a dirty checkout's edits are inputs too)."""
    digest = hashlib.sha256()
    for name in sorted(files):
        try:
            st = (root / name).stat()
            digest.update(f"{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        except OSError:
            digest.update(f"{name}:gone\n".encode())
    return digest.hexdigest() if files else ""


def environment_listing(site_packages: Sequence[Path]) -> str:
    """What is installed, cheaply: names of metadata folders, .pth and .egg-link files and triton*.

    Reading one directory per site-packages folder; no process. If it matches the listing recorded
    after the last successful setup, nothing was installed or removed since.
    """
    names: list[str] = []
    for sp in site_packages:
        try:
            entries = os.listdir(sp)
        except OSError:
            continue
        names += [
            f"{sp}/{e}"
            for e in entries
            if e.endswith((".dist-info", ".egg-info", ".pth", ".egg-link")) or e.lower().startswith("triton")
        ]
    return hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()


def own_install_present(site_packages: Sequence[Path], setup_dir: Path) -> bool:
    """Is an editable triton installed from `setup_dir` (pip's direct_url.json says so)?"""
    for sp in site_packages:
        for meta in sp.glob("triton-*.dist-info"):
            data = read_json(meta / "direct_url.json")
            if not isinstance(data, dict):
                continue
            url = str(data.get("url", ""))
            if url.startswith("file://") and Path(url[len("file://") :]).resolve() == setup_dir.resolve():
                return True
    return False


def _dist_key(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def requirements_present(site_packages: Sequence[Path], requires: Sequence[str]) -> bool:
    """Is a distribution of every requirement's name installed (versions are pip's business)?"""
    installed: set[str] = set()
    for sp in site_packages:
        try:
            entries = os.listdir(sp)
        except OSError:
            continue
        installed |= {_dist_key(e.split("-", 1)[0]) for e in entries if e.endswith((".dist-info", ".egg-info"))}
    names = [re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r) for r in requires]
    return all(_dist_key(m.group(1)) in installed for m in names if m)


def exclude_locally(checkout: Path, names: Sequence[str]) -> None:
    """List files tritondev writes into a checkout in its .git/info/exclude (never in .gitignore)."""
    exclude = checkout / ".git" / "info" / "exclude"
    if not (checkout / ".git").is_dir():
        return
    try:
        text = exclude.read_text() if exclude.is_file() else ""
    except OSError:
        return
    lines = text.splitlines()
    missing = [f"/{n}" for n in names if f"/{n}" not in lines]
    if missing:
        header = [] if "# tritondev" in lines else ["# tritondev: files it writes into this checkout"]
        atomic_write_text(exclude, text + ("" if not text or text.endswith("\n") else "\n")
                          + "\n".join([*header, *missing]) + "\n")


def _remove_stale_temporaries(folder: Path) -> None:
    """Temporaries of our own atomic writes left by a killed run (only names we create)."""
    for pattern in TEMP_PATTERNS:
        for path in folder.glob(pattern):
            if path.is_symlink() or path.is_file():
                path.unlink(missing_ok=True)


def write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    atomic_write_text(path, text)


def link_compile_commands(build_dir: Path, checkout: Path) -> None:
    """<checkout>/compile_commands.json -> the build's, for clangd (never replaces a real file)."""
    source = build_dir / "compile_commands.json"
    link = checkout / "compile_commands.json"
    if not source.is_file() or not checkout.is_dir():
        return
    if link.is_symlink():
        if os.readlink(link) == str(source):
            return
        link.unlink()
    elif link.exists():
        return
    tmp = checkout / ".compile_commands.json.tritondev"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(source)
    os.replace(tmp, link)


# ------------------------------------------------------------------------------------------------
# The pipeline


@dataclass
class _Env:
    ctx: AppContext
    runner: TrackingRunner
    console: Console | None
    report: SetupReport
    steps: Steps


def _find_python3() -> str:
    found = shutil.which("python3")
    return found or os.environ.get("PYTHON", "python3")


def _target(env: _Env) -> tuple[Path, TargetPython | None]:
    """The target interpreter; creates the workspace venv when that is the target and it is missing."""
    ctx = env.ctx
    exe, origin = choose_interpreter(ctx.settings.python, ctx.workspace.venv)
    if origin == "workspace venv":
        venv = ctx.workspace.venv
        # One spelling of the venv's interpreter whether or not it exists yet: the plan of a
        # --dry-run names the same commands as the run that creates the venv.
        exe = venv / "bin" / "python"
        marker = ctx.workspace.state / "venv-creating"
        broken = marker.exists()  # a creation of ours was interrupted: finish it with --clear
        if not exe.exists() or broken:
            argv = [_find_python3(), "-m", "venv", *(["--clear"] if broken else []), str(venv)]

            def create() -> None:
                if not ctx.dry_run:
                    marker.touch()
                env.runner.run(argv, step="venv", fix="install the venv module: apt-get install python3-venv")
                if not ctx.dry_run:
                    marker.unlink(missing_ok=True)

            env.steps.run("venv", {"path": str(venv)}, create, force=True)
        if ctx.dry_run and not exe.exists():
            return exe, None
    target = inspect_interpreter(exe, origin, env.runner)
    return target.executable, target


def _purge(env: _Env, target: TargetPython | None, setup_dir: Path) -> bool:
    """Remove every other triton from the target (never our own editable install from this checkout).

    True when something was removed (or would be, under --dry-run).
    """
    if target is None:
        return False
    listing = environment_listing(target.site_packages)
    if env.steps.is_current("purge", {"env": listing, "python": str(target.executable)}):
        env.steps.outcomes.append(Outcome("purge", UP_TO_DATE, "environment unchanged since the last setup"))
        return False
    from bootstrap.purge import execute_purge, plan_purge, preflight, scan_environment
    from bootstrap.purge.pipbridge import PIP_ENV

    scan = scan_environment(target, env.runner, cwd=env.ctx.workspace.root)
    plan = plan_purge(scan)
    mine = setup_dir.resolve()
    triton_src = env.ctx.workspace.src / "triton"

    def ours(path: str | Path | None) -> bool:
        return path is not None and Path(path).resolve().is_relative_to(triton_src.resolve())

    def is_ours(owner: Any) -> bool:
        return bool(owner.editable and owner.editable_path and Path(owner.editable_path).resolve() == mine)

    # Our own editable install from this checkout is kept; a different one (another checkout) goes.
    foreign = tuple(o for o in plan.owners if not is_ours(o))
    leftovers = tuple(p for p in plan.leftovers if not ours(p))
    if not foreign and not leftovers:
        env.steps.outcomes.append(Outcome("purge", UP_TO_DATE, "no other triton installed"))
        return False
    plan = dataclasses.replace(plan, owners=foreign, leftovers=leftovers)

    def action() -> None:
        if env.ctx.dry_run:
            if plan.owners:
                env.runner.run(
                    [target.executable, "-m", "pip", *plan.pip_args()], step="purge-uninstall", env=PIP_ENV,
                    cwd=target.prefix,
                )
            return
        preflight(plan, target, env.runner)
        execute_purge(plan, target, env.runner, env.ctx.workspace.state / "purge-journal.json")

    env.steps.run("purge", {"names": list(plan.names)}, action, force=True)
    return True


def _checkouts(env: _Env, pins: Pins) -> tuple[CheckoutReport, CheckoutReport]:
    from bootstrap.git.checkouts import ensure_checkout

    s = env.ctx.settings
    src = env.ctx.workspace.src
    reports = []
    for name, url, commit in (
        ("triton", pins.triton_url, pins.triton_commit),
        ("llvm-project", pins.llvm_url, pins.llvm_commit),
    ):
        report = ensure_checkout(
            name, url, commit, src / name, env.runner, allow_dirty=s.allow_dirty, full_history=s.full_history
        )
        env.report.checkouts.append(report.to_json())
        if report.dirty_files or report.local_commits:
            env.report.notices.append(
                f"{name} checkout differs from the pin ({len(report.dirty_files)} changed file(s),"
                f" {len(report.local_commits)} local commit(s)); building it as it stands (--allow-dirty)"
            )
        reports.append(report)
    return reports[0], reports[1]


def _read_triton_file(env: _Env, pins: Pins, path: str) -> str | None:
    """A file of the pinned Triton: from the checkout when it is there, else fetched (read only)."""
    checkout = env.ctx.workspace.src / "triton"
    if (checkout / ".git").exists() and not env.ctx.dry_run:
        try:
            return (checkout / path).read_text(errors="replace")
        except OSError:
            return None
    from bootstrap.git.fetch import LocalRepoReader, git_dir_of, open_reader
    from bootstrap.git.refs import validate_repo_url

    git_dir = git_dir_of(checkout, env.runner) if checkout.is_dir() else None
    if git_dir is not None:
        probe = env.runner.run(
            ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{pins.triton_commit}^{{commit}}"],
            step="pins", probe=True, check=False,
        )
        if probe.ok:
            return LocalRepoReader(checkout, git_dir, pins.triton_commit, env.runner).read(path)
    location = validate_repo_url(pins.triton_url, "Triton URL")
    with open_reader(location, pins.triton_commit, env.runner) as reader:
        return reader.read(path)


def _offline_paths(backend: str) -> tuple[tuple[str, str], ...]:
    """Everything TRITON_OFFLINE_BUILD needs, when all of it is on this machine; else () (online).

    nlohmann/json headers (JSON_SYSPATH) and, for NVIDIA, the CUDA tools and headers setup.py would
    otherwise download. Only complete sets are used: a partial one would fail in CMake.
    """
    values: list[tuple[str, str]] = []
    roots = (Path("/usr"), Path("/usr/local"))
    json_root = next((p for p in roots if (p / "include/nlohmann/json.hpp").is_file()), None)
    if json_root is None:
        return ()
    values.append(("JSON_SYSPATH", str(json_root)))
    if backend == "nvidia":
        cuda = Path(os.environ.get("CUDA_HOME") or "/usr/local/cuda")
        tools = {
            "TRITON_PTXAS_PATH": cuda / "bin/ptxas",
            "TRITON_CUOBJDUMP_PATH": cuda / "bin/cuobjdump",
            "TRITON_NVDISASM_PATH": cuda / "bin/nvdisasm",
            "TRITON_CUDACRT_PATH": cuda / "include",
            "TRITON_CUDART_PATH": cuda / "include",
            "TRITON_CUPTI_INCLUDE_PATH": cuda / "extras/CUPTI/include",
        }
        if not all(p.exists() for p in tools.values()):
            return ()
        values += [(k, str(v)) for k, v in tools.items()]
    return tuple(values)


@dataclass
class _LlvmLocation:
    build: Path  # where the build is (a folder of this workspace, or one registered by another)
    source: Path  # the LLVM checkout it is configured from
    reused_from: str | None


def _registry_lookup(key: str, build_fp: str) -> _LlvmLocation | None:
    data = read_json(registry_path())
    if not isinstance(data, dict):
        return None
    for entry in data.get(key, []) if isinstance(data.get(key), list) else []:
        if not isinstance(entry, dict):
            continue
        build, source = Path(str(entry.get("build", ""))), Path(str(entry.get("source", "")))
        stamp = read_json(build / LLVM_STAMP)
        if (
            isinstance(stamp, dict)
            and stamp.get("build_fingerprint") == build_fp
            and (build / "build.ninja").is_file()
            and (source / "llvm" / "CMakeLists.txt").is_file()
        ):
            return _LlvmLocation(build, source, str(build))
    return None


def _registry_add(key: str, build: Path, source: Path) -> None:
    path = registry_path()
    data = read_json(path)
    if not isinstance(data, dict):
        data = {}
    entries = [e for e in data.get(key, []) if isinstance(e, dict) and Path(str(e.get("build"))) != build]
    entries = [e for e in entries if Path(str(e.get("build"))).is_dir()]
    entries.append({"build": str(build), "source": str(source), "registered": time.time()})
    data[key] = entries
    try:
        atomic_write_json(path, data)
    except OSError:
        pass  # only an optimisation for other workspaces


def _locate_llvm(env: _Env, key: str, build_fp: str, llvm_src: Path) -> _LlvmLocation:
    """This workspace's build folder for `key`, or a finished one of another workspace."""
    mine = env.ctx.workspace.build / "llvm" / key
    if mine.is_symlink():
        target = Path(os.readlink(mine))
        stamp = read_json(target / LLVM_STAMP)
        if isinstance(stamp, dict) and (target / "build.ninja").is_file():
            source = Path(str(stamp.get("source", llvm_src)))
            if (source / "llvm" / "CMakeLists.txt").is_file():
                return _LlvmLocation(target, source, str(target))
        if not env.ctx.dry_run:
            mine.unlink()  # the other workspace's build is gone: build here
        return _LlvmLocation(mine, llvm_src, None)
    if mine.is_dir():
        return _LlvmLocation(mine, llvm_src, None)
    found = _registry_lookup(key, build_fp)
    if found is not None and found.build.resolve() != mine.resolve():
        if not env.ctx.dry_run:
            mine.parent.mkdir(parents=True, exist_ok=True)
            tmp = mine.with_name(mine.name + ".link")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(found.build)
            os.replace(tmp, mine)
        return found
    return _LlvmLocation(mine, llvm_src, None)


def failure_excerpt(lines: Sequence[str], limit: int = 25) -> list[str]:
    """The lines that say why a build failed: ninja's last `FAILED:` block (the compiler's errors),
    else the lines naming an error; then the last few lines. pip's long epilogue alone says nothing."""
    failed = [i for i, line in enumerate(lines) if line.lstrip().startswith("FAILED:")]
    picked: list[str] = []
    if failed:
        start = failed[-1]
        for line in lines[start : start + limit]:
            if picked and (NINJA_STOP.search(line) or line.lstrip().startswith("[")):
                break
            picked.append(line)
    else:
        picked = [line for line in lines if re.search(r"\berror\b|Error:", line)][-limit // 2 :]
    last = [line for line in lines[-5:] if line not in picked]
    return [*picked[:limit], *(["..."] if picked and last else []), *last]


NINJA_STOP = re.compile(r"^\s*ninja: build stopped")


def _streamed(env: _Env, command: P.Command, label: str, extra_env: dict[str, str] | None = None) -> Result:
    from bootstrap.core.errors import CommandFailed
    from bootstrap.core.progress import NinjaProgress

    fix = f"see the log; fix the cause and run `tritondev setup` again (it resumes at {command.step})"
    with NinjaProgress(label, env.console, enabled=not env.ctx.json) as progress:
        try:
            return env.runner.run(
                command.argv,
                step=command.step,
                cwd=command.cwd,
                env=command.runner_env(extra_env),
                stream=True,
                on_line=progress.on_line,
                fix=fix,
            )
        except CommandFailed as exc:
            if exc.log_path is None or exc.timed_out:
                raise
            try:
                lines = exc.log_path.read_text(errors="replace").splitlines()
            except OSError:
                raise exc from None
            raise CommandFailed(exc.argv, exc.returncode, exc.log_path, failure_excerpt(lines), fix=fix) from None


def _with_ccache(env: _Env, toolchain: Toolchain, label: str, action: Callable[[], object]) -> None:
    ccache = toolchain.ccache
    if ccache is None or env.ctx.dry_run:
        action()
        return
    before = read_counters(env.runner, ccache.path)
    action()
    after = read_counters(env.runner, ccache.path)
    if before is not None and after is not None:
        d = delta(before, after)
        env.report.ccache[label] = d
        if env.console is not None and not env.ctx.json:
            env.console.print(f"{label}: {d.describe()}")
        if d.remote_errors:
            env.report.notices.append(remote_failed_notice(label, d.remote_errors))


def verify_provenance(
    runner: Runner, python: Path, triton_src: Path, setup_dir: Path, llvm_build: Path, llvm_commit: str,
    base_version: str | None, cwd: Path,
) -> dict[str, object]:
    """Is the triton that imports ours? Version +git<sha8> of the checkout, imported from the
    checkout, built against the LLVM build at the pinned commit. Returns findings; `ok` says all."""
    probe = (
        "import json, importlib.metadata as m\n"
        "out = {}\n"
        "try:\n    out['version'] = m.version('triton')\nexcept Exception as e:\n    out['version'] = None\n"
        "try:\n    import triton\n    out['file'] = triton.__file__\n"
        "except BaseException as e:\n    out['file'] = None; out['error'] = '%s: %s' % (type(e).__name__, e)\n"
        "print(json.dumps(out))\n"
    )
    result = runner.run([python, "-c", probe], step="verify", probe=True, check=False, cwd=cwd, timeout=600)
    try:
        facts = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        facts = {"version": None, "file": None, "error": (result.stdout + result.stderr).strip()[-500:]}
    head = runner.run(["git", "-C", str(triton_src), "rev-parse", "HEAD"], step="verify", probe=True, check=False)
    sha = head.stdout.strip()
    problems: list[str] = []
    version = facts.get("version")
    if not version:
        problems.append("triton is not installed in the target environment")
    elif not str(version).endswith(f"+git{sha[:8]}"):
        plain_ok = base_version is not None and P.version_key(base_version) < (3, 2) and version == base_version
        if not plain_ok:
            problems.append(f"installed triton {version} does not end in +git{sha[:8]} (the checkout's HEAD)")
    file = facts.get("file")
    expected = (triton_src / "python" / "triton").resolve()
    if not file:
        problems.append(f"`import triton` fails: {facts.get('error', 'unknown error')}")
    elif Path(str(file)).resolve().parent != expected:
        problems.append(f"`import triton` loads {file}, not the checkout's {expected}")
    built_with: str | None = None
    dirs = triton_cmake_dirs(setup_dir)
    if dirs:
        built_with = read_cmake_cache(dirs[0] / "CMakeCache.txt").get("LLVM_SYSPATH")
    if built_with is None:
        problems.append(f"no Triton cmake build folder with a CMakeCache.txt under {setup_dir / 'build'}")
    elif Path(built_with).resolve() != llvm_build.resolve():
        problems.append(f"Triton was built against LLVM {built_with}, not {llvm_build}")
    revision = read_vcs_revision(llvm_build)
    if revision != llvm_commit:
        problems.append(
            f"the LLVM build {llvm_build} is at {revision or 'an unknown revision'}, the pin is {llvm_commit}"
        )
    return {
        "ok": not problems,
        "version": version,
        "file": file,
        "triton_head": sha,
        "llvm_syspath": built_with,
        "llvm_revision": revision,
        "problems": problems,
    }


def precheck(ctx: AppContext) -> None:
    """Inputs judged without writing anything, before the workspace is created or locked: a bad
    --ccache-remote URL, a --python (or TRITONDEV_PYTHON, active env) that is not a working interpreter."""
    if ctx.settings.ccache_remote:
        from bootstrap.pipeline.ccache_remote import parse_remote_url

        parse_remote_url(ctx.settings.ccache_remote)
    exe, origin = choose_interpreter(ctx.settings.python, ctx.workspace.venv)
    if origin != "workspace venv":
        # a runner without a log folder: its log would create the workspace this check protects
        inspect_interpreter(exe, origin, Runner(quiet=True))


def run_setup(ctx: AppContext, console: Console | None) -> SetupReport:
    """The whole pipeline; the caller holds the workspace lock (unless --dry-run)."""
    from bootstrap.git.pins import resolve_pins

    runner = TrackingRunner.wrap(ctx.runner)
    ctx.runner = runner
    ws = ctx.workspace
    report = SetupReport(workspace=ws.root, dry_run=ctx.dry_run)
    steps = Steps(ws.state, dry_run=ctx.dry_run)
    env = _Env(ctx, runner, console, report, steps)
    s = ctx.settings

    precheck(ctx)
    # Pins first: a bad commit, ref or pin file stops setup before anything (even the venv, even the
    # tool-version cache) is written.
    pins = resolve_pins(ctx)
    report.pins = pins.to_json()
    # The tool-version cache is only read here; a first one is written once the checkouts are in place.
    tools_cache = ws.state / "tools.json"
    toolchain = detect_toolchain(
        runner, use_lld=s.lld, use_ccache=s.ccache, cache_file=tools_cache if tools_cache.is_file() else None
    )
    report.toolchain = toolchain.to_json()
    report.notices += list(toolchain.notices)
    extra_env = _remote_env(s.ccache_remote, toolchain, ws.root)  # validated before anything changes
    resources = detect()
    # One sizing for both builds, by the hungrier build type of the two.
    hungriest = next(t for t in ("Debug", "RelWithDebInfo", "Release") if t in (s.build_type, s.llvm_build_type))
    jobs: Jobs = size_jobs(resources, hungriest, jobs=s.jobs, link_jobs=s.link_jobs)
    report.jobs = {**jobs.to_json(), **resources.to_json()}

    python, target = _target(env)
    report.target_python = str(python)
    triton_src, llvm_src = ws.src / "triton", ws.src / "llvm-project"
    setup_dir = triton_src if pins.layout.setup_py_dir == "." else triton_src / pins.layout.setup_py_dir
    triton_co, llvm_co = _checkouts(env, pins)
    if not ctx.dry_run and not tools_cache.is_file() and ws.state.is_dir():
        remember_versions(toolchain, tools_cache)

    script = None
    if pins.layout.has_build_llvm_script:
        script = _read_triton_file(env, pins, "scripts/build-llvm-project.sh")
    era = P.llvm_era(script, pins.layout.version or pins.triton_version, s.backend)
    offline = _offline_paths(s.backend)
    key = P.llvm_build_key(pins.llvm_commit, s.llvm_build_type, era, toolchain)

    def inputs_for(llvm_build: Path, source: Path) -> P.PresetInputs:
        return P.PresetInputs(
            paths=P.Paths(ws.root, triton_src, source, llvm_build, python, ws.root / "triton-home"),
            setup_py_dir=pins.layout.setup_py_dir,
            build_requires=pins.layout.build_requires,
            llvm_commit=pins.llvm_commit,
            build_type=s.build_type,
            llvm_build_type=s.llvm_build_type,
            era=era,
            toolchain=toolchain,
            jobs=jobs,
            offline=offline,
        )

    # The LLVM fingerprints hold no paths: a build made elsewhere with the same inputs is the same build.
    probe_presets = P.make_presets(inputs_for(ws.build / "llvm" / key, llvm_src))
    configure_inputs = {
        "key": key,
        "cmake": stable(probe_presets.llvm_cache),
        "cmake_version": toolchain.cmake.version,
        "ccache": toolchain.ccache.version if toolchain.ccache else None,
        "environment": ambient(COMPILER_ENV),
    }
    configure_fp = steps.fingerprint_of("llvm-configure", configure_inputs)
    llvm_state = {"commit": pins.llvm_commit, "head": llvm_co.head, "edits": file_state(llvm_src, llvm_co.dirty_files)}
    build_fp = steps.fingerprint_of(
        "llvm-build", {**llvm_state, "ninja": toolchain.ninja.version, "configure": configure_fp}
    )
    where = _locate_llvm(env, key, build_fp, llvm_src)
    presets = P.make_presets(inputs_for(where.build, where.source))
    report.presets = presets.to_json()
    report.llvm_build = str(where.build)
    report.llvm_reused_from = where.reused_from
    if where.reused_from:
        report.notices.append(f"LLVM build reused from {where.reused_from} (same commit, flags and toolchain)")

    _write_local_files(env, presets, pins, where)

    stamp_path = where.build / LLVM_STAMP
    stamp = read_json(stamp_path)
    stamp = stamp if isinstance(stamp, dict) else {}

    # LLVM configure and build: their records live in the build folder itself, so any workspace
    # that uses the folder knows what state it is in.
    steps.fingerprints["llvm-configure"] = configure_fp
    if stamp.get("configure_fingerprint") == configure_fp and (where.build / "build.ninja").is_file():
        steps.outcomes.append(Outcome("llvm-configure", UP_TO_DATE, "flags and toolchain unchanged"))
    elif where.reused_from:
        steps.outcomes.append(Outcome("llvm-configure", UP_TO_DATE, f"reused {where.reused_from}"))
    else:
        def configure() -> None:
            if not ctx.dry_run:
                where.build.mkdir(parents=True, exist_ok=True)
                _write_stamp(stamp_path, {**stamp, "configure_fingerprint": None, "build_fingerprint": None})
            runner.run(presets.llvm_configure.argv, step="llvm-configure", env=presets.llvm_configure.runner_env(),
                       fix="see the log; a missing tool or a bad flag is named near its end")
            if not ctx.dry_run:
                stamp.update(configure_fingerprint=configure_fp, build_fingerprint=None,
                             source=str(where.source), key=key)
                _write_stamp(stamp_path, stamp)

        _record_outcome(steps, "llvm-configure", configure,
                        "never configured here" if not stamp else "flags or toolchain changed")

    steps.fingerprints["llvm-build"] = build_fp
    if stamp.get("build_fingerprint") == build_fp and (where.build / "build.ninja").is_file():
        steps.outcomes.append(Outcome("llvm-build", UP_TO_DATE, "LLVM commit and flags unchanged"))
    else:
        def build_llvm() -> None:
            _with_ccache(env, toolchain, "LLVM build", lambda: _streamed(env, presets.llvm_build, "LLVM/MLIR",
                                                                         extra_env))
            if not ctx.dry_run:
                stamp.update(build_fingerprint=build_fp, commit=pins.llvm_commit, source=str(where.source), key=key)
                _write_stamp(stamp_path, stamp)
                _registry_add(key, where.build.resolve(), where.source.resolve())

        _record_outcome(steps, "llvm-build", build_llvm, "LLVM commit, flags or sources changed")
    if not ctx.dry_run:
        link_compile_commands(where.build, where.source)

    # The purge comes only now, right before Triton is installed: a checkout with local work (exit 6)
    # or a failed hour-long LLVM build leaves the user's current Triton installed and working.
    purged = _purge(env, target, setup_dir)

    # Triton: build requirements, then the editable install through setup.py.
    py_inputs = {"python": str(python), "version": target.version if target else None}
    if presets.pip_requirements is not None:
        req = presets.pip_requirements
        if steps.was_interrupted("triton-requirements"):
            # pip killed mid-install leaves packages whose metadata says "installed" and whose files
            # are half there; only a forced reinstall repairs them.
            req = dataclasses.replace(req, argv=(*req.argv[:5], "--force-reinstall", *req.argv[5:]))
        requires = pins.layout.build_requires
        steps.run("triton-requirements", {**py_inputs, "requires": list(requires)},
                  lambda: runner.run(req.argv, step=req.step, env=req.runner_env(),
                                     fix="check that the package index is reachable (pip's own output is in the log)"),
                  # A recreated venv (or a user's pip uninstall) needs them again.
                  check=(lambda: requirements_present(target.site_packages, requires)) if target else None)
    install = presets.pip_install
    site = target.site_packages if target else ()
    install_inputs = {
        **py_inputs,
        "triton_commit": pins.triton_commit,
        "head": triton_co.head,
        "edits": file_state(triton_src, triton_co.dirty_files),
        "env": stable(install.env),
        "environment": ambient(COMPILER_ENV + TRITON_USER_ENV),
        "toolchain": toolchain.identity(),
        "ccache": toolchain.ccache is not None,
    }
    steps.run(
        "triton-install",
        install_inputs,
        lambda: _with_ccache(env, toolchain, "Triton build", lambda: _streamed(env, install, "Triton", extra_env)),
        after=("llvm-build",) + (("triton-requirements",) if presets.pip_requirements else ()),
        # Still installed from this checkout, and setup.py's build folder still there (an editable
        # install needs both).
        check=(lambda: own_install_present(site, setup_dir) and bool(triton_cmake_dirs(setup_dir))) if target else None,
    )
    if not ctx.dry_run:
        dirs = triton_cmake_dirs(setup_dir)
        if dirs:
            link_compile_commands(dirs[0], triton_src)

    # Verify: provenance always; the kernel check where that command exists (and not --skip-verify).
    def verify() -> None:
        if ctx.dry_run:
            return
        findings = verify_provenance(runner, python, triton_src, setup_dir, where.build, pins.llvm_commit,
                                     pins.layout.version, ws.state)
        report.verify = {"provenance": findings}
        if not findings["ok"]:
            problems = "; ".join(str(p) for p in findings["problems"])  # type: ignore[attr-defined]
            raise CheckFailed(f"the installed triton is not the one just built: {problems}",
                              fix="run `tritondev setup` again; if it persists, `tritondev doctor` says more")
        kernel = _kernel_check(ctx) if not s.skip_verify else None
        if kernel is not None:
            report.verify["kernels"] = kernel
            if kernel.get("skipped"):
                report.notices.append(f"kernel check skipped: {kernel['skipped']}")
            if not kernel.get("ok"):
                raise CheckFailed("the kernel check failed on the installed triton",
                                  fix="see `tritondev verify` for details")

    # What is installed is an input too: a package added or removed since (say a wheel that brings its
    # own triton, removed again by the purge above) gets the installed triton verified again.
    verify_inputs = {"skip_verify": s.skip_verify, "env": environment_listing(site)}
    # After a purge the installed triton is verified again even if nothing else changed: removing
    # another distribution can take files that ours needs.
    steps.run("verify", verify_inputs, verify, after=("triton-install",), force=purged,
              why="another triton was removed" if purged else None)

    if not ctx.dry_run and target is not None:
        # The environment as this setup left it: the next run skips the purge scan if it is unchanged.
        steps.remember("purge", {"env": environment_listing(target.site_packages), "python": str(target.executable)})
        atomic_write_json(ws.state / SETUP_STATE, {
            "triton_src": str(triton_src),
            "setup_py_dir": str(setup_dir),
            "python": str(python),
            "llvm_build": str(where.build),
            "pip_install": install.to_json(),
            "unset": list(install.unset),
            "install_inputs": install_inputs,
            "install_head": triton_co.head,
            "setup_digest": setup_files_digest(setup_dir),
        })
    report.steps = steps.outcomes
    report.commands = runner.changes
    return report


def _remote_env(url: str | None, toolchain: Toolchain, workspace: Path) -> dict[str, str]:
    """CCACHE_REMOTE_STORAGE for the build commands only (the runner's echo and logs mask the password),
    with the workspace as ccache's base_dir so that other workspaces' entries match."""
    if not url or toolchain.ccache is None:
        return {}
    from packaging.version import InvalidVersion, Version

    from bootstrap.pipeline.ccache_remote import env_for, parse_remote_url

    try:
        version: Version | None = Version(toolchain.ccache.version)
    except InvalidVersion:
        version = None
    return env_for(parse_remote_url(url), version, base_dir=workspace, environ=os.environ)


def _build_remote_env(ctx: AppContext, runner: Runner, ccache: str | None) -> dict[str, str]:
    """The remote for `tritondev build`, as setup passes it (ccache's version read from ccache itself)."""
    if not ctx.settings.ccache_remote or ccache is None:
        return {}
    from bootstrap.pipeline.ccache_remote import env_for, parse_ccache_version, parse_remote_url

    remote = parse_remote_url(ctx.settings.ccache_remote)
    probe = runner.run([ccache, "--version"], step="build-probe", probe=True, check=False)
    return env_for(remote, parse_ccache_version(probe.stdout), base_dir=ctx.workspace.root, environ=os.environ)


def remote_failed_notice(label: str, failures: int) -> str:
    return (f"ccache remote storage failed {failures} time(s) during the {label} (errors or timeouts): the build "
            "went on with the local cache; check the server with `tritondev doctor --check toolchain.ccache-remote`")


def _record_outcome(steps: Steps, name: str, action: Callable[[], None], reason: str) -> None:
    started = time.monotonic()
    action()
    status = WOULD_RUN if steps.dry_run else RAN
    steps.outcomes.append(Outcome(name, status, reason, time.monotonic() - started))


def _write_stamp(path: Path, data: Mapping[str, object]) -> None:
    atomic_write_json(path, dict(data))


def _write_local_files(env: _Env, presets: P.Presets, pins: Pins, where: _LlvmLocation) -> None:
    """CMakeUserPresets.json in each checkout and the values the shell functions run."""
    if env.ctx.dry_run:
        return
    ws = env.ctx.workspace
    jobs = int(env.report.jobs.get("compile", 1))  # type: ignore[call-overload]
    triton_src = ws.src / "triton"
    # Listed in .git/info/exclude *before* they are written, with the temporary names of their atomic
    # writes: a run killed in between must not leave the checkout looking changed.
    if (where.source / "llvm").is_dir() and where.reused_from is None:
        exclude_locally(where.source, ["llvm/CMakeUserPresets.json", "compile_commands.json", *TEMP_PATTERNS,
                                       *[f"llvm/{t}" for t in TEMP_PATTERNS]])
        _remove_stale_temporaries(where.source / "llvm")
        _remove_stale_temporaries(where.source)
        write_if_changed(
            where.source / "llvm" / "CMakeUserPresets.json",
            P.render_cmake_user_presets(presets.llvm_cache, where.build, jobs, display="LLVM/MLIR for Triton"),
        )
    if triton_src.is_dir():
        exclude_locally(triton_src, [*LOCAL_FILES, *TEMP_PATTERNS])
        _remove_stale_temporaries(triton_src)
        write_if_changed(
            triton_src / "CMakeUserPresets.json",
            P.render_cmake_user_presets(presets.triton_cache, presets.triton_cmake_build_dir, jobs,
                                        display="Triton (hand-configured build)"),
        )
    paths = P.Paths(ws.root, triton_src, where.source, where.build, Path(presets.pip_install.argv[0]),
                    ws.root / "triton-home")
    write_if_changed(ws.state / SHELL_VALUES, P.render_shell_values(presets, paths))


def _kernel_check(ctx: AppContext) -> dict[str, object] | None:
    """The verify command's kernel check, where that module exists in this build of tritondev."""
    import importlib

    try:
        kernel_verify = importlib.import_module("bootstrap.kernels.verify")
    except ImportError:
        return None
    from bootstrap.core.errors import ToolMissing

    try:
        result = kernel_verify.run_verify(ctx, [])
    except ToolMissing as exc:
        # No torch or numpy in the target: the kernel check cannot run there; provenance stands.
        return {"ok": True, "skipped": exc.message}
    data = result.to_json()
    return data if isinstance(data, dict) else {"ok": bool(result.ok)}



# ------------------------------------------------------------------------------------------------
# `tritondev build`

_TARGET_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+/-]*$")


def setup_files_digest(setup_dir: Path) -> str:
    """setup.py and pyproject.toml: when they change, pip must install again (not just ninja)."""
    digest = hashlib.sha256()
    for name in ("setup.py", "pyproject.toml"):
        try:
            digest.update(name.encode() + b"\0" + (setup_dir / name).read_bytes())
        except OSError:
            digest.update(name.encode() + b"\0-")
    return digest.hexdigest()


def run_build(ctx: AppContext, target: str | None, console: Console | None) -> dict[str, object]:
    """ninja in setup's Triton build folder (optionally one target); pip install only when needed."""
    from bootstrap.core.errors import UsageError

    runner = TrackingRunner.wrap(ctx.runner)
    ctx.runner = runner
    ws = ctx.workspace
    state = read_json(ws.state / SETUP_STATE)
    if not isinstance(state, dict):
        raise UsageError(
            f"no finished `tritondev setup` in workspace {ws.root}", fix="run `tritondev setup` first"
        )
    setup_dir, triton_src = Path(state["setup_py_dir"]), Path(state["triton_src"])
    dirs = triton_cmake_dirs(setup_dir)
    if not dirs:
        raise UsageError(
            f"no Triton build folder (build/cmake.*/build.ninja) under {setup_dir}",
            fix="run `tritondev setup` (it builds Triton once; `build` then rebuilds incrementally)",
        )
    build_dir = dirs[0]
    pip = state["pip_install"]
    env_values: dict[str, str] = dict(pip.get("env", {}))
    jobs = env_values.get("MAX_JOBS", "1")
    summary: list[str] = []
    if target is not None:
        if not _TARGET_RE.match(target):
            raise UsageError(f"--target {target!r} is not a ninja target name", fix="e.g. --target triton-opt")
        listing = runner.run(["ninja", "-C", str(build_dir), "-t", "targets", "all"], step="build-probe",
                             probe=True, check=False)
        names = {line.split(":", 1)[0] for line in listing.stdout.splitlines() if ":" in line}
        if names and target not in names:
            import difflib

            close = difflib.get_close_matches(target, sorted(names), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(f"no ninja target {target!r} in {build_dir}{hint}",
                             fix=f"list them with: ninja -C {build_dir} -t targets all")
    toolchain_ccache = shutil.which("ccache") if env_values.get("TRITON_BUILD_WITH_CCACHE") == "1" else None
    command = P.Command("triton-build", ("ninja", "-C", str(build_dir), "-j", jobs, *([target] if target else [])))
    env = _Env(ctx, runner, console, SetupReport(ws.root, ctx.dry_run), Steps(ws.state, dry_run=ctx.dry_run))

    remote_env = _build_remote_env(ctx, runner, toolchain_ccache)

    def ninja() -> None:
        _streamed(env, command, f"Triton {target or 'build'}", remote_env)

    if toolchain_ccache and not ctx.dry_run:
        before = read_counters(runner, toolchain_ccache)
        ninja()
        after = read_counters(runner, toolchain_ccache)
        if before is not None and after is not None:
            env.report.ccache["Triton build"] = delta(before, after)
            summary.append(f"Triton build: {delta(before, after).describe()}")
            if delta(before, after).remote_errors:
                summary.append(remote_failed_notice("Triton build", delta(before, after).remote_errors))
    else:
        ninja()

    reinstalled = False
    reasons: list[str] = []
    if target is None:
        head = runner.run(["git", "-C", str(triton_src), "rev-parse", "HEAD"], step="build-probe", probe=True,
                          check=False).stdout.strip()
        if head and head != state.get("install_head"):
            reasons.append(f"HEAD moved to {head[:12]} (the version names the commit)")
        if setup_files_digest(setup_dir) != state.get("setup_digest"):
            reasons.append("setup.py or pyproject.toml changed")
        python = Path(pip["argv"][0])
        if python.exists():
            target_py = inspect_interpreter(python, "setup's target", runner)
            if not own_install_present(target_py.site_packages, setup_dir):
                reasons.append("triton is no longer installed from this checkout")
        if reasons:
            install = P.Command("triton-install", tuple(pip["argv"]), cwd=pip.get("cwd"),
                                env=tuple(env_values.items()), unset=tuple(state.get("unset", [])))
            _streamed(env, install, "Triton install", remote_env)
            reinstalled = True
            if not ctx.dry_run:
                atomic_write_json(ws.state / SETUP_STATE, {**state, "install_head": head,
                                                           "setup_digest": setup_files_digest(setup_dir)})
    summary.append(f"built {target or 'all targets'} in {build_dir}")
    summary.append("reinstalled: " + "; ".join(reasons) if reinstalled else "install unchanged (editable install)")
    return {
        "workspace": str(ws.root),
        "build_dir": str(build_dir),
        "target": target,
        "reinstalled": reinstalled,
        "reasons": reasons,
        "commands": [c.to_json() for c in runner.changes],
        "ccache": {k: v.to_json() for k, v in env.report.ccache.items()},
        "summary": summary,
    }
