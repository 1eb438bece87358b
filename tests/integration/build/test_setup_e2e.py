"""`tritondev setup` and `tritondev build` end to end on the test world (real git, cmake, ninja, clang,
ccache, pip, venvs). The mini LLVM and Triton build in seconds, so these are real builds.

One workspace per layout era; the expensive first setups are module-scoped and shared.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from bootstrap.pipeline.host.buildtree import read_cmake_cache
from tests.integration.build.harness import (
    base_env,
    checkout_state,
    commands,
    compile_commands,
    git,
    installed_triton,
    path_without_clang,
    setup_args,
    setup_json,
    shell_function_commands,
    tritondev,
)
from tests.support.cli import tritondev_argv
from tests.support.run_shared import warm_ccache
from tests.support.venvs import fresh_venv, workspace_venv
from tests.world.world import World

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
BUILD_STEPS = ("llvm-configure", "llvm-build", "triton-requirements", "triton-install")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Folders shared by this module's workspaces: ccache and the LLVM build registry."""
    return tmp_path_factory.mktemp("build-shared")


def _env(shared: Path, name: str, path: str | None = None) -> dict[str, str]:
    return base_env(shared / f"home-{name}", xdg=shared / "xdg", ccache_dir=warm_ccache(), path=path)


@pytest.fixture(scope="module")
def root_json(world: World, shared: Path) -> dict[str, Any]:
    """Era root-json (setup.py at the root, llvm-info.json, nanobind), Debug, clang + lld + ccache.

    Runs `setup --dry-run --json` first, then the real setup, and keeps both reports.
    """
    ws = shared / "ws-root-json"
    env = _env(shared, "root-json")
    dry = setup_json(world, ws, "root-json", "--build-type", "Debug", "--dry-run", env=env)
    assert not (ws / "src").exists() and not (ws / "venv").exists()  # the dry run changed nothing
    real = setup_json(world, ws, "root-json", "--build-type", "Debug", env=env)
    return {"ws": ws, "env": env, "dry": dry, "real": real}


def test_from_nothing_to_installed_and_verified(root_json: dict[str, Any], world: World) -> None:
    ws, real = root_json["ws"], root_json["real"]
    sha = world.triton_commits["root-json"]
    facts = installed_triton(ws / "venv" / "bin" / "python", ws)
    assert facts["version"] == f"3.8.0+git{sha[:8]}"
    assert Path(facts["file"]).resolve() == (ws / "src/triton/python/triton/__init__.py").resolve()
    assert facts["build_type"] == "Debug"
    assert facts["llvm_commit"] == world.llvm_commit
    assert real["verify"]["provenance"]["ok"] is True
    assert real["verify"]["provenance"]["llvm_revision"] == world.llvm_commit
    assert [s["status"] for s in real["steps"] if s["step"] in BUILD_STEPS] == ["ran"] * 4
    # The checkouts are exactly at their pins, with nothing untracked (our files are excluded locally).
    assert checkout_state(ws / "src/triton") == (sha, "")
    assert checkout_state(ws / "src/llvm-project") == (world.llvm_commit, "")


def test_triton_has_history_on_a_branch_and_an_editor_setup(root_json: dict[str, Any], world: World) -> None:
    """Triton's checkout: a blobless clone of every branch on `tritondev/<pin8>`, origin the mirror;
    LLVM's: the pin alone. After the build, .clangd names the build folder (compile_commands.json is
    linked beside it), and `env --editor` prints the same configuration."""
    ws, sha = root_json["ws"], world.triton_commits["root-json"]
    triton = ws / "src/triton"
    assert git(triton, "symbolic-ref", "--short", "HEAD") == f"tritondev/{sha[:8]}"
    assert git(triton, "rev-parse", "--is-shallow-repository") == "false"
    assert git(triton, "rev-parse", "origin/main") == world.triton_branches["main"]
    assert git(triton, "rev-parse", "origin/release/3.8.x") == world.triton_branches["release/3.8.x"]
    assert git(triton, "config", "remote.origin.promisor") == "true"
    assert git(ws / "src/llvm-project", "rev-parse", "--is-shallow-repository") == "true"
    build = next((triton / "build").glob("cmake.*"))
    clangd = (triton / ".clangd").read_text()
    assert f"CompilationDatabase: {build}" in clangd and (build / "compile_commands.json").is_file()
    editor = tritondev("env", "--editor", "--workspace", str(ws), env=root_json["env"])
    assert editor.returncode == 0 and editor.stdout.endswith(clangd), editor.stderr


