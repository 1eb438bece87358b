"""A contributor's own clone (`setup --triton-src`), end to end on the test world: a clone with a
feature branch, a fork remote, a staged file, an edited file and an untracked one is set up, built,
tested (upstream's targets: cpp, interpret, lit) and bisected (in a worktree); afterwards its HEAD,
branch, refs, remotes, config, index and working tree (every file git does not ignore) are
byte-identical, and .git has no worktree left. The build's own outputs are ignored files, as with
`pip install -e .` by hand."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.bisect.steps import wait_for_step
from tests.integration.build.harness import base_env, installed_triton, tritondev
from tests.support.cli import tritondev_argv
from tests.support.run_shared import warm_ccache
from tests.support.venvs import workspace_venv
from tests.world.build import LLVMBuild
from tests.world.world import World

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
# The bug the bisect finds: a commit of the feature branch breaks compile_vector_add's result.
BROKEN = '        result["llir"] = result["llir"].replace("add_kernel", "oops")\n'
CHECK = "import triton\nassert 'define void @add_kernel' in triton.compile_vector_add()['llir']\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def commit(repo: Path, message: str) -> str:
    git(repo, "-c", "user.name=Me", "-c", "user.email=me@example.invalid", "commit", "-q", "-am", message)
    return git(repo, "rev-parse", "HEAD")


def make_clone(world: World, root: Path) -> tuple[Path, list[str]]:
    """A clone of the world's Triton on a feature branch of three commits (the second breaks the
    kernel), with a fork remote, a staged new file, an edited tracked file and an untracked file."""
    # No space in this path: lit puts its tools' paths into RUN lines unquoted (upstream's lit too).
    clone = root / "my-triton"
    subprocess.run(["git", "clone", "-q", str(world.bare["triton"]), str(clone)], check=True)
    git(clone, "checkout", "-q", "-b", "my-feature", "origin/main")
    init = clone / "python" / "triton" / "__init__.py"
    shas = []
    for i, text in enumerate(("# a refactoring\n", BROKEN, "# a later change\n")):
        source = init.read_text()
        if text == BROKEN:
            anchor = '        result["cubin"]'
            source = source.replace("    return result\n", text.replace("        ", "    ") + "    return result\n", 1)
            assert anchor in source
        else:
            source += text
        init.write_text(source)
        shas.append(commit(clone, f"feature step {i}"))
    git(clone, "remote", "add", "fork", "https://example.invalid/me/triton.git")
    (clone / "docs-notes.md").write_text("staged\n")
    git(clone, "add", "docs-notes.md")
    (clone / "README.md").write_text((clone / "README.md").read_text() + "\nmy uncommitted edit\n")
    (clone / "scratch.txt").write_text("untracked notes\n")
    return clone, shas


def state_of(clone: Path) -> dict[str, Any]:
    """What must not change: HEAD, branch, every ref, remotes, config, index, and every file git sees."""
    files = git(clone, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    return {
        "HEAD": (clone / ".git" / "HEAD").read_bytes(),
        "refs": git(clone, "for-each-ref", "--format=%(refname) %(objectname)"),
        "remotes": git(clone, "remote", "-v"),
        "config": (clone / ".git" / "config").read_bytes(),
        "index": (clone / ".git" / "index").read_bytes(),
        "status": git(clone, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all"),
        "files": {f: hashlib.sha256((clone / f).read_bytes()).hexdigest() for f in files if f},
        "worktrees": (clone / ".git" / "worktrees").exists(),
    }


def run(*args: str, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = tritondev(*args, env=env, cwd=cwd)
    assert proc.returncode == 0, f"{args}: {proc.returncode}\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture(scope="module")
def contributor(world: World, mini_llvm: LLVMBuild, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("contributor")
    clone, shas = make_clone(world, root)
    before = state_of(clone)
    env = base_env(root / "home", xdg=root / "xdg", ccache_dir=warm_ccache())
    ws = root / "ws"
    workspace_venv(ws)
    common = ["--workspace", str(ws), "--jobs", "2", "--link-jobs", "2"]
    setup = run(
        "setup",
        *common,
        "--triton-src",
        str(clone),
        "--mirror",
        str(world.git_root),
        "--llvm",
        str(mini_llvm.build),
        "--skip-verify",
        "--json",
        env=env,
    )
    return {
        "root": root,
        "clone": clone,
        "shas": shas,
        "before": before,
        "env": env,
        "ws": ws,
        "common": common,
        "setup": json.loads(setup.stdout),
        "setup_stderr": setup.stderr,
    }


def test_setup_builds_the_clone_as_it_stands_and_says_what_is_uncommitted(contributor: dict[str, Any]) -> None:
    clone, report = contributor["clone"], contributor["setup"]
    steps = {s["step"]: s for s in report["steps"]}
    assert steps["checkout-triton"]["status"] == "up to date"
    assert steps["checkout-triton"]["reason"].startswith("your clone as it stands: branch my-feature")
    assert "3 uncommitted file(s): README.md, docs-notes.md, scratch.txt" in steps["checkout-triton"]["reason"]
    assert not any(c["step"] == "checkout-triton" for c in report["commands"])
    assert report["pins"]["triton_commit"] == contributor["shas"][-1]
    assert report["pins"]["llvm_commit_source"].startswith("cmake/llvm-info.json in your clone")
    facts = installed_triton(contributor["ws"] / "venv" / "bin" / "python", contributor["root"])
    assert Path(facts["file"]).resolve().is_relative_to(clone.resolve())  # editable, from the clone
    assert facts["version"].endswith(f"+git{contributor['shas'][-1][:8]}")
    # No file of tritondev's in your clone: no presets, no .clangd (env --editor prints it).
    assert not (clone / "CMakeUserPresets.json").exists() and not (clone / ".clangd").exists()
    editor = run("env", "--editor", "--workspace", str(contributor["ws"]), env=contributor["env"]).stdout
    # First what clangd already finds (setup.py's link at the root), then .clangd with the line that keeps it
    # out of `git status` (upstream's .gitignore ignores a .clangd/ folder, not the file).
    assert editor.startswith(f"# clangd already finds the compile commands: {clone / 'compile_commands.json'} links")
    assert f"save what follows as {clone / '.clangd'}" in editor and "CompilationDatabase: " in editor
    assert f"echo /.clangd >> {clone / '.git' / 'info' / 'exclude'}" in editor


def test_build_and_upstreams_test_targets_report_counts(contributor: dict[str, Any]) -> None:
    env, common = contributor["env"], ["--workspace", str(contributor["ws"])]
    run("build", *common, env=env)
    cpp = json.loads(run("test", "cpp", *common, "--json", env=env).stdout)
    device = Path("/dev/nvidiactl").exists() or Path("/dev/kfd").exists()  # the device test runs, else skips
    assert cpp["makefile_target"] == "test-cpp"
    assert (cpp["counts"]["passed"], cpp["counts"]["skipped"]) == ((3, 0) if device else (2, 1))
    interpret = json.loads(
        run("test", "interpret", *common, "--install-requirements", "--json", "--", "-n", "2", env=env).stdout
    )
    assert interpret["installed_requirements"] is True
    # test_core.py's two interpreter tests (one skips on the CPU), test_line_info.py, and the node id
    # runtime/test_autotuner.py::test_kwargs[False] the Makefile names.
    assert (interpret["counts"]["passed"], interpret["counts"]["failed"], interpret["counts"]["skipped"]) == (3, 0, 1)
    step = next(s for s in interpret["steps"] if s["kind"] == "pytest")
    assert step["env"] == {"TRITON_CI_CACHE_PHASE": "interpreter", "TRITON_INTERPRET": "1"}
    assert "--device=cpu" in step["argv"]
    assert step["cwd"] == str((contributor["clone"] / "python" / "test" / "unit").resolve())
    lit = json.loads(run("test", "lit", *common, "--json", env=env).stdout)
    assert lit["counts"]["passed"] == 5 and lit["counts"]["failed"] == 0
    if shutil.which("nvidia-smi") is None and shutil.which("rocminfo") is None:  # else the gpu test runs it
        unit = tritondev("test", "unit", *common, env=env)
        assert unit.returncode == 2 and "runs on a GPU, and this machine has none" in unit.stderr


def test_the_contributor_loop_edit_build_test(contributor: dict[str, Any]) -> None:
    """An edit of a pass breaks a lit test; `build` rebuilds only that (no new install), `test lit` counts
    the failure; the edit undone, build and test pass again."""
    env, common = contributor["env"], ["--workspace", str(contributor["ws"])]
    source = contributor["clone"] / "lib" / "Dialect" / "TritonGPU" / "Transforms" / "Coalesce.cpp"
    original = source.read_text()
    source.write_text(original.replace('"%coalesced"', '"%c"'))
    try:
        built = json.loads(run("build", *common, "--json", env=env).stdout)
        assert built["reinstalled"] is False  # an editable install picks the rebuilt library up
        broken = tritondev("test", "lit", *common, "--json", env=env)
        assert broken.returncode == 1
        counts = json.loads(broken.stdout)["counts"]
        # coalesce.mlir and Triton/reproducer.mlir check the name; the golden sample captures it ([[VAL_n:.*]]).
        assert (counts["passed"], counts["failed"]) == (3, 2)
    finally:
        source.write_text(original)
    run("build", *common, env=env)
    again = json.loads(run("test", "lit", *common, "--json", env=env).stdout)
    assert (again["counts"]["passed"], again["counts"]["failed"]) == (5, 0)


def test_a_clone_whose_llvm_pin_moved_is_not_built_against_the_old_llvm(
    contributor: dict[str, Any], world: World
) -> None:
    """The clone's pin file as a rebase onto an LLVM bump leaves it (llvm-bump's, which pins the other LLVM):
    `build` stops naming both commits and what to run (never "install unchanged" against the old MLIR), the
    test commands say it first, and doctor reads the clone's pin, not <workspace>/src/triton's."""
    clone, env, common = contributor["clone"], contributor["env"], ["--workspace", str(contributor["ws"])]
    pinned, other = world.llvm_commits["pinned"], world.llvm_commits["other"]
    info = clone / "cmake" / "llvm-info.json"
    original = info.read_bytes()
    bumped = subprocess.run(
        ["git", "-C", str(clone), "show", "origin/llvm-bump:cmake/llvm-info.json"], capture_output=True, check=True
    ).stdout
    assert other.encode() in bumped
    info.write_bytes(bumped)
    try:
        built = tritondev("build", *common, env=env)
        assert built.returncode == 5, built.stdout + built.stderr[-3000:]
        assert "install unchanged" not in built.stdout + built.stderr
        error = next(line for line in built.stderr.splitlines() if line.startswith("error:"))
        assert f"now pins LLVM {other[:12]}" in error and f"is against LLVM {pinned[:12]}" in error
        assert f"fix: run `tritondev setup --workspace {contributor['ws']} --triton-src {clone}`" in built.stderr
        tested = tritondev("test", "lit", "TritonGPU/coalesce.mlir", *common, env=env)
        assert f"now pins LLVM {other[:12]}" in tested.stderr, tested.stderr[-3000:]
        doctor = tritondev("doctor", *common, "--check", "workspace.llvm-build", "--json", env=env)
        found = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}["workspace.llvm-build"]
        assert found["status"] == "error" and other[:12] in found["summary"] and pinned[:12] in found["summary"]
    finally:
        info.write_bytes(original)
    assert json.loads(run("build", *common, "--json", env=env).stdout)["reinstalled"] is False


def test_bisect_works_in_a_worktree_and_leaves_the_clone_byte_identical(contributor: dict[str, Any]) -> None:
    """Interrupted as its first step starts, the bisect puts your clone's build back; `bisect resume` then
    finds its commits in the clone (there is no src/triton) and goes on, as in a checkout tritondev made."""
    root, clone, shas, env = contributor["root"], contributor["clone"], contributor["shas"], contributor["env"]
    (root / "check.py").write_text(CHECK)
    since = time.time()
    started = subprocess.Popen(
        tritondev_argv(
            "bisect",
            "triton",
            "--workspace",
            str(contributor["ws"]),
            "--good",
            "origin/main",
            "--bad",
            "my-feature",
            "--",
            "python",
            str(root / "check.py"),
        ),
        env=env,
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    wait_for_step(started, contributor["ws"], "01-*", since)
    os.killpg(started.pid, signal.SIGINT)
    _, stderr = started.communicate(timeout=600)
    assert started.returncode in (130, -signal.SIGINT), stderr[-3000:]
    assert state_of(clone) == contributor["before"]
    proc = tritondev("bisect", "resume", "--workspace", str(contributor["ws"]), env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads((contributor["ws"] / "logs" / "bisect" / "result.json").read_text())
    assert result["first_bad"]["commit"] == shas[1]
    worktree = contributor["ws"] / "src" / "triton-bisect"
    assert not worktree.exists()
    # What the end says it restored is what happened: the clone never moved, the worktree gone.
    restored = [line for line in proc.stdout.splitlines() if line.startswith("restored: ")]
    assert restored == [
        f"restored: your clone {clone} untouched (never moved: HEAD {shas[-1][:12]} as it stands), "
        f"the worktree {worktree} removed, and your clone installed again"
    ], proc.stdout[-2000:]
    assert result["restored"] == {
        "clone": {
            "path": str(clone),
            "head": shas[-1],
            "moved": False,
            "worktree": str(worktree),
            "worktree_removed": True,
            "installed": True,
        }
    }
    assert git(clone, "worktree", "list", "--porcelain").count("worktree ") == 1
    facts = installed_triton(contributor["ws"] / "venv" / "bin" / "python", root)
    assert Path(facts["file"]).resolve().is_relative_to(clone.resolve())  # your clone installed again
    assert state_of(clone) == contributor["before"]


def test_doctor_says_how_far_the_clone_is_from_the_installed_torchs_pin(
    contributor: dict[str, Any], world: World
) -> None:
    """torch 2.14.0 in the target (its version.py): PyTorch pins the tip of release/3.8.x, which the clone
    has as origin/release/3.8.x; the feature branch is 3 commits ahead of main, not of that pin."""
    site = next((contributor["ws"] / "venv" / "lib").glob("python*/site-packages"))
    (site / "torch").mkdir()
    (site / "torch" / "version.py").write_text(world.torch_version_py("v2.14.0"))
    try:
        proc = tritondev(
            "doctor",
            "--workspace",
            str(contributor["ws"]),
            "--check",
            "workspace.clone",
            "--json",
            env=contributor["env"],
        )
    finally:
        (site / "torch" / "version.py").unlink()
        (site / "torch").rmdir()
    found = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}["workspace.clone"]
    pin = world.pytorch_tags["v2.14.0"].triton
    assert found["status"] == "warn", found
    counts = git(contributor["clone"], "rev-list", "--left-right", "--count", f"HEAD...{pin}").split()
    assert (
        f"your clone is {counts[0]} commit(s) ahead of and {counts[1]} behind the installed torch's pin"
        f" {pin[:12]}" in found["summary"]
    )
    assert f"both need LLVM {world.llvm_commit[:12]}" in found["summary"]
    assert state_of(contributor["clone"]) == contributor["before"]


def test_run_inside_a_clone_setup_says_how_to_adopt_it_and_asks_nothing(
    contributor: dict[str, Any], world: World
) -> None:
    """stdin is no terminal here: no question (nothing hangs), a note with the command, and the plan is
    the usual checkout of the pin."""
    clone = contributor["clone"]
    proc = tritondev(
        "setup",
        "--workspace",
        str(contributor["root"] / "other-ws"),
        "--mirror",
        str(world.git_root),
        "--llvm",
        "source",
        "--dry-run",
        env=contributor["env"],
        cwd=clone / "python",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"you are in the Triton checkout {clone}: `tritondev setup --triton-src {clone}`" in proc.stderr
    assert "checkout-triton (would run)" in proc.stdout
    assert not (contributor["root"] / "other-ws").exists()


@pytest.mark.gpu
def test_unit_and_cpp_run_on_a_gpu_machine(contributor: dict[str, Any]) -> None:
    """On a machine with a GPU, test unit runs main's test-unit, upstream's test runner (`suite unit
    --num-gpus $(NUM_GPUS) --num-procs $(NUM_PROCS)`, `-n 2` as NUM_PROCS=2): the unit folder, then the
    instrumentation test alone with TRITON_DISABLE_LINE_INFO=0, counted from the JUnit files it writes;
    test cpp's device test runs instead of being skipped."""
    env, common = contributor["env"], ["--workspace", str(contributor["ws"])]
    unit = json.loads(run("test", "unit", *common, "--install-requirements", "--json", "--", "-n", "2", env=env).stdout)
    runner = unit["steps"][-1]
    assert runner["kind"] == "runner" and runner["argv"][-4:] == ["--num-gpus", "1", "--num-procs", "2"]
    # test_core (3), test_line_info, test_frontend, test_autotuner (2), test_debug; gpuhello skips in the
    # folder's pass and passes in its own step.
    assert (unit["counts"]["passed"], unit["counts"]["failed"], unit["counts"]["skipped"]) == (9, 0, 1)
    cpp = json.loads(run("test", "cpp", *common, "--json", env=env).stdout)
    assert (cpp["counts"]["passed"], cpp["counts"]["skipped"]) == (3, 0)
