"""Pure parts of the build: job sizing, LLVM era flags, presets, fingerprints, ninja progress, ccache."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from bootstrap.core.progress import NinjaProgress, parse_ninja_status
from bootstrap.git.layout import llvm_projects
from bootstrap.pipeline.built.records import Records, StepRecord, StepStatus, decide, fingerprint
from bootstrap.pipeline.ccache.stats import delta, parse_print_stats
from bootstrap.pipeline.host.jobs import GIB, Resources, read_mem_available, size_jobs
from bootstrap.pipeline.host.offline import OfflineBuild
from bootstrap.pipeline.host.toolchain import Tool, Toolchain, parse_version
from bootstrap.pipeline.recipe.era import llvm_era
from bootstrap.pipeline.recipe.files import render_cmake_user_presets
from bootstrap.pipeline.recipe.inputs import Paths, PresetInputs
from bootstrap.pipeline.recipe.llvm import llvm_build_key, llvm_flags_key
from bootstrap.pipeline.recipe.presets import make_presets

# --------------------------------------------------------------------------------------------- jobs


@pytest.mark.parametrize(
    ("cpus", "gib", "build_type", "jobs", "link_jobs", "expected"),
    [
        (2, 24, "Release", None, None, (2, 2)),  # this machine: cores limit
        (64, 32, "Debug", None, None, (12, 4)),  # big box, little memory: memory limits both
        (64, 32, "Release", None, None, (21, 10)),
        (16, 8, "RelWithDebInfo", None, None, (4, 1)),  # laptop: one link at a time
        (8, 1, "Debug", None, None, (1, 1)),  # never below one
        (8, 64, "Debug", 3, None, (3, 3)),  # --jobs wins; link jobs capped by it
        (8, 64, "Debug", None, 2, (8, 2)),
        (8, 64, "Debug", 4, 9, (4, 4)),  # link jobs never exceed compile jobs
    ],
)
def test_job_sizing_table(
    cpus: int, gib: float, build_type: str, jobs: int | None, link_jobs: int | None, expected: tuple[int, int]
) -> None:
    sized = size_jobs(Resources(cpus, int(gib * GIB)), build_type, jobs=jobs, link_jobs=link_jobs)
    assert (sized.compile, sized.link) == expected
    assert sized.reason  # shown in the plan


def test_debug_needs_fewer_jobs_than_release_on_the_same_machine() -> None:
    res = Resources(32, 16 * GIB)
    assert size_jobs(res, "Debug").link < size_jobs(res, "Release").link
    assert size_jobs(res, "Debug").compile <= size_jobs(res, "Release").compile


def test_mem_available_is_read_from_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       32000000 kB\nMemFree:  100 kB\nMemAvailable:   16000000 kB\n")
    assert read_mem_available(meminfo) == 16000000 * 1024
    assert read_mem_available(tmp_path / "missing") is None
    assert read_mem_available(Path("/proc/meminfo")) is not None


# ------------------------------------------------------------------------------------------ LLVM era

SCRIPT_2025_05 = """#!/usr/bin/env bash
REPO_ROOT="$(git rev-parse --show-toplevel)"
LLVM_TARGETS=${LLVM_TARGETS:-Native;NVPTX;AMDGPU}
LLVM_PROJECTS=${LLVM_PROJECTS:-mlir;llvm}
LLVM_BUILD_TYPE=${LLVM_BUILD_TYPE:-Debug}
"""
SCRIPT_2026_03 = SCRIPT_2025_05.replace("mlir;llvm}", "mlir;llvm;lld;clang}").replace("Debug", "RelWithDebInfo")


def script(text: str) -> tuple[str, ...] | None:
    """The LLVM_PROJECTS default of a build-llvm-project.sh, as the layout reads it at the pinned commit."""
    return llvm_projects({"scripts/build-llvm-project.sh": text}.get)


def test_llvm_era_follows_the_script_at_the_pinned_commit() -> None:
    assert llvm_era(script(SCRIPT_2025_05), "3.4.0").projects == ("mlir", "llvm")
    assert llvm_era(script(SCRIPT_2025_05.replace("mlir;llvm}", "mlir;llvm;lld}")), "3.5.0").projects == (
        "mlir",
        "llvm",
        "lld",
    )
    era = llvm_era(script(SCRIPT_2026_03), "3.7.0")
    assert era.projects == ("mlir", "llvm", "lld", "clang")
    assert era.origin == "scripts/build-llvm-project.sh"


def test_llvm_era_without_script_uses_the_version_table() -> None:
    assert llvm_era(None, "3.0.0").projects == ("mlir", "llvm")
    assert llvm_era(None, "3.3.1").projects == ("mlir", "llvm")  # README.md @ dbc771e8 l.84: mlir;llvm
    assert llvm_era(None, "3.5.0").projects == ("mlir", "llvm", "lld")  # #7548: lld's package
    assert llvm_era(None, "3.8.0").projects == ("mlir", "llvm", "lld", "clang")
    assert llvm_era(None, "3.3.1").origin == "version table"


@pytest.mark.parametrize("backend", ["nvidia", "amd"])
def test_llvm_targets_cover_both_backends_setup_py_compiles(backend: str) -> None:
    assert llvm_era(None, "3.3.0", backend).targets == ("Native", "NVPTX", "AMDGPU")


# -------------------------------------------------------------------------------------------- presets


def _toolchain(clang: bool = True, ccache: bool = True) -> Toolchain:
    cc = Tool("clang", "/usr/bin/clang", "14.0.6") if clang else Tool("gcc", "/usr/bin/gcc", "12.2.0")
    cxx = Tool("clang++", "/usr/bin/clang++", "14.0.6") if clang else Tool("g++", "/usr/bin/g++", "12.2.0")
    return Toolchain(
        compiler="clang" if clang else "gcc",
        cc=cc,
        cxx=cxx,
        linker="lld" if clang else "default",
        lld=Tool("ld.lld", "/usr/bin/ld.lld", "14.0.6") if clang else None,
        ccache=Tool("ccache", "/usr/bin/ccache", "4.7.5") if ccache else None,
        cmake=Tool("cmake", "/usr/bin/cmake", "3.25.1"),
        ninja=Tool("ninja", "/usr/bin/ninja", "1.11.1"),
    )


def _inputs(
    build_type: str = "Debug",
    llvm_build_type: str = "Release",
    setup_dir: str = ".",
    toolchain: Toolchain | None = None,
    offline: OfflineBuild | None = None,
    sanitize: str | None = None,
) -> PresetInputs:
    ws = Path("/ws")
    return PresetInputs(
        paths=Paths(
            ws,
            ws / "src/triton",
            ws / "src/llvm-project",
            ws / "build/llvm/k",
            ws / "venv/bin/python",
            ws / "triton-home",
        ),
        setup_py_dir=setup_dir,
        build_requires=("setuptools>=40.8.0", "cmake>=3.20,<4.0", "ninja>=1.11.1"),
        llvm_commit="a" * 40,
        build_type=build_type,
        llvm_build_type=llvm_build_type,
        era=llvm_era(script(SCRIPT_2026_03), "3.8.0"),
        toolchain=toolchain if toolchain is not None else _toolchain(),
        jobs=size_jobs(Resources(8, 64 * GIB), build_type),
        offline=offline,
        sanitize=sanitize,
    )


def test_llvm_flags_are_the_upstream_scripts_plus_developer_speed() -> None:
    presets = make_presets(_inputs(llvm_build_type="Debug"))
    cache = dict(presets.llvm_cache)
    for name, value in {
        "LLVM_ENABLE_ASSERTIONS": "ON",
        "LLVM_OPTIMIZED_TABLEGEN": "ON",
        "MLIR_ENABLE_BINDINGS_PYTHON": "OFF",
        "LLVM_ENABLE_ZSTD": "OFF",
        "LLVM_BUILD_UTILS": "ON",
        "LLVM_INSTALL_UTILS": "ON",
        "CMAKE_EXPORT_COMPILE_COMMANDS": "ON",
        "LLVM_ENABLE_PROJECTS": "mlir;llvm;lld;clang",
        "LLVM_TARGETS_TO_BUILD": "Native;NVPTX;AMDGPU",
        "CMAKE_BUILD_TYPE": "Debug",
        "LLVM_ENABLE_LLD": "ON",
        "CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache",
        "LLVM_USE_SPLIT_DWARF": "ON",
        "CMAKE_CXX_COMPILER": "/usr/bin/clang++",
    }.items():
        assert cache[name] == value, name
    assert cache["LLVM_PARALLEL_LINK_JOBS"] == dict(presets.triton_env)["TRITON_PARALLEL_LINK_JOBS"]
    argv = presets.llvm_configure.argv
    assert argv[:3] == ("cmake", "-G", "Ninja")
    assert argv[argv.index("-S") + 1] == "/ws/src/llvm-project/llvm"
    assert presets.llvm_build.argv == ("ninja", "-C", "/ws/build/llvm/k", "-j", str(_inputs().jobs.compile))


def test_release_llvm_has_no_split_dwarf_and_gcc_has_no_lld() -> None:
    cache = dict(make_presets(_inputs(toolchain=_toolchain(clang=False, ccache=False))).llvm_cache)
    assert "LLVM_USE_SPLIT_DWARF" not in cache
    assert "LLVM_ENABLE_LLD" not in cache
    assert "CMAKE_CXX_COMPILER_LAUNCHER" not in cache
    assert cache["CMAKE_CXX_COMPILER"] == "/usr/bin/g++"


@pytest.mark.parametrize(
    ("build_type", "var"), [("Debug", "DEBUG"), ("RelWithDebInfo", "REL_WITH_DEB_INFO"), ("Release", None)]
)
def test_triton_environment_by_build_type(build_type: str, var: str | None) -> None:
    presets = make_presets(_inputs(build_type=build_type))
    env = dict(presets.triton_env)
    assert env["LLVM_SYSPATH"] == "/ws/build/llvm/k"
    assert os.path.isabs(env["LLVM_SYSPATH"])
    assert env["TRITON_BUILD_WITH_CLANG_LLD"] == "1" and env["TRITON_BUILD_WITH_CCACHE"] == "1"
    assert env["TRITON_HOME"] == "/ws/triton-home"
    assert int(env["MAX_JOBS"]) >= 1 and int(env["TRITON_PARALLEL_LINK_JOBS"]) >= 1
    chosen = {"DEBUG", "REL_WITH_DEB_INFO"} & set(env)
    assert chosen == ({var} if var else set())
    # The other build-type switches are removed, so a DEBUG=1 in the user's shell cannot leak in.
    assert var not in presets.triton_unset
    assert "TRITON_REL_BUILD_WITH_ASSERTS" in presets.triton_unset


@pytest.mark.parametrize(("setup_dir", "where"), [(".", "/ws/src/triton"), ("python", "/ws/src/triton/python")])
def test_pip_commands_by_layout_era(setup_dir: str, where: str) -> None:
    presets = make_presets(_inputs(setup_dir=setup_dir))
    assert presets.pip_install.argv[-3:] == ("-v", "-e", where)
    assert "--no-build-isolation" in presets.pip_install.argv
    assert presets.pip_install.argv[:4] == ("/ws/venv/bin/python", "-m", "pip", "install")
    assert presets.pip_requirements is not None
    assert presets.pip_requirements.argv[-3:] == ("setuptools>=40.8.0", "cmake>=3.20,<4.0", "ninja>=1.11.1")
    assert [c.step for c in presets.commands()] == [
        "llvm-configure",
        "llvm-build",
        "triton-requirements",
        "triton-install",
    ]


def test_offline_mode_passes_every_path() -> None:
    offline = OfflineBuild(
        (("TRITON_OFFLINE_BUILD", "1"), ("JSON_SYSPATH", "/usr"), ("TRITON_PTXAS_PATH", "/usr/local/cuda/bin/ptxas")),
        (),
    )
    presets = make_presets(_inputs(offline=offline))
    env = dict(presets.triton_env)
    assert env["TRITON_OFFLINE_BUILD"] == "1" and env["JSON_SYSPATH"] == "/usr"
    assert "TRITON_PTXAS_PATH" not in presets.triton_unset
    cache = dict(presets.triton_cache)
    assert cache["TRITON_PTXAS_PATH"] == "/usr/local/cuda/bin/ptxas" and cache["TRITON_OFFLINE_BUILD"] == "ON"
    online = make_presets(_inputs())
    assert "TRITON_OFFLINE_BUILD" not in dict(online.triton_env)
    assert {"TRITON_OFFLINE_BUILD", "TRITON_PTXAS_PATH"} <= set(online.triton_unset)


def test_llvm_key_depends_on_what_changes_the_build_only() -> None:
    era = llvm_era(None, "3.8.0")
    base = llvm_build_key("a" * 40, "Release", era, _toolchain())
    assert base == llvm_build_key("a" * 40, "Release", era, _toolchain(ccache=False))  # ccache: same output
    assert base != llvm_build_key("b" * 40, "Release", era, _toolchain())
    assert base != llvm_build_key("a" * 40, "Debug", era, _toolchain())
    assert base != llvm_build_key("a" * 40, "Release", llvm_era(None, "3.3.0"), _toolchain())
    assert base != llvm_build_key("a" * 40, "Release", era, _toolchain(clang=False))
    assert base.startswith("a" * 8 + "-Release-")


def test_one_llvm_folder_serves_every_commit_of_a_bisect() -> None:
    """`bisect llvm`'s folder: the build key's flags without the commit."""
    era = llvm_era(None, "3.8.0")
    key = llvm_flags_key("Release", era, _toolchain())
    assert key.startswith("Release-") and "a" * 8 not in key
    assert key == llvm_flags_key("Release", era, _toolchain(ccache=False))
    assert key != llvm_flags_key("Debug", era, _toolchain())
    assert key != llvm_flags_key("Release", era, _toolchain(clang=False))
    assert key != llvm_flags_key("Release", llvm_era(None, "3.3.0"), _toolchain())


def test_cmake_user_presets_carry_the_same_variables() -> None:
    presets = make_presets(_inputs())
    text = render_cmake_user_presets(presets.llvm_cache, Path("/ws/build/llvm/k"), 4, display="LLVM")
    data = json.loads(text)
    configure = data["configurePresets"][0]
    assert configure["name"] == "tritondev" and configure["generator"] == "Ninja"
    assert configure["binaryDir"] == "/ws/build/llvm/k"
    assert [f"-D{k}={v}" for k, v in configure["cacheVariables"].items()] == [
        a for a in presets.llvm_configure.argv if a.startswith("-D")
    ]
    assert data["buildPresets"][0] == {"name": "tritondev", "configurePreset": "tritondev", "jobs": 4}


# ---------------------------------------------------------------------------------------------- steps


def _decided(
    record: StepRecord | None,
    inputs: dict[str, object],
    parents: dict[str, str] | None = None,
    missing: str | None = None,
) -> tuple[StepStatus, str]:
    parents = parents or {}
    return decide(record, fingerprint(inputs, parents), inputs, parents, missing)


def test_a_step_is_up_to_date_only_with_its_fingerprint_and_its_result(tmp_path: Path) -> None:
    records = Records(tmp_path)
    assert _decided(records.load("one"), {"a": 1}) == (StepStatus.WOULD_RUN, "never finished here")
    records.finished("one", {"a": 1}, {})
    assert _decided(records.load("one"), {"a": 1}) == (StepStatus.UP_TO_DATE, "inputs unchanged")
    assert _decided(records.load("one"), {"a": 2}) == (StepStatus.WOULD_RUN, "changed: a")
    assert _decided(records.load("one"), {"a": 1}, missing="the venv") == (
        StepStatus.WOULD_RUN,
        "output missing: the venv",
    )


def test_a_changed_parent_reruns_its_dependents_only(tmp_path: Path) -> None:
    records = Records(tmp_path)
    one = records.finished("one", {"a": 1}, {})
    records.finished("two", {"b": 1}, {})
    records.finished("three", {}, {"one": one})
    new_one = fingerprint({"a": 2}, {})
    assert _decided(records.load("two"), {"b": 1})[0] == StepStatus.UP_TO_DATE
    assert _decided(records.load("three"), {}, {"one": new_one}) == (
        StepStatus.WOULD_RUN,
        "depends on re-run step: one",
    )
    assert _decided(records.load("three"), {}, {"one": one})[0] == StepStatus.UP_TO_DATE


def test_an_interrupted_step_runs_again(tmp_path: Path) -> None:
    records = Records(tmp_path)
    records.finished("one", {"a": 1}, {})
    records.started("one")  # the next run started it and was killed
    record = records.load("one")
    assert record is not None and not record.finished
    # The old record was replaced when the step started: even the old inputs no longer count as done.
    assert _decided(record, {"a": 1}) == (StepStatus.WOULD_RUN, "interrupted last time")


def test_unreadable_records_count_as_none(tmp_path: Path) -> None:
    records = Records(tmp_path)
    records.path("x").parent.mkdir(parents=True)
    for text in ("{not json", "[1, 2]", '{"fingerprint": 3}', '"x"'):
        records.path("x").write_text(text)
        assert records.load("x") is None
    assert StepStatus.UP_TO_DATE.value == "up to date" and f"{StepStatus.WOULD_RUN}" == "would run"
    assert json.dumps({"status": StepStatus.RAN}) == '{"status": "ran"}'


# ---------------------------------------------------------------------------------- progress, ccache


def test_ninja_status_lines() -> None:
    assert parse_ninja_status("[12/345] Building CXX object lib/Foo.cpp.o") == (12, 345)
    assert parse_ninja_status("      [3/4] Linking CXX shared library libtriton.so") == (3, 4)
    assert parse_ninja_status("ninja: no work to do.") is None
    assert parse_ninja_status("[0/0] ") is None


def test_progress_follows_restarts_and_prints_without_a_terminal() -> None:
    from rich.console import Console

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=False, width=100)
    with NinjaProgress("LLVM", console) as progress:
        for i in range(1, 11):
            progress.on_line(f"[{i}/10] step")
        for i in range(1, 5):
            progress.on_line(f"[{i}/4] second build")
    assert (progress.done, progress.total, progress.lines) == (4, 4, 14)
    text = screen.getvalue()
    assert "LLVM: 10/10 (100%)" in text


def test_ccache_delta() -> None:
    before = parse_print_stats(
        "direct_cache_hit\t10\npreprocessed_cache_hit\t5\ncache_miss\t20\nstats_zeroed_timestamp\t0\n"
    )
    after = parse_print_stats("direct_cache_hit\t105\npreprocessed_cache_hit\t5\ncache_miss\t25\n")
    d = delta(before, after)
    assert (d.hits, d.misses) == (95, 5)
    assert d.hit_rate == pytest.approx(0.95)
    assert "95%" in d.describe()


# ---------------------------------------------------------------------------------------- toolchain


def test_parse_version() -> None:
    assert parse_version("Debian clang version 14.0.6\nTarget: x86_64") == "14.0.6"
    assert parse_version("cmake version 3.25.1\n\nCMake suite") == "3.25.1"
    assert parse_version("1.11.1\n") == "1.11.1"


def test_requirements_present_reads_metadata_folder_names(tmp_path: Path) -> None:
    from bootstrap.pipeline.setup.target_env import requirements_present

    (tmp_path / "setuptools-69.0.0.dist-info").mkdir()
    (tmp_path / "Wheel-0.42.0.dist-info").mkdir()
    (tmp_path / "nanobind-2.10.2.dist-info").mkdir()
    assert requirements_present([tmp_path], ["setuptools>=40.8.0", "wheel", "nanobind==2.10.2"])
    assert not requirements_present([tmp_path], ["setuptools>=40.8.0", "lit"])
    assert requirements_present([tmp_path], [])


def test_progress_bar_on_a_terminal_shows_count_and_eta() -> None:
    from rich.console import Console

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    with NinjaProgress("Triton", console) as progress:
        for i in range(1, 6):
            progress.on_line(f"[{i}/5] Building CXX object x{i}.o")
            if progress._progress is not None:
                progress._progress.refresh()
    text = screen.getvalue()
    assert progress.live and "Triton" in text and "5/5" in text and "ETA" in text


def test_failure_excerpt_shows_the_compiler_error_not_pips_epilogue() -> None:
    from bootstrap.pipeline.built.long_commands import failure_excerpt

    lines = [
        "  [1/3] Building CXX object a.o",
        "  FAILED: CMakeFiles/TritonIR.dir/Types.cpp.o",
        "  /usr/bin/clang++ -c Types.cpp",
        "  Types.cpp:9:1: error: unknown type name 'this'",
        "  1 error generated.",
        "  ninja: build stopped: subcommand failed.",
        *[f"  pip epilogue {i}" for i in range(40)],
        "error: subprocess-exited-with-error",
    ]
    excerpt = failure_excerpt(lines)
    assert excerpt[0].strip().startswith("FAILED:")
    assert any("unknown type name" in line for line in excerpt)
    assert excerpt[-1] == "error: subprocess-exited-with-error"
    assert len(excerpt) < 15
    configure = failure_excerpt(["configure", "CMake Error: no ninja", "done"])
    assert configure == ["CMake Error: no ninja", "...", "configure", "done"]