def test_checkouts_setup_changed_hold_gits_untracked_cache(root_json: dict[str, Any]) -> None:
    """Setup's last write into the checkouts it cloned: git's untracked cache (the index extension
    UNTR), which the next check for local changes reads instead of every folder."""
    ws = root_json["ws"]
    for checkout in (ws / "src/triton", ws / "src/llvm-project"):
        assert b"UNTR" in (checkout / ".git" / "index").read_bytes(), checkout


def test_clang_and_ccache_were_used(root_json: dict[str, Any]) -> None:
    ws, real = root_json["ws"], root_json["real"]
    for checkout in (ws / "src/triton", ws / "src/llvm-project"):
        entries = compile_commands(checkout)  # linked into each checkout for clangd
        assert entries and all(
            e["command"].split()[0].endswith("clang++") or e["command"].split()[0].endswith("clang") for e in entries
        ), entries[0]["command"]
    build = Path(real["llvm_build"])
    cache = read_cmake_cache(build / "CMakeCache.txt")
    assert cache["CMAKE_CXX_COMPILER_LAUNCHER"].endswith("ccache")
    assert cache["LLVM_ENABLE_LLD"] == "ON"
    # Projects as the pinned commit's scripts/build-llvm-project.sh has them: clang too from 3.7 (#9568,
    # GSan's clang++), as this era's.
    assert cache["LLVM_ENABLE_PROJECTS"] == "mlir;llvm;lld;clang"
    assert cache["LLVM_ENABLE_ASSERTIONS"] == "ON" and cache["LLVM_INSTALL_UTILS"] == "ON"
    assert (build / "bin" / "FileCheck").exists()
    triton_cache = read_cmake_cache(next((ws / "src/triton/build").glob("cmake.*/CMakeCache.txt")))
    assert triton_cache["CMAKE_CXX_COMPILER_LAUNCHER"].endswith("ccache")
    # ccache really compiled: every compilation of both builds went through it.
    for label in ("LLVM build", "Triton build"):
        assert real["ccache"][label]["hits"] + real["ccache"][label]["misses"] > 0


def test_dry_run_equals_real_run_equals_shell_functions(root_json: dict[str, Any]) -> None:
    ws, env, dry, real = root_json["ws"], root_json["env"], root_json["dry"], root_json["real"]
    assert commands(dry) == commands(real)
    assert [c["step"] for c in dry["commands"]] == [c["step"] for c in real["commands"]]
    assert {"venv", "checkout-triton", "llvm-configure", "llvm-build", "triton-install"} <= {
        c["step"] for c in real["commands"]
    }
    functions = ("triton-configure-mlir", "triton-build-mlir", "triton-pip-install")
    assert shell_function_commands(ws, env, *functions) == commands(real, *BUILD_STEPS)
    if shutil.which("zsh"):
        assert shell_function_commands(ws, env, *functions, shell="zsh") == commands(real, *BUILD_STEPS)
    # And CMakeUserPresets.json holds the same LLVM flags (`cmake --preset tritondev` by hand).
    llvm_presets = json.loads((ws / "src/llvm-project/llvm/CMakeUserPresets.json").read_text())
    configure = llvm_presets["configurePresets"][0]
    argv = commands(real, "llvm-configure")[0].argv
    assert [f"-D{k}={v}" for k, v in configure["cacheVariables"].items()] == [a for a in argv if a.startswith("-D")]
    assert configure["binaryDir"] == argv[argv.index("-B") + 1]
    triton_presets = json.loads((ws / "src/triton/CMakeUserPresets.json").read_text())["configurePresets"][0]
    triton_cmake = shell_function_commands(ws, env, "triton-cmake")[0].argv
    assert [f"-D{k}={v}" for k, v in triton_presets["cacheVariables"].items()] == [
        a for a in triton_cmake if a.startswith("-D")
    ]
    assert triton_presets["cacheVariables"]["LLVM_SYSPATH"] == real["llvm_build"]


def test_triton_cmake_preset_configures_by_hand(root_json: dict[str, Any]) -> None:
    """The Triton preset is usable as it stands: `cmake --preset tritondev` configures."""
    ws, env = root_json["ws"], root_json["env"]
    proc = subprocess.run(
        ["cmake", "--preset", "tritondev"], cwd=ws / "src/triton", env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Using LLVM" in proc.stdout


def test_noop_rerun_runs_nothing_and_says_so(root_json: dict[str, Any], world: World) -> None:
    ws, env = root_json["ws"], root_json["env"]
    proc = tritondev(*setup_args(world, ws, "root-json", "--build-type", "Debug"), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Everything is up to date" in proc.stdout
    assert "$ " not in proc.stderr  # no command was echoed: nothing was run
    report = setup_json(world, ws, "root-json", "--build-type", "Debug", env=env)
    assert report["up_to_date"] is True and report["commands"] == []
    logs = ws / "logs"
    before = {p.name: p.stat().st_mtime_ns for p in logs.glob("*.log")}
    setup_json(world, ws, "root-json", "--build-type", "Debug", env=env)
    after = {p.name: p.stat().st_mtime_ns for p in logs.glob("*.log")}
    for step in ("llvm-configure", "llvm-build", "triton-install", "triton-requirements"):
        assert before[f"{step}.log"] == after[f"{step}.log"]  # no cmake, ninja or pip wrote a log


def test_changed_input_reruns_only_dependents(root_json: dict[str, Any], world: World) -> None:
    ws, env = root_json["ws"], root_json["env"]
    plan = setup_json(world, ws, "root-json", "--build-type", "Release", "--dry-run", env=env)
    report = setup_json(world, ws, "root-json", "--build-type", "Release", env=env)
    assert commands(plan) == commands(report)  # on an existing workspace too
    status = {s["step"]: s["status"] for s in report["steps"]}
    assert status["llvm-configure"] == status["llvm-build"] == "up to date"
    assert status["triton-requirements"] == "up to date"
    assert status["triton-install"] == "ran" and status["verify"] == "ran"
    install = commands(report)
    assert [c.argv[:4] for c in install] == [(str(ws / "venv/bin/python"), "-m", "pip", "install")]
    # CMake's Release, which setup.py has no variable for: appended after its own -DCMAKE_BUILD_TYPE.
    assert dict(install[0].env)["TRITON_APPEND_CMAKE_ARGS"] == "-DCMAKE_BUILD_TYPE=Release"
    assert installed_triton(ws / "venv/bin/python", ws)["build_type"] == "Release"
    # Jobs are not an input: a different --jobs rebuilds nothing.
    again = setup_json(world, ws, "root-json", "--build-type", "Release", "--jobs", "1", env=env)
    assert again["up_to_date"] is True


def test_build_command_rebuilds_incrementally(root_json: dict[str, Any], world: World) -> None:
    ws, env = root_json["ws"], root_json["env"]
    source = ws / "src/triton/lib/Dialect/Triton/IR/Ops.cpp"
    original = source.read_text()
    try:
        source.write_text(original + "\n// edited\n")
        proc = tritondev("build", "--workspace", str(ws), "--json", env=env)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        assert data["reinstalled"] is False  # an editable install: the rebuilt library is live at once
        assert [c["argv"][0] for c in data["commands"]] == ["ninja"]
        log = (ws / "logs/triton-build.log").read_text()
        assert "Ops.cpp" in log and "Linking" in log
        one = tritondev("build", "--workspace", str(ws), "--target", "TritonIR", "--json", env=env)
        assert one.returncode == 0, one.stderr
        assert json.loads(one.stdout)["commands"][0]["argv"][-1] == "TritonIR"
        bad = tritondev("build", "--workspace", str(ws), "--target", "TritonIRR", env=env)
        assert bad.returncode == 2 and "TritonIR" in bad.stderr
        # setup.py changed: ninja alone is not enough, pip installs again.
        setup_py = ws / "src/triton/setup.py"
        setup_text = setup_py.read_text()
        setup_py.write_text(setup_text + "\n# edited\n")
        try:
            proc = tritondev("build", "--workspace", str(ws), "--json", env=env)
            assert proc.returncode == 0, proc.stderr
            data = json.loads(proc.stdout)
            assert data["reinstalled"] is True and "setup.py" in data["reasons"][0]
            assert data["commands"][-1]["argv"][-3:] == ["-v", "-e", str(ws / "src/triton")]
        finally:
            setup_py.write_text(setup_text)
    finally:
        source.write_text(original)
    tritondev("build", "--workspace", str(ws), env=env)
    assert checkout_state(ws / "src/triton")[1] == ""


def test_a_changed_compiler_flag_is_an_input(root_json: dict[str, Any], world: World) -> None:
    ws, env = root_json["ws"], root_json["env"]
    report = setup_json(world, ws, "root-json", "--build-type", "Release", env={**env, "TRITON_BUILD_PROTON": "0"})
    status = {s["step"]: s["status"] for s in report["steps"]}
    assert status["triton-install"] == "ran" and status["llvm-build"] == "up to date"
    assert "environment" in next(s["reason"] for s in report["steps"] if s["step"] == "triton-install")


def test_the_summary_says_each_ccache_figure_once(root_json: dict[str, Any], world: World) -> None:
    """A text run (back to Debug: Triton is rebuilt) says "Triton build: ccache: ..." once, in its summary."""
    ws, env = root_json["ws"], root_json["env"]
    proc = tritondev(*setup_args(world, ws, "root-json", "--build-type", "Debug"), env=env)
    assert proc.returncode == 0, proc.stderr
    shown = proc.stdout + proc.stderr
    assert shown.count("Triton build: ccache:") == 1, shown
    assert "LLVM build: ccache:" not in shown  # LLVM was up to date: nothing to count


def test_a_failing_build_shows_its_log_and_resumes(root_json: dict[str, Any], world: World) -> None:
    """A compile error (a local edit built with --allow-dirty): exit 4, the last lines and the log path;
    without the edit, the next run builds and verifies."""
    ws, env = root_json["ws"], root_json["env"]
    source = ws / "src/triton/lib/Dialect/Triton/IR/Types.cpp"
    original = source.read_text()
    source.write_text(original + "\nthis is not C++;\n")
    try:
        dirty = tritondev(*setup_args(world, ws, "root-json", "--build-type", "Release"), env=env)
        assert dirty.returncode == 6 and "Types.cpp" in dirty.stderr  # a dirty checkout is never built silently
        proc = tritondev(*setup_args(world, ws, "root-json", "--build-type", "Release", "--allow-dirty"), env=env)
        assert proc.returncode == 4, proc.stderr[-2000:]
        assert "triton-install.log" in proc.stderr and "this is not C++" in proc.stderr
        assert "Traceback" not in proc.stderr
    finally:
        source.write_text(original)
    report = setup_json(world, ws, "root-json", "--build-type", "Release", env=env)
    assert next(s for s in report["steps"] if s["step"] == "triton-install")["status"] == "ran"
    assert report["verify"]["provenance"]["ok"] is True


@pytest.mark.slow
def test_werror_and_the_documented_way_around_it(root_json: dict[str, Any], world: World, tmp_path: Path) -> None:
    """Triton's CMakeLists.txt appends -Werror to CMAKE_CXX_FLAGS in every era, whatever
    LLVM_ENABLE_WERROR says (@ 107465b8 l.104, @ 5838701f l.285): a new warning stops the build. What
    docs/setup-and-build.md says to do about it works: add_compile_options(-Wno-error) from a file given
    as CMAKE_PROJECT_INCLUDE (its options come after CMAKE_CXX_FLAGS on each compile line), and
    -UCMAKE_PROJECT_INCLUDE once takes it out of the build folder again."""
    ws, env = root_json["ws"], root_json["env"]
    source = ws / "src/triton/lib/Dialect/Triton/IR/Types.cpp"
    original = source.read_text()
    source.write_text(original + "\nstatic int tritondev_unused_function() { return 0; }\n")  # -Wunused-function
    include = tmp_path / "no-werror.cmake"
    include.write_text("add_compile_options(-Wno-error)\n")
    try:
        stopped = tritondev(*setup_args(world, ws, "root-json", "--build-type", "Release", "--allow-dirty"), env=env)
        assert stopped.returncode == 4, stopped.stderr[-3000:]
        assert "tritondev_unused_function" in stopped.stderr and "-Werror" in stopped.stderr
        # The advice this page gave before: LLVM_ENABLE_WERROR=OFF is read by no CMake file of Triton.
        ignored = {**env, "TRITON_APPEND_CMAKE_ARGS": "-DLLVM_ENABLE_WERROR=OFF"}
        assert (
            tritondev(
                *setup_args(world, ws, "root-json", "--build-type", "Release", "--allow-dirty"), env=ignored
            ).returncode
            == 4
        )
        around = {**env, "TRITON_APPEND_CMAKE_ARGS": f"-DCMAKE_PROJECT_INCLUDE={include}"}
        report = setup_json(world, ws, "root-json", "--build-type", "Release", "--allow-dirty", env=around)
        assert report["verify"]["provenance"]["ok"] is True
        line = next(e["command"].split() for e in compile_commands(ws / "src/triton") if e["file"] == str(source))
        assert line.index("-Wno-error") > line.index("-Werror") and "-DNDEBUG" in line  # Release, from both
    finally:
        source.write_text(original)
    undo = {**env, "TRITON_APPEND_CMAKE_ARGS": "-UCMAKE_PROJECT_INCLUDE"}
    setup_json(world, ws, "root-json", "--build-type", "Release", env=undo)
    build = next((ws / "src/triton/build").glob("cmake.*"))
    assert "CMAKE_PROJECT_INCLUDE" not in read_cmake_cache(build / "CMakeCache.txt")
    line = next(e["command"].split() for e in compile_commands(ws / "src/triton") if e["file"] == str(source))
    assert "-Wno-error" not in line and "-Werror" in line


def test_another_triton_is_purged_and_ours_kept(root_json: dict[str, Any], world: World, tmp_path: Path) -> None:
    """A wheel that brings its own `triton/` (as pytorch-triton does) is removed; our install stays."""
    ws, env = root_json["ws"], root_json["env"]
    python = ws / "venv/bin/python"
    project = tmp_path / "pytorch-triton"
    (project / "triton").mkdir(parents=True)
    (project / "triton/__init__.py").write_text("__version__ = '0.0.1'\n")
    (project / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='pytorch-triton', version='3.0.0', packages=['triton'])\n"
    )
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-build-isolation", str(project)],
        env=env,
        check=True,
        capture_output=True,
    )
    report = setup_json(world, ws, "root-json", "--build-type", "Release", env=env)
    status = {s["step"]: s["status"] for s in report["steps"]}
    assert status["purge"] == "ran" and status["verify"] == "ran"
    assert status["triton-install"] in ("up to date", "ran")
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True
    ).stdout
    names = {p["name"].lower() for p in json.loads(listed)}
    assert "pytorch-triton" not in names and "triton" in names
    facts = installed_triton(python, ws)
    assert Path(facts["file"]).resolve().parent == (ws / "src/triton/python/triton").resolve()
    assert setup_json(world, ws, "root-json", "--build-type", "Release", env=env)["up_to_date"] is True


def test_second_workspace_reuses_the_llvm_build(root_json: dict[str, Any], world: World, shared: Path) -> None:
    """A Triton bump that keeps the LLVM commit (root-hash era), in a new workspace: LLVM is reused."""
    ws = shared / "ws-root-hash"
    workspace_venv(ws)
    env = _env(shared, "root-hash")
    first = root_json["real"]
    report = setup_json(world, ws, "root-hash", "--build-type", "Release", env=env)
    assert report["llvm_reused_from"] == first["llvm_build"]
    assert not commands(report, "llvm-configure", "llvm-build")
    facts = installed_triton(ws / "venv/bin/python", ws)
    assert facts["version"] == f"3.7.0+git{world.triton_commits['root-hash'][:8]}"
    assert Path(facts["llvm_syspath"]).resolve() == Path(first["llvm_build"]).resolve()
    assert report["verify"]["provenance"]["ok"] is True
    debug = setup_json(world, ws, "root-hash", "--build-type", "Debug", env=env)
    assert [c["step"] for c in debug["commands"]] == ["triton-install"]
    assert installed_triton(ws / "venv/bin/python", ws)["build_type"] == "Debug"


def test_gcc_without_clang_and_two_setups_at_once(world: World, shared: Path) -> None:
    """Era python-dir (setup.py under python/), Release, a PATH without clang: gcc builds it.

    Two setups start at once on the workspace: one runs, the other exits 6 at once naming the PID.
    """
    ws = shared / "ws-python-dir"
    workspace_venv(ws)  # made ahead: root_json's setup from nothing makes one
    env = _env(shared, "python-dir", path=path_without_clang(shared / "bin-no-clang"))
    args = setup_args(world, ws, "python-dir", "--build-type", "Release")
    cmd = tritondev_argv(*args)
    first = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lock = ws / "state" / "lock"
    # The first holds the lock once it wrote its pid there (a deadline only against a hang).
    deadline = time.monotonic() + 600
    while not (lock.exists() and lock.read_text().startswith("pid")):
        assert first.poll() is None and time.monotonic() < deadline, "the first setup never took the lock"
        time.sleep(0.05)
    second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    # "At once": the second answered while the first still held the workspace, without waiting for it.
    first_still_running = first.poll() is None
    _, err = first.communicate(timeout=900)
    assert first.returncode == 0, err[-3000:]
    assert second.returncode == 6, second.stderr
    assert f"pid {first.pid}" in second.stderr
    assert first_still_running
    assert "warning" in err and "gcc" in err  # the notice says why gcc
    facts = installed_triton(ws / "venv/bin/python", ws)
    assert facts["version"] == f"3.3.0+git{world.triton_commits['python-dir'][:8]}"
    assert Path(facts["file"]).resolve().parent == (ws / "src/triton/python/triton").resolve()
    for checkout in (ws / "src/triton", ws / "src/llvm-project"):
        compilers = {e["command"].split()[0] for e in compile_commands(checkout)}
        assert compilers and all(c.endswith(("g++", "gcc", "c++")) for c in compilers), compilers
    # Nothing was corrupted: a re-run finds everything up to date.
    assert setup_json(world, ws, "python-dir", "--build-type", "Release", env=env)["up_to_date"] is True
    assert checkout_state(ws / "src/triton") == (world.triton_commits["python-dir"], "")
    # The same era in Debug: only Triton is rebuilt, still with gcc.
    debug = setup_json(world, ws, "python-dir", "--build-type", "Debug", env=env)
    assert [c["step"] for c in debug["commands"]] == ["triton-install"]
    assert installed_triton(ws / "venv/bin/python", ws)["build_type"] == "Debug"
    assert debug["verify"]["provenance"]["ok"] is True


def test_hand_configured_preset_of_the_python_dir_era(shared: Path) -> None:
    """python/setup.py (<= 3.3) passes LLVM_INCLUDE_DIRS and LLVM_LIBRARY_DIR, no LLVM_SYSPATH: so does
    the preset, and `cmake --preset tritondev` configures (the workspace of the test above)."""
    ws = shared / "ws-python-dir"
    env = _env(shared, "python-dir", path=path_without_clang(shared / "bin-no-clang"))
    proc = subprocess.run(
        ["cmake", "--preset", "tritondev"], cwd=ws / "src/triton", env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    preset = json.loads((ws / "src/triton/CMakeUserPresets.json").read_text())["configurePresets"][0]
    variables = preset["cacheVariables"]
    assert "LLVM_SYSPATH" not in variables and variables["LLVM_LIBRARY_DIR"].endswith("/lib")
    assert "TRITON_WHEEL_DIR" not in variables and "pybind11_DIR" in variables
    cache = read_cmake_cache(Path(preset["binaryDir"]) / "CMakeCache.txt")
    assert "LLVM_SYSPATH" not in cache and cache["LLVM_LIBRARY_DIR"] == variables["LLVM_LIBRARY_DIR"]


def test_ccache_remote_reaches_the_builds_masked(world: World, tmp_path: Path) -> None:
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    plan = setup_json(
        world,
        tmp_path / "ws",
        "root-json",
        "--dry-run",
        "--ccache-remote",
        "redis://user:s3cret@127.0.0.1:6379",
        env=env,
    )
    builds = [c for c in plan["commands"] if c["step"] in ("llvm-build", "triton-install")]
    assert len(builds) == 2
    for command in builds:
        assert command["env"]["CCACHE_REMOTE_STORAGE"].startswith("redis://***:***@127.0.0.1:6379")
    assert "s3cret" not in json.dumps(plan)


def test_llvms_build_gets_the_workspace_as_ccaches_base_dir(world: World, tmp_path: Path) -> None:
    """Each LLVM pin builds in a folder of its own; with the workspace as ccache's base_dir a new
    folder's compile commands are the old one's, so a file an LLVM bump left alone is a hit. Triton's
    steps keep absolute paths, and a CCACHE_BASEDIR of the user's is kept."""
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    env.pop("CCACHE_BASEDIR", None)
    ws = tmp_path / "ws"
    plan = setup_json(world, ws, "root-json", "--dry-run", env=env)
    envs = {c["step"]: c["env"] for c in plan["commands"]}
    assert envs["llvm-build"]["CCACHE_BASEDIR"] == str(ws)
    assert "CCACHE_BASEDIR" not in envs["triton-install"]
    mine = setup_json(world, ws, "root-json", "--dry-run", env={**env, "CCACHE_BASEDIR": str(tmp_path)})
    assert all("CCACHE_BASEDIR" not in c["env"] for c in mine["commands"])
    assert not ws.exists()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--jobs", "0"], "jobs"),
        (["--build-type", "Fast"], "build_type"),
        (["--ccache-remote", "ftp://cache.example.com"], "ccache remote"),
        (["--triton-commit", "abc"], "commit"),
    ],
)
def test_bad_input_changes_nothing(world: World, tmp_path: Path, extra: list[str], needle: str) -> None:
    ws = tmp_path / "ws"
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    args = setup_args(world, ws, "root-json")
    args[args.index("--triton-commit") : args.index("--triton-commit") + 2] = []
    if "--triton-commit" not in extra:
        args += ["--triton-commit", world.triton_commits["root-json"]]
    proc = tritondev(*args, *extra, env=env)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr.lower() and "Traceback" not in proc.stderr
    assert not (ws / "src").exists() and not (ws / "venv").exists() and not (ws / "build").exists()


def test_build_without_setup_is_a_usage_error(tmp_path: Path) -> None:
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=tmp_path / "ccache")
    proc = tritondev("build", "--workspace", str(tmp_path / "ws"), env=env)
    assert proc.returncode == 2 and "tritondev setup" in proc.stderr


def test_failed_llvm_build_leaves_the_users_triton_installed(world: World, shared: Path, tmp_path: Path) -> None:
    """The purge runs only right before Triton is installed: when the LLVM build fails (here a ninja
    that dies, standing in for an out-of-memory kill), the Triton the user had still imports."""
    ws = tmp_path / "ws-llvm-fails"
    # A registry of its own: the other tests' finished LLVM build must not be reused here.
    env = base_env(tmp_path / "home", xdg=tmp_path / "xdg", ccache_dir=warm_ccache())
    venv = tmp_path / "user-venv"
    python = fresh_venv(venv)
    project = tmp_path / "their-triton"
    (project / "triton").mkdir(parents=True)
    (project / "triton/__init__.py").write_text("__version__ = '3.5.0'\n")
    (project / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='triton', version='3.5.0', packages=['triton'])\n"
    )
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(project)], check=True, capture_output=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real_ninja = shutil.which("ninja")
    assert real_ninja is not None
    # --version and CMake's own probes go to the real ninja; the build itself dies.
    (bin_dir / "ninja").write_text(
        "#!/bin/bash\n"
        f'case " $* " in *" --version "*|*" -t "*) exec "{real_ninja}" "$@";; esac\n'
        'if [[ " $* " == *" -C "* ]]; then kill -9 $$; fi\n'
        f'exec "{real_ninja}" "$@"\n'
    )
    (bin_dir / "ninja").chmod(0o755)
    crashing = {**env, "PATH": f"{bin_dir}:{env['PATH']}"}
    proc = tritondev(*setup_args(world, ws, "root-json", "--python", str(python)), env=crashing)
    assert proc.returncode == 4, proc.stderr[-3000:]
    still = subprocess.run(
        [str(python), "-c", "import triton; print(triton.__version__)"], capture_output=True, text=True
    )
    assert still.stdout.strip() == "3.5.0", still.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("label", "version"),
    [
        # python/setup.py, no -DLLVM_SYSPATH, tools downloaded at import; the version has no +git part
        # before 3.2 (`version="3.0.0" + TRITON_WHEEL_VERSION_SUFFIX`); 3.0/3.1 download pybind11.
        ("python-dir-3.0", "3.0.0"),
        ("python-dir-3.1", "3.1.0"),
        ("python-dir-3.2", "3.2.0+git{sha8}"),  # -DPYTHON_INCLUDE_DIRS, TRITON_OFFLINE_BUILD, TRITON_APPEND_CMAKE_ARGS
        ("root-setup-3.4", "3.4.0+git{sha8}"),  # root setup.py, no TRITON_BUILD_DIR, no lld package
        ("root-setup-3.5", "3.5.0+git{sha8}"),  # lld's package, compile_commands.json linked by setup.py
        ("root-hash", "3.7.0+git{sha8}"),  # root setup.py, downloads by CMake, llvm-hash.txt, the GSan runtime
        ("root-json-3.8", "3.8.0+git{sha8}"),  # llvm-info.json with a build-info at the same commit
    ],
)
def test_every_other_era_from_nothing_to_a_verified_install(
    world: World, shared: Path, label: str, version: str
) -> None:
    """The eras the other tests of this module do not set up (python-dir, root-setup, root-json and the
    forks are): each from an empty workspace (its venv made ahead, as root_json's setup from nothing makes
    one) to a verified install with the default build type, the LLVM build shared by key. What upstream's
    `pip install -e .` builds: TritonRelBuildWithAsserts, no NDEBUG; the link pool from 3.3; up to 3.2 only
    the C++ launcher, which a second setup finds up to date."""
    ws = shared / f"ws-era-{label}"  # a workspace of its own: one with settings remembered would keep them
    workspace_venv(ws)  # made ahead: root_json's setup from nothing makes one
    env = _env(shared, label)
    report = setup_json(world, ws, label, env=env)
    assert report["verify"]["provenance"]["ok"] is True, report["verify"]
    assert report["verify"]["provenance"]["llvm_revision"] == world.llvm_commit
    facts = installed_triton(ws / "venv/bin/python", ws)
    assert facts["version"] == version.format(sha8=world.triton_commits[label][:8])
    assert Path(facts["file"]).resolve().parent == (ws / "src/triton/python/triton").resolve()
    assert facts["build_type"] == "TritonRelBuildWithAsserts"
    assert checkout_state(ws / "src/triton") == (world.triton_commits[label], "")
    triton = ws / "src/triton"
    build = next(triton.glob("build/cmake.*" if label.startswith("root") else "python/build/cmake.*"))
    cache = read_cmake_cache(build / "CMakeCache.txt")
    entries = json.loads((build / "compile_commands.json").read_text())
    ours = [e for e in entries if "/lib/Dialect/" in e["file"]]
    assert ours and not [e["file"] for e in ours if "-DNDEBUG" in e["command"].split()]
    minor = int(version.split(".")[1])
    assert ("pool = link_job_pool" in (build / "build.ninja").read_text()) == (minor >= 3)
    link = triton / "compile_commands.json"
    assert link.is_symlink() and link.resolve() == (build / "compile_commands.json").resolve()
    if minor >= 3:
        return
    assert cache["CMAKE_CXX_COMPILER_LAUNCHER"] == "ccache" and "CMAKE_C_COMPILER_LAUNCHER" not in cache
    if minor < 2:  # pybind11 downloaded into $HOME/.triton, and the hand preset names that folder
        include = Path(env["HOME"]) / ".triton/pybind11/pybind11-2.11.1/include"
        assert cache["PYBIND11_INCLUDE_DIR"] == str(include) and (include / "pybind11/pybind11.h").is_file()
        preset = json.loads((triton / "CMakeUserPresets.json").read_text())["configurePresets"][0]
        assert preset["cacheVariables"]["PYBIND11_INCLUDE_DIR"] == str(include)
    again = setup_json(world, ws, label, env=env)
    ran = [s for s in again["steps"] if s["status"] != "up to date"]
    assert again["up_to_date"] is True and again["commands"] == [], ran
    if minor == 2:
        off = setup_json(world, ws, label, "--no-ccache", env=env)
        install = next(s for s in off["steps"] if s["step"] == "triton-install")
        assert install["status"] == "ran"
        assert install["reason"].startswith("compiler launcher changed: fresh CMake cache"), install
        assert "CMAKE_CXX_COMPILER_LAUNCHER" not in read_cmake_cache(build / "CMakeCache.txt")
